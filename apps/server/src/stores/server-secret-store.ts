import type { Db } from '../db/index.js';

/** Secrets shared by every node of a deployment, made once. */

export async function findServerSecret(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Stores the secret unless another node stored one under this name first; either way, nothing fails. */
export async function insertServerSecretIfAbsent(db: Db, name: string, value: string, at: string): Promise<void> {
  await db.insertInto('server_secrets').values({ name, value, created_at: at })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
}
