import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { GlossaryEntriesTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';

export type GlossaryEntryRow = Selectable<GlossaryEntriesTable>;

const GLOSSARY_ORDER: KeysetOrder<GlossaryEntryRow> = {
  columns: ['created_at', 'batch_index', 'id'],
  keyOf: (row) => [row.created_at, row.batch_index, row.id],
  kinds: ['string', 'number', 'string'],
};
export const GLOSSARY_ORDER_KEY_LENGTH = GLOSSARY_ORDER.columns.length;

export async function listGlossaryEntries(db: Db, organizationId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<GlossaryEntryRow>> {
  return keysetPage(db.selectFrom('glossary_entries').selectAll().where('organization_id', '=', organizationId), GLOSSARY_ORDER, after, limit);
}

export async function findGlossaryEntry(db: Db, organizationId: string, id: string): Promise<GlossaryEntryRow | undefined> {
  return db.selectFrom('glossary_entries').selectAll().where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

export async function insertGlossaryEntry(db: Db, row: GlossaryEntryRow): Promise<void> {
  await db.insertInto('glossary_entries').values(row).execute();
}

/** Whether the entry was there to update. */
export async function updateGlossaryEntry(db: Db, organizationId: string, id: string, translations: string, at: string): Promise<boolean> {
  const result = await db.updateTable('glossary_entries').set({ translations, updated_at: at })
    .where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteGlossaryEntry(db: Db, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('glossary_entries').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}
