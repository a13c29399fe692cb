import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { serverSecret } from './server-secret-service.js';

/*
 * Values that must be kept but never stored in clear (Git credentials of a job, secrets of an integration):
 * sealed with AES-256-GCM under a key derived (HKDF-SHA256) from a server secret kept in `server_secrets`,
 * so a copy of the tables alone does not reveal them and every node of a deployment opens what another
 * sealed. The associated data binds a sealed value to what it belongs to: copied elsewhere, it does not open.
 */

const VERSION = 'v1';

export interface SealingKey {
  /** Name of the server secret the key is derived from. */
  secretName: string;
  /** HKDF info: one per use, so that two uses never share a key. */
  info: string;
}

async function keyOf(db: Db, key: SealingKey): Promise<Buffer> {
  const secret = await serverSecret(db, key.secretName);
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), key.info, 32));
}

export class SealedValueError extends Error {
  override readonly name: string = 'SealedValueError';
}

/** `v1.<iv>.<ciphertext>.<tag>`, each base64url. Pass the root database, not a transaction (see `serverSecret`). */
export async function sealValue(db: Db, key: SealingKey, plain: string, associatedData: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await keyOf(db, key), iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const sealed = Buffer.concat([cipher.update(Buffer.from(plain, 'utf8')), cipher.final()]);
  return [VERSION, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

export async function openValue(db: Db, key: SealingKey, sealed: string, associatedData: string): Promise<string> {
  const [version, iv, data, tag] = sealed.split('.');
  if (version !== VERSION || !iv || data === undefined || !tag) throw new SealedValueError('The sealed value is malformed');
  const secretKey = await keyOf(db, key);
  try {
    const decipher = createDecipheriv('aes-256-gcm', secretKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedValueError('The sealed value could not be opened (was the server secret changed?)');
  }
}
