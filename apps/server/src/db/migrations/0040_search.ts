import { PostgresAdapter, sql, type Kysely } from 'kysely';

/*
 * Full-text search of the sections of each space's current revision (see src/search/).
 *
 * `search_sections` holds one row per section (the text under a heading, or before the first one) with what
 * a result shows, so that a search reads no content objects. `search_spaces` records which revision a space's
 * rows come from and the block of row ids the space owns.
 *
 * Row ids are `row_block * 2^32 + n`: every space writes its rows inside its own block. On SQLite the FTS5
 * index is one table for all spaces, and a rowid range is the cheapest way to keep a search (and its
 * candidate cap) inside one space: FTS5 seeks straight to the range instead of intersecting with a
 * per-space token whose posting list is as long as the space.
 *
 * The index itself differs per dialect:
 * - SQLite: an FTS5 table over the rows (external content, kept in sync by triggers, so `rebuild` can always
 *   recreate it from `search_sections`), unicode61 with diacritics removed, prefix indexes for 2 and 3
 *   characters (search as you type).
 * - PostgreSQL: a generated tsvector (page title weight A, section title B, body C) under a GIN index, over
 *   text passed through `quire_search_fold`, which does in SQL what unicode61 does in SQLite: it drops
 *   accents from Latin letters and turns punctuation into spaces (the default parser would otherwise index
 *   `user@example.com` or `v1.2` as single tokens that a search for `example` never finds). The `simple`
 *   configuration lower-cases without stemming, like unicode61.
 */

/**
 * Punctuation and symbols of ASCII, Latin-1 and General Punctuation, as one regular-expression class:
 * exactly the characters of those blocks that are not letters, digits or marks (a test checks this), so
 * that the fold never splits a word that SQLite keeps whole.
 */
export const FOLD_PUNCTUATION_CLASS =
  '[\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E\\u00A0-\\u00A9\\u00AB-\\u00B1\\u00B4\\u00B6-\\u00B8\\u00BB\\u00BF\\u00D7\\u00F7\\u2000-\\u206F]';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  await db.schema
    .createTable('search_spaces')
    .addColumn('space_id', 'text', (c) => c.primaryKey().references('spaces.id').onDelete('cascade'))
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('row_block', 'integer', (c) => c.notNull().unique())
    // Row numbers used so far in the block (up to 2^32): bigint on PostgreSQL, where integer is 32-bit.
    .addColumn('next_row', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('page_count', 'integer', (c) => c.notNull())
    .addColumn('section_count', 'integer', (c) => c.notNull())
    .addColumn('indexed_at', 'text', (c) => c.notNull())
    .execute();

  if (postgres) {
    // E'' strings keep the backslashes of the patterns the same whatever standard_conforming_strings is.
    // ASCII text (most text) skips the two normalizations, which cost four times the rest of the fold.
    await sql
      .raw(
        `create function quire_search_fold(value text) returns text
          language sql immutable strict parallel safe
          as $fold$
            select regexp_replace(
              case when value ~ E'[^\\\\u0001-\\\\u007F]'
                then normalize(regexp_replace(normalize(value, NFD), E'([A-Za-z])[\\\\u0300-\\\\u036F]+', E'\\\\1', 'g'), NFC)
                else value end,
              E'${FOLD_PUNCTUATION_CLASS.replaceAll('\\', '\\\\')}', ' ', 'g')
          $fold$`,
      )
      .execute(db);
  }

  let sections = db.schema
    .createTable('search_sections')
    // On SQLite an INTEGER PRIMARY KEY is the rowid itself, which FTS5 refers to and which VACUUM keeps.
    .addColumn('id', postgres ? 'bigint' : 'integer', (c) => c.primaryKey())
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    // The revision the row was written from; rows of pages that did not change are kept across revisions.
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('page_id', 'text', (c) => c.notNull())
    // Hash of what the page's rows were made from: a reindex rewrites only pages whose hash changed.
    .addColumn('page_hash', 'text', (c) => c.notNull())
    // Rank hints: where the section is in its page, and how deep the page is in the tree.
    .addColumn('section_position', 'integer', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    // The heading's anchor; empty for the text before the first heading.
    .addColumn('section_id', 'text', (c) => c.notNull())
    .addColumn('page_title', 'text', (c) => c.notNull())
    .addColumn('page_path', 'text', (c) => c.notNull())
    // JSON array of the titles of the pages above, from the top level down to the parent.
    .addColumn('ancestors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('section_title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull());
  if (postgres) {
    sections = sections.addColumn('search_vector', sql`tsvector`, (c) =>
      c
        .generatedAlwaysAs(
          sql`setweight(to_tsvector('simple', quire_search_fold(page_title)), 'A')
            || setweight(to_tsvector('simple', quire_search_fold(section_title)), 'B')
            || setweight(to_tsvector('simple', quire_search_fold(body)), 'C')`,
        )
        .stored(),
    );
  }
  await sections.execute();
  // Reindexing replaces a space's rows page by page; deleting a space cascades through it too.
  await db.schema.createIndex('search_sections_page').on('search_sections').columns(['space_id', 'page_id', 'section_position']).execute();
  // Reindexing first reads the hash of every page (from its first row): from this index alone.
  await db.schema
    .createIndex('search_sections_page_hash')
    .on('search_sections')
    .columns(['space_id', 'page_id', 'page_hash'])
    .where(sql.ref('section_position'), '=', sql.lit(0))
    .execute();

  if (postgres) {
    await sql`create index search_sections_vector on search_sections using gin (search_vector)`.execute(db);
    return;
  }

  await sql
    .raw(
      `create virtual table search_fts using fts5(
        page_title, section_title, body,
        content='search_sections', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2',
        prefix='2 3'
      )`,
    )
    .execute(db);
  // External content: FTS5 stores only the index, so removing a row has to hand it the old values.
  await sql
    .raw(
      `create trigger search_sections_fts_insert after insert on search_sections begin
        insert into search_fts(rowid, page_title, section_title, body) values (new.id, new.page_title, new.section_title, new.body);
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger search_sections_fts_delete after delete on search_sections begin
        insert into search_fts(search_fts, rowid, page_title, section_title, body) values ('delete', old.id, old.page_title, old.section_title, old.body);
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger search_sections_fts_update after update of id, page_title, section_title, body on search_sections begin
        insert into search_fts(search_fts, rowid, page_title, section_title, body) values ('delete', old.id, old.page_title, old.section_title, old.body);
        insert into search_fts(rowid, page_title, section_title, body) values (new.id, new.page_title, new.section_title, new.body);
      end`,
    )
    .execute(db);
}
