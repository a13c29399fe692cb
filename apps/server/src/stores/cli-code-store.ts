import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { CliAuthCodesTable } from '../db/schema.js';

/** One-time codes that hand a signed-in session over to the command line. */

export type CliAuthCodeRow = Selectable<CliAuthCodesTable>;

export async function insertCliAuthCode(db: Db, row: CliAuthCodeRow): Promise<void> {
  await db.insertInto('cli_auth_codes').values(row).execute();
}

/**
 * Takes the code out of the table and answers it: a code can be exchanged once, so two concurrent
 * exchanges of the same code cannot both find it (the delete decides).
 */
export async function takeCliAuthCode(db: Db, codeHash: string): Promise<CliAuthCodeRow | undefined> {
  const row = await db.selectFrom('cli_auth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  if (!row) return undefined;
  const deleted = await db.deleteFrom('cli_auth_codes').where('code_hash', '=', codeHash).executeTakeFirst();
  return deleted.numDeletedRows > 0n ? row : undefined;
}

export async function deleteExpiredCliAuthCodes(db: Db, now: string): Promise<void> {
  await db.deleteFrom('cli_auth_codes').where('expires_at', '<', now).execute();
}
