import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { openValue, sealValue, type SealingKey } from './sealed-values.js';

/*
 * The secret of an invitation's join address (`<public URL>/join/<secret>`): 256 random bits, looked up by
 * its SHA-256 (a hash that needs no salt or stretching: the secret is not guessable) and kept sealed so that
 * the mail job, run later and perhaps elsewhere, can put it in the message. No answer shows it but the one
 * that made it.
 */

const INVITE_SEALING: SealingKey = { secretName: 'organization-invites', info: 'quire organization invites v1' };

export interface NewInviteSecret {
  secret: string;
  hash: string;
  sealed: string;
}

/** A new secret for the invite `inviteId`, sealed to it. Pass the root database (see `sealValue`). */
export async function newInviteSecret(db: Db, inviteId: string): Promise<NewInviteSecret> {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: inviteSecretHash(secret), sealed: await sealValue(db, INVITE_SEALING, secret, inviteId) };
}

export function inviteSecretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function openInviteSecret(db: Db, sealed: string, inviteId: string): Promise<string> {
  return openValue(db, INVITE_SEALING, sealed, inviteId);
}

/** The path of the join address below the public URL; the app serves it (`/join/:secret`). */
export function joinPath(secret: string): string {
  return `/join/${secret}`;
}
