import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import type { GitCredentials } from '../git/run-git.js';
import { serverSecret } from './server-secret-service.js';

/*
 * Credentials embedded in a Git URL must reach the background job that clones or pushes, but they are never
 * stored in clear (DESIGN.md section 6): the job payload holds them sealed with AES-256-GCM, under a key
 * derived (HKDF-SHA256) from a server secret kept in `server_secrets`, so a copy of the jobs table alone does
 * not reveal them and every node of a deployment can open what another sealed. The operation id is the
 * associated data: a sealed value copied into another operation's payload does not open.
 */

const SECRET_NAME = 'git-credentials';
const KEY_INFO = 'quire git credentials v1';
const VERSION = 'v1';

async function keyOf(db: Db): Promise<Buffer> {
  const secret = await serverSecret(db, SECRET_NAME);
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), KEY_INFO, 32));
}

export class SealedCredentialsError extends Error {
  override readonly name = 'SealedCredentialsError';
}

/** `v1.<iv>.<ciphertext>.<tag>`, each base64url. */
export async function sealCredentials(db: Db, credentials: GitCredentials, operationId: string): Promise<string> {
  const key = await keyOf(db);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(operationId, 'utf8'));
  const plain = Buffer.from(JSON.stringify({ u: credentials.username, p: credentials.password }), 'utf8');
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return [VERSION, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

export async function openCredentials(db: Db, sealed: string, operationId: string): Promise<GitCredentials> {
  const [version, iv, data, tag] = sealed.split('.');
  if (version !== VERSION || !iv || data === undefined || !tag) throw new SealedCredentialsError('The sealed credentials are malformed');
  const key = await keyOf(db);
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(operationId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
  } catch {
    throw new SealedCredentialsError('The credentials of this operation could not be opened (was the server secret changed?)');
  }
  const value = JSON.parse(plain.toString('utf8')) as { u?: unknown; p?: unknown };
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
