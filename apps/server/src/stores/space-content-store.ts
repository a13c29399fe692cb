import type { Db, DialectName } from '../db/index.js';

/*
 * Writes of the space content family to the `spaces` row. Moving a space's main revision is a
 * compare-and-set, so that of two writes built on the same main revision only the first lands and the
 * other finds out (and builds again on top of it) instead of silently dropping the first one's changes.
 */

/** Makes `to` the space's main revision if `from` still is; answers whether it did. */
export async function moveSpaceMainRevision(db: Db, spaceId: string, from: string, to: string, at: string): Promise<boolean> {
  const result = await db.updateTable('spaces')
    .set({ revision_id: to, updated_at: at })
    .where('id', '=', spaceId)
    .where('revision_id', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The space's main revision, with the space row locked until the transaction ends on PostgreSQL, so that
 * writes building on main run one after the other (SQLite transactions hold the only write lock already).
 */
export async function lockSpaceMainRevision(db: Db, dialect: DialectName, spaceId: string): Promise<string | undefined> {
  const query = db.selectFrom('spaces').select('revision_id').where('id', '=', spaceId);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  return row?.revision_id;
}
