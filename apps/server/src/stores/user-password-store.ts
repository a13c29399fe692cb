import type { Db } from '../db/index.js';

/** The stored hash of a user's password, or undefined when they have none. */
export async function findUserPasswordHash(db: Db, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('user_passwords').select('password_hash').where('user_id', '=', userId).executeTakeFirst();
  return row?.password_hash;
}

/** Sets (or replaces) a user's password hash. */
export async function upsertUserPasswordHash(db: Db, userId: string, passwordHash: string, changedAt: string): Promise<void> {
  await db
    .insertInto('user_passwords')
    .values({ user_id: userId, password_hash: passwordHash, changed_at: changedAt })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: passwordHash, changed_at: changedAt }))
    .execute();
}
