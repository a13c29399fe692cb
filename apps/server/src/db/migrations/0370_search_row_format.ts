import type { Kysely } from 'kysely';

/*
 * The format of a space's search rows (src/search/search-index.ts, ROW_FORMAT), kept with its search state.
 * A reindex after an edit compares the old and new revision trees and rewrites only the pages below subtrees
 * that changed, so it never looks at the rows of untouched pages: it may do so only when those rows were made
 * in the current format. A state of format 0 (every state made before this column) is brought up to date by
 * one full walk, which rewrites what the format changed and records the format.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('search_spaces')
    .addColumn('row_format', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
