import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { RevisionsTable } from '../db/schema.js';

export type RevisionRow = Selectable<RevisionsTable>;

/** Revisions are immutable: they are inserted once and never updated. */
export async function insertRevision(db: Db, row: RevisionRow): Promise<void> {
  await db.insertInto('revisions').values(row).execute();
}

export async function findRevisionById(db: Db, id: string): Promise<RevisionRow | undefined> {
  return db.selectFrom('revisions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A revision of this space (undefined when the id names a revision of another space). */
export async function findRevisionOfSpace(db: Db, spaceId: string, revisionId: string): Promise<RevisionRow | undefined> {
  return db.selectFrom('revisions').selectAll().where('id', '=', revisionId).where('space_id', '=', spaceId).executeTakeFirst();
}

export async function countRevisionsOfSpace(db: Db, spaceId: string): Promise<number> {
  const row = await db.selectFrom('revisions').select((eb) => eb.fn.countAll<number | string>().as('count')).where('space_id', '=', spaceId).executeTakeFirst();
  return Number(row?.count ?? 0);
}
