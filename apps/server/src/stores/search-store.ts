import { PostgresAdapter, sql, type Insertable, type RawBuilder } from 'kysely';
import type { Db, DialectName } from '../db/index.js';
import type { SearchSectionsTable, SearchSpacesTable } from '../db/schema.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { visibleSpacesFrom } from './visibility.js';

/*
 * All SQL of search (tables of migrations 0040 and 0400): the rows of each space's sections and its index
 * state, the matching (and, for an organization's spaces, ranked) queries over them, and the ranking index a
 * space's search reads best-first (search_terms, search_postings). Everything that differs between SQLite
 * (FTS5) and PostgreSQL (tsvector) is here, in one place. Queries are built from parsed terms only (letters, digits and marks), never from the
 * raw text a user typed. What the rows are made from and how answers are shaped is src/search/'s job.
 */

/** What a query looks for: its words, folded, and whether the last one is matched as a prefix. */
export interface SearchTermsInput {
  terms: readonly string[];
  prefix: boolean;
}

export type SearchSectionInsert = Insertable<SearchSectionsTable>;
export type SearchStateRow = Pick<SearchSpacesTable, 'revision_id' | 'row_block' | 'next_row' | 'page_count' | 'section_count'> & { row_format: number };

/** Page ids per DELETE (and per lookup of stored hashes). */
const DELETE_BATCH = 500;
/** Rows per INSERT: 13 parameters each stays far below the bound-parameter limits of both databases. */
const INSERT_BATCH = 400;

/** The dialect of a Kysely instance or transaction, so that callers need not pass it along. */
export function dialectOf(db: Db): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Relative weight of a match in the page title, a section title and the body, in the ranking of an
 * organization's spaces (searchRankedSpaces; a space's pages rank by search/search-rank.ts). SQLite's bm25
 * multiplies each column's score by these; PostgreSQL's ts_rank uses its own weights for A, B and C (1.0,
 * 0.4, 0.2), which keep the same order.
 */
export const COLUMN_WEIGHTS = { pageTitle: 10, sectionTitle: 5, body: 1 } as const;

/**
 * The FTS5 MATCH expression: every term a quoted string (so `NEAR`, `OR`, `*`, `-`, `:`, parentheses are
 * just text), all required (implicit AND), the last one with `*` when it is matched as a prefix.
 */
export function ftsMatchExpression({ terms, prefix }: SearchTermsInput): string {
  return terms
    .map((term, index) => `"${term.replaceAll('"', '""')}"${prefix && index === terms.length - 1 ? '*' : ''}`)
    .join(' ');
}

/**
 * The tsquery: each term folded in SQL by the same function as the index (so both sides agree exactly),
 * quoted as one lexeme, and combined with `&&`; the last with `:*` when it is matched as a prefix. The
 * terms hold no quote or backslash, so the quoting cannot be escaped.
 */
function tsQueryExpression({ terms, prefix }: SearchTermsInput): RawBuilder<unknown> {
  return sql.join(
    terms.map((term, index) => {
      const suffix = prefix && index === terms.length - 1 ? "':*" : "'";
      return sql`to_tsquery('simple', '''' || quire_search_fold(${term}) || ${suffix})`;
    }),
    sql` && `,
  );
}

export interface CandidateScope {
  spaceId: string;
  /** Row ids of the space: [first, end). */
  firstRow: number;
  endRow: number;
  candidateLimit: number;
}

export interface OrganizationCandidateScope {
  organizationId: string;
  /** Only the live spaces this viewer sees are searched (stores/visibility.ts, the one rule). */
  viewer: ContentViewer;
  candidateLimit: number;
}

/** One matching space at a rank of the window, with the counts of the whole ranking (see searchRankedPages). */
export interface SearchSpaceRow {
  total: number | string;
  candidate_count: number | string;
  position: number | string | null;
  space_id: string | null;
  space_title: string | null;
}

/**
 * The spaces of an organization that the viewer sees whose indexed sections match, ranked by their best
 * section (ties by space id): one window of `limit` spaces from `offset`. As in a space's search, at most
 * `candidateLimit` matching sections are ranked. The sections are those of every space of the installation
 * that match, kept to the viewer's spaces before the cap: on SQLite the FTS index has no per-organization
 * part, so a word frequent in other organizations' spaces is read through before the cap is reached.
 */
export async function searchRankedSpaces(
  db: Db,
  terms: SearchTermsInput,
  scope: OrganizationCandidateScope,
  window: { offset: number; limit: number },
): Promise<SearchSpaceRow[]> {
  const visible = visibleSpacesFrom(db, scope.organizationId, scope.viewer, 'access_role')
    .where('s.organization_id', '=', scope.organizationId)
    .where('s.deleted_at', 'is', null)
    .select('s.id');
  let candidates: RawBuilder<unknown>;
  if (dialectOf(db) === 'sqlite') {
    const { pageTitle, sectionTitle, body } = COLUMN_WEIGHTS;
    // CROSS JOIN keeps the FTS match as the outer loop; the visible spaces are one lookup per match.
    candidates = sql`
      select ss.space_id, bm25(search_fts, ${sql.lit(pageTitle)}, ${sql.lit(sectionTitle)}, ${sql.lit(body)}) as score
      from search_fts cross join search_sections ss
      where search_fts match ${ftsMatchExpression(terms)} and ss.id = search_fts.rowid and ss.space_id in (select v.id from (${visible}) v)
      limit ${scope.candidateLimit}`;
  } else {
    candidates = sql`
      select ss.space_id, (-ts_rank(ss.search_vector, q.query, 1))::float8 as score
      from search_sections ss cross join (select ${tsQueryExpression(terms)} as query) q
      where ss.space_id in (select v.id from (${visible}) v) and ss.search_vector @@ q.query
      limit ${scope.candidateLimit}`;
  }
  const result = await sql<SearchSpaceRow>`
    with candidates as materialized (${candidates}),
    matched as (select space_id, min(score) as score from candidates group by space_id),
    ranked as (select space_id, row_number() over (order by score, space_id) as position from matched),
    totals as (select (select count(*) from matched) as total, (select count(*) from candidates) as candidate_count)
    select t.total, t.candidate_count, r.position, r.space_id, sp.title as space_title
    from totals t
    left join ranked r on r.position > ${window.offset} and r.position <= ${window.offset + window.limit}
    left join spaces sp on sp.id = r.space_id
    order by r.position`.execute(db);
  return result.rows;
}

/** The block of row ids of an indexed space, or undefined when it was never indexed. */
export async function findSearchRowBlock(db: Db, spaceId: string): Promise<number | undefined> {
  const row = await db.selectFrom('search_spaces').select('row_block').where('space_id', '=', spaceId).executeTakeFirst();
  return row?.row_block;
}

/** The revision the space's search rows come from, or undefined when it was never indexed. */
export async function findIndexedRevision(db: Db, spaceId: string): Promise<string | undefined> {
  const row = await db.selectFrom('search_spaces').select('revision_id').where('space_id', '=', spaceId).executeTakeFirst();
  return row?.revision_id;
}

/** The revision the space's search rows come from and the format they were made in, or undefined when never indexed. */
export async function findIndexedState(db: Db, spaceId: string): Promise<{ revision_id: string; row_format: number } | undefined> {
  return db.selectFrom('search_spaces').select(['revision_id', 'row_format']).where('space_id', '=', spaceId).executeTakeFirst();
}

/** Whether the space row exists (search rows refer to it). */
export async function searchableSpaceExists(db: Db, spaceId: string): Promise<boolean> {
  const space = await db.selectFrom('spaces').select('id').where('id', '=', spaceId).executeTakeFirst();
  return space !== undefined;
}

/** The hash each indexed page of the space was made from, by page id. */
export async function findStoredPageHashes(db: Db, spaceId: string): Promise<Map<string, string>> {
  // Every page has a row at position 0 (a page without sections gets an empty one). The 0 is literal SQL so
  // that the planner can use the partial index search_sections_page_hash.
  const rows = await db.selectFrom('search_sections')
    .select(['page_id', 'page_hash'])
    .where('space_id', '=', spaceId)
    .where(sql<boolean>`section_position = 0`)
    .execute();
  return new Map(rows.map((row) => [row.page_id, row.page_hash]));
}

/**
 * The hash each of these pages of the space was made from, by page id (pages without rows are left out):
 * what a reindex by tree comparison reads instead of every page's.
 */
export async function findStoredPageHashesOf(db: Db, spaceId: string, pageIds: readonly string[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (let start = 0; start < pageIds.length; start += DELETE_BATCH) {
    const rows = await db.selectFrom('search_sections')
      .select(['page_id', 'page_hash'])
      .where('space_id', '=', spaceId)
      .where('page_id', 'in', pageIds.slice(start, start + DELETE_BATCH))
      .where(sql<boolean>`section_position = 0`)
      .execute();
    for (const row of rows) hashes.set(row.page_id, row.page_hash);
  }
  return hashes;
}

/**
 * The space's search_spaces row, locked for the rest of the transaction on PostgreSQL, so that two reindexes
 * of one space run one after the other (SQLite transactions are exclusive already).
 */
export async function findSearchStateForUpdate(trx: Db, spaceId: string): Promise<SearchStateRow | undefined> {
  const query = trx.selectFrom('search_spaces')
    .select(['revision_id', 'row_block', 'next_row', 'page_count', 'section_count', 'row_format'])
    .where('space_id', '=', spaceId);
  return (dialectOf(trx) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

/** Creates the space's search state unless a concurrent first reindex did meanwhile (its row is kept then). */
export async function insertSearchStateIfMissing(trx: Db, state: Insertable<SearchSpacesTable>): Promise<void> {
  await trx.insertInto('search_spaces')
    .values(state)
    .onConflict((conflict) => conflict.column('space_id').doNothing())
    .execute();
}

export async function updateSearchState(
  trx: Db,
  spaceId: string,
  state: Pick<SearchSpacesTable, 'revision_id' | 'row_block' | 'next_row' | 'page_count' | 'section_count' | 'indexed_at'> & { row_format: number },
): Promise<void> {
  await trx.updateTable('search_spaces').set(state).where('space_id', '=', spaceId).execute();
}

/** Deletes the rows of these pages of the space; answers how many rows went. */
export async function deleteSearchRowsOfPages(trx: Db, spaceId: string, pageIds: readonly string[]): Promise<number> {
  let deleted = 0;
  for (let start = 0; start < pageIds.length; start += DELETE_BATCH) {
    const result = await trx.deleteFrom('search_sections')
      .where('space_id', '=', spaceId)
      .where('page_id', 'in', pageIds.slice(start, start + DELETE_BATCH))
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

export async function insertSearchRows(trx: Db, rows: readonly SearchSectionInsert[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await trx.insertInto('search_sections').values(rows.slice(start, start + INSERT_BATCH)).execute();
  }
}

/** Removes a space's search rows and state, in `db`'s transaction when it is one, else in its own. */
export async function deleteSearchRowsOfSpace(db: Db, spaceId: string): Promise<void> {
  const drop = async (trx: Db): Promise<void> => {
    await trx.deleteFrom('search_sections').where('space_id', '=', spaceId).execute();
    await trx.deleteFrom('search_terms').where('space_id', '=', spaceId).execute();
    await trx.deleteFrom('search_spaces').where('space_id', '=', spaceId).execute();
  };
  await (db.isTransaction ? drop(db) : db.transaction().execute(drop));
}

/**
 * Refreshes PostgreSQL's statistics of the search rows after a large write: the planner would otherwise go on
 * estimating the space at its old size until autovacuum analyzes the table, and intersect with every row of
 * the space (measured: 20 ms instead of 4 for a rare word). SQLite needs nothing.
 */
export async function refreshSearchStatistics(db: Db): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`analyze search_sections`.execute(db);
}

/** Bytes the search rows and their indexes take on PostgreSQL; undefined on SQLite (one file holds all). */
export async function searchTableBytes(db: Db): Promise<number | undefined> {
  if (dialectOf(db) !== 'postgres') return undefined;
  const row = await sql<{ bytes: string }>`select pg_total_relation_size('search_sections') as bytes`.execute(db);
  return Number(row.rows[0]?.bytes);
}

/*
 * The ranking index of migration 0400 (src/search/search-rank.ts): per word, how many sections and pages of
 * the space hold it, and the sections where its impact reaches the threshold, read best-first.
 */

/** A query word, folded; a prefix covers every word from `term` up to `end` (exclusive). */
export interface RankedTermInput {
  term: string;
  prefix: boolean;
  end: string;
}

export interface TermCountRow {
  sections: number;
  pages: number;
}

/** A section's text as ranking reads it: columns of `search_sections`. */
export type SectionTextRow = { id: number } & Pick<SearchSectionsTable, 'page_id' | 'depth' | 'section_position' | 'section_id' | 'page_title' | 'page_path' | 'ancestors' | 'section_title' | 'body'>;

/** Rows of one statement's `in (...)` list: far below the bound-parameter limits of both databases. */
const ID_BATCH = 500;

/** The sections and pages holding each word (summed over the words a prefix starts: an upper bound). */
export async function findTermCounts(db: Db, spaceId: string, terms: readonly RankedTermInput[]): Promise<TermCountRow[]> {
  return Promise.all(terms.map(async ({ term, prefix, end }) => {
    const query = db.selectFrom('search_terms')
      .select(({ fn }) => [fn.sum<number | string | null>('sections').as('sections'), fn.sum<number | string | null>('pages').as('pages')])
      .where('space_id', '=', spaceId);
    const row = await (prefix ? query.where('term', '>=', term).where('term', '<', end) : query.where('term', '=', term)).executeTakeFirst();
    return { sections: Number(row?.sections ?? 0), pages: Number(row?.pages ?? 0) };
  }));
}

export interface PostingRow {
  row_id: number;
  impact: number;
  depth: number;
  page_id: string;
}

/**
 * The best `limit` postings of a word (of the words a prefix starts, together): highest impact first, then
 * as search breaks ties (page depth, page id). A word's are one forward scan of the key; a prefix's range is
 * read and sorted.
 */
export async function findTopPostings(db: Db, spaceId: string, { term, prefix, end }: RankedTermInput, limit: number): Promise<PostingRow[]> {
  const query = db.selectFrom('search_postings').select(['row_id', 'minus_impact', 'depth', 'page_id']).where('space_id', '=', spaceId);
  const rows = await (prefix ? query.where('term', '>=', term).where('term', '<', end) : query.where('term', '=', term))
    .orderBy('minus_impact')
    .orderBy('depth')
    .orderBy('page_id')
    .orderBy('row_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ row_id: Number(row.row_id), impact: -Number(row.minus_impact), depth: row.depth, page_id: row.page_id }));
}

const TEXT_COLUMNS = ['id', 'page_id', 'depth', 'section_position', 'section_id', 'page_title', 'page_path', 'ancestors', 'section_title', 'body'] as const;

/** The text of these sections of the space (what their impacts are computed from). */
export async function findSectionTexts(db: Db, spaceId: string, ids: readonly number[]): Promise<SectionTextRow[]> {
  const out: SectionTextRow[] = [];
  for (let start = 0; start < ids.length; start += ID_BATCH) {
    const rows = await db.selectFrom('search_sections').select([...TEXT_COLUMNS, 'space_id'])
      .where('id', 'in', ids.slice(start, start + ID_BATCH)).execute();
    for (const { space_id: space, ...row } of rows) if (space === spaceId) out.push({ ...row, id: Number(row.id) });
  }
  return out;
}

/** Every section of these pages of the space, with its text, in page then section order. */
export async function findSectionTextsOfPages(db: Db, spaceId: string, pageIds: readonly string[]): Promise<SectionTextRow[]> {
  const out: SectionTextRow[] = [];
  for (let start = 0; start < pageIds.length; start += ID_BATCH) {
    const rows = await db.selectFrom('search_sections').select(TEXT_COLUMNS)
      .where('space_id', '=', spaceId).where('page_id', 'in', pageIds.slice(start, start + ID_BATCH))
      .orderBy('page_id').orderBy('section_position').execute();
    for (const row of rows) out.push({ ...row, id: Number(row.id) });
  }
  return out;
}

/**
 * The sections of the space (row ids [first, end)) that match every word, with their text, at most `limit`
 * of them in index order (FTS5: rowid order; PostgreSQL: the bitmap heap scan's).
 */
export async function findMatchingSectionTexts(db: Db, terms: SearchTermsInput, scope: CandidateScope): Promise<SectionTextRow[]> {
  const rows = dialectOf(db) === 'sqlite'
    ? await sql<SectionTextRow>`
      select s.id, s.page_id, s.depth, s.section_position, s.section_id, s.page_title, s.page_path, s.ancestors, s.section_title, s.body
      from (
        select rowid as row_id from search_fts
        where search_fts match ${ftsMatchExpression(terms)} and rowid >= ${scope.firstRow} and rowid < ${scope.endRow}
        limit ${scope.candidateLimit}
      ) f
      cross join search_sections s
      where s.id = f.row_id and s.space_id = ${scope.spaceId}`.execute(db)
    : await sql<SectionTextRow>`
      select s.id, s.page_id, s.depth, s.section_position, s.section_id, s.page_title, s.page_path, s.ancestors, s.section_title, s.body
      from search_sections s
      where s.space_id = ${scope.spaceId} and s.search_vector @@ (${tsQueryExpression(terms)})
      limit ${scope.candidateLimit}`.execute(db);
  return rows.rows.map((row) => ({ ...row, id: Number(row.id) }));
}

export interface SearchPostingInsert {
  space_id: string;
  term: string;
  minus_impact: number;
  depth: number;
  page_id: string;
  row_id: number;
}

/** Rows per INSERT of postings (6 parameters each). */
const POSTING_BATCH = 800;

export async function insertSearchPostings(trx: Db, rows: readonly SearchPostingInsert[]): Promise<void> {
  for (let start = 0; start < rows.length; start += POSTING_BATCH) {
    await trx.insertInto('search_postings').values(rows.slice(start, start + POSTING_BATCH)).execute();
  }
}

/** Rows per upsert of word counts (4 parameters each). */
const TERM_BATCH = 1_000;

/**
 * Adds these changes to the space's word counts (new words start from 0), then drops the words no section
 * holds any more.
 */
export async function applyTermCounts(trx: Db, spaceId: string, changes: ReadonlyMap<string, { sections: number; pages: number }>): Promise<void> {
  const rows = [...changes].filter(([, change]) => change.sections !== 0 || change.pages !== 0)
    .map(([term, change]) => ({ space_id: spaceId, term, sections: change.sections, pages: change.pages }));
  for (let start = 0; start < rows.length; start += TERM_BATCH) {
    const batch = rows.slice(start, start + TERM_BATCH);
    await trx.insertInto('search_terms').values(batch)
      .onConflict((conflict) => conflict.columns(['space_id', 'term']).doUpdateSet({
        sections: sql`search_terms.sections + excluded.sections`,
        pages: sql`search_terms.pages + excluded.pages`,
      }))
      .execute();
    const dropped = batch.filter((row) => row.sections < 0).map((row) => row.term);
    if (dropped.length > 0) {
      await trx.deleteFrom('search_terms').where('space_id', '=', spaceId).where('term', 'in', dropped).where('sections', '<=', 0).execute();
    }
  }
}

/** Forgets the space's word counts (before they are counted again from rows of a new format). */
export async function deleteSearchTermsOfSpace(trx: Db, spaceId: string): Promise<void> {
  await trx.deleteFrom('search_terms').where('space_id', '=', spaceId).execute();
}

/** What a search needs of the space's state: its block, its sizes and the format of its rows; undefined when never indexed. */
export async function findSearchRankState(db: Db, spaceId: string): Promise<Pick<SearchStateRow, 'row_block' | 'page_count' | 'section_count' | 'row_format'> | undefined> {
  return db.selectFrom('search_spaces').select(['row_block', 'page_count', 'section_count', 'row_format']).where('space_id', '=', spaceId).executeTakeFirst();
}
