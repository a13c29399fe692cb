import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { UserTotpTable } from '../db/schema.js';

export type UserTotpRow = Selectable<UserTotpTable>;

export async function findUserTotp(db: Db, userId: string): Promise<UserTotpRow | undefined> {
  return db.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Starts (or restarts) an enrolment: a new sealed secret, not confirmed yet. */
export async function upsertPendingTotp(db: Db, userId: string, secretSealed: string, createdAt: string): Promise<void> {
  await db.insertInto('user_totp')
    .values({ user_id: userId, secret_sealed: secretSealed, created_at: createdAt, confirmed_at: null, last_used_step: null })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ secret_sealed: secretSealed, created_at: createdAt, confirmed_at: null, last_used_step: null }))
    .execute();
}

/**
 * Records that the code of `step` was used, only when no code of that step or a later one was: answers
 * false when another request took it first, so a code signs in once even when sent twice at once.
 */
export async function takeTotpStep(db: Db, userId: string, step: number, confirmedAt?: string): Promise<boolean> {
  const result = await db.updateTable('user_totp')
    .set({ last_used_step: step, ...(confirmedAt !== undefined ? { confirmed_at: confirmedAt } : {}) })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteUserTotp(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('user_totp').where('user_id', '=', userId).execute();
}

/** Replaces a user's recovery codes with these hashes. */
export async function replaceRecoveryCodes(db: Db, userId: string, codeHashes: readonly string[], createdAt: string): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  await db.insertInto('user_recovery_codes')
    .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: createdAt, used_at: null })))
    .execute();
}

/** Spends an unused recovery code; false when it is unknown or already spent (also when spent at the same moment). */
export async function spendRecoveryCode(db: Db, userId: string, codeHash: string, usedAt: string): Promise<boolean> {
  const result = await db.updateTable('user_recovery_codes').set({ used_at: usedAt })
    .where('user_id', '=', userId).where('code_hash', '=', codeHash).where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
