import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { newId, nowIso } from '../../ids.js';

/*
 * The ranking search reads best-first (src/search/search-rank.ts), beside the FTS5 / tsvector index that
 * still finds which sections match:
 * - `search_terms`: per space and folded word, how many sections and how many pages hold it (the idf of the
 *   ranking, and the count of a one-word search), kept up to date by every reindex from the pages it writes
 *   and removes.
 * - `search_postings`: per section, the words whose impact there reaches a threshold (a bounded number per
 *   section), keyed by (space, word, impact, then the page's depth and id) so that a search reads a word's
 *   best sections first, in the order it ranks pages. A posting goes with its section (foreign key, cascading).
 * Words compare byte by byte (`collate "C"` on PostgreSQL, SQLite's default) so that a prefix is one range.
 *
 * Existing spaces get their postings from a full reindex: the new row format (search-index.ts ROW_FORMAT 2)
 * makes every page's hash differ, and each indexed space is marked stale (no revision) with a search.reindex
 * job queued for it, which rewrites its rows and so writes their postings and counts. Until it has run, such
 * a space is searched by scoring its matches (search-query.ts), as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const term = postgres ? sql`text collate "C"` : sql`text`;

  await db.schema
    .createTable('search_terms')
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('term', term, (c) => c.notNull())
    .addColumn('sections', 'integer', (c) => c.notNull())
    .addColumn('pages', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_terms_pkey', ['space_id', 'term'])
    .modifyEnd(postgres ? sql`` : sql`without rowid`)
    .execute();

  // The impact is stored negated, so that the best postings come first in the key's ascending order, ties
  // broken as search breaks them (the page's depth, then its id): one forward scan on both databases.
  await db.schema
    .createTable('search_postings')
    .addColumn('space_id', 'text', (c) => c.notNull())
    .addColumn('term', term, (c) => c.notNull())
    .addColumn('minus_impact', postgres ? 'float8' : 'real', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('page_id', postgres ? sql`text collate "C"` : 'text', (c) => c.notNull())
    .addColumn('row_id', postgres ? 'bigint' : 'integer', (c) => c.notNull().references('search_sections.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('search_postings_pkey', ['space_id', 'term', 'minus_impact', 'depth', 'page_id', 'row_id'])
    .modifyEnd(postgres ? sql`` : sql`without rowid`)
    .execute();
  // The cascade from a deleted section finds its postings through this.
  await db.schema.createIndex('search_postings_row').on('search_postings').column('row_id').execute();

  const spaces = await db.selectFrom('search_spaces').select('space_id').execute();
  await db.updateTable('search_spaces').set({ revision_id: '' }).execute();
  for (const { space_id: spaceId } of spaces) {
    const now = nowIso();
    await db.insertInto('jobs').values({
      id: newId(), kind: 'search.reindex', payload: JSON.stringify({ spaceId }), status: 'queued', run_at: now, attempts: 0,
      max_attempts: 5, locked_until: null, locked_by: null, last_error: null, created_at: now, finished_at: null,
    }).execute();
  }
}
