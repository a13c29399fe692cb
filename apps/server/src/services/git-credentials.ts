import type { Db } from '../db/index.js';
import type { GitCredentials } from '../git/run-git.js';
import { openValue, sealValue, SealedValueError, type SealingKey } from './sealed-values.js';

/*
 * Credentials embedded in a Git URL must reach the background job that clones or pushes, but they are never
 * stored in clear (DESIGN.md section 6): the job payload holds them sealed with AES-256-GCM, under a key
 * derived (HKDF-SHA256) from a server secret kept in `server_secrets`, so a copy of the jobs table alone does
 * not reveal them and every node of a deployment can open what another sealed. The operation id is the
 * associated data: a sealed value copied into another operation's payload does not open.
 */

const SEALING_KEY: SealingKey = { secretName: 'git-credentials', info: 'quire git credentials v1' };

export class SealedCredentialsError extends Error {
  override readonly name = 'SealedCredentialsError';
}

/** `v1.<iv>.<ciphertext>.<tag>`, each base64url (services/sealed-values.ts). */
export async function sealCredentials(db: Db, credentials: GitCredentials, operationId: string): Promise<string> {
  return sealValue(db, SEALING_KEY, JSON.stringify({ u: credentials.username, p: credentials.password }), operationId);
}

export async function openCredentials(db: Db, sealed: string, operationId: string): Promise<GitCredentials> {
  let plain: string;
  try {
    plain = await openValue(db, SEALING_KEY, sealed, operationId);
  } catch (error) {
    if (error instanceof SealedValueError) {
      throw new SealedCredentialsError(error.message === 'The sealed value is malformed' ? 'The sealed credentials are malformed' : 'The credentials of this operation could not be opened (was the server secret changed?)');
    }
    throw error;
  }
  const value = JSON.parse(plain) as { u?: unknown; p?: unknown };
  const credentials: GitCredentials = {};
  if (typeof value.u === 'string') credentials.username = value.u;
  if (typeof value.p === 'string') credentials.password = value.p;
  return credentials;
}

/** The URL git is given by the import and export code, which takes the credentials off again itself. */
export function urlWithCredentials(url: string, credentials: GitCredentials | undefined): string {
  if (!credentials || (credentials.username === undefined && credentials.password === undefined)) return url;
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(credentials.username ?? '');
  if (credentials.password !== undefined) parsed.password = encodeURIComponent(credentials.password);
  return parsed.href;
}

/** The strings that would give credentials away, for scrubbing messages (on top of git's own scrubbing). */
export function credentialSecrets(credentials: GitCredentials | undefined): string[] {
  if (!credentials) return [];
  const secrets: string[] = [];
  for (const value of [credentials.password, credentials.username]) {
    if (value && value.length >= 3) secrets.push(value, encodeURIComponent(value));
  }
  secrets.push(Buffer.from(`${credentials.username ?? ''}:${credentials.password ?? ''}`).toString('base64'));
  return secrets;
}
