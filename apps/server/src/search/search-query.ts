import type { Db } from '../db/index.js';
import { BadRequestError } from '../errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT, decodeCursor, encodeCursor } from '../pagination.js';
import { findSearchRowBlock, searchRankedPages, type SearchResultRow as ResultRow } from '../stores/search-store.js';
import { ROWS_PER_BLOCK } from './search-index.js';
import { containsMatch, makeSnippet, parseSearchQuery, wordMatcher, type WordMatcher } from './search-text.js';

/*
 * Searching a space. A search ranks at most SEARCH_CANDIDATE_LIMIT matching sections, taken in index order
 * (the space's pages in tree order, pages rewritten since the space was first indexed last), then groups
 * them per page: a page ranks by its best section, ties broken by depth (pages nearer the top first) and id.
 *
 * The trade-off of the cap: a query whose words are in more sections than the cap is ranked over the first
 * N of them only, so a better match further down the tree can be missed, and `count` then counts the pages
 * among those N. In exchange every query costs at most N scores: a naive query for two words found in 91% of
 * 100,000 pages scored every row, took 260 ms and blocked the server (SQLite runs on the server's thread).
 * Such words hardly tell pages apart anyway; adding a rarer word brings the matches under the cap.
 * Measured with bench/search-bench.ts on 50,000 pages (2-core machine under load): such queries take 20-40 ms
 * capped against 160-460 ms uncapped, on SQLite and PostgreSQL alike; a rare word takes 1-5 ms.
 *
 * A section matches when it holds every word, counting the page title (which every section of the page
 * carries) and its heading: words spread over different sections of a page do not make it match.
 *
 * Pages of results are an offset into that ranked list, in an opaque cursor, rather than a keyset on
 * (score, page id): every page of results has to score the whole capped candidate set anyway (a keyset
 * saves nothing), scores are floats that PostgreSQL computes in single precision (a keyset would need them
 * to round-trip exactly), and both are equally stable: the order is total and deterministic for a given
 * index. When the space is reindexed between two requests the later pages follow the new ranking.
 */

export const SEARCH_CANDIDATE_LIMIT = 5_000;
/** Sections listed per page result, best first: enough to pick from, and a bound on the size of an answer. */
export const MAX_SECTIONS_PER_RESULT = 5;

export interface SearchOptions {
  /** Results per page of results: 1 to 1000, default 50. */
  limit?: number;
  /** The `next.page` of the previous answer. */
  cursor?: string;
  /** The candidate cap; tests and benchmarks change it, callers should not. */
  candidateLimit?: number;
}

export interface SearchResultSection {
  /** The heading's anchor; empty for the text before the first heading. */
  id: string;
  title: string;
  /** The page's path, then `#` and the anchor (just the page's path for the text before the first heading). */
  path: string;
  /** Plain text around the first match, at most about 300 characters. */
  body: string;
}

export interface SearchResultPage {
  /** The page id. */
  id: string;
  title: string;
  path: string;
  sections: SearchResultSection[];
  ancestors: Array<{ title: string }>;
}

export interface SearchAnswer {
  items: SearchResultPage[];
  /** Matching pages, among the ranked candidates. */
  count: number;
  next?: { page: string };
  /** How many sections were ranked, and whether the cap cut the matches (for logs and tests). */
  stats: { candidates: number; capped: boolean };
}

const EMPTY: SearchAnswer = { items: [], count: 0, stats: { candidates: 0, capped: false } };

/**
 * Searches the space's indexed sections for every word of `query` (the last one also as a prefix) and
 * answers one page of the matching pages, best first. A query without a letter or digit finds nothing.
 * Throws BadRequestError for a limit out of range or a cursor it did not make.
 */
export async function searchSpace(db: Db, spaceId: string, query: string, options: SearchOptions = {}): Promise<SearchAnswer> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new BadRequestError(`query.limit must be between 1 and ${MAX_LIMIT}`);
  const candidateLimit = options.candidateLimit ?? SEARCH_CANDIDATE_LIMIT;
  if (!Number.isInteger(candidateLimit) || candidateLimit < 1) throw new RangeError('candidateLimit must be a positive integer');
  const offset = options.cursor === undefined ? 0 : decodeOffset(options.cursor);

  const terms = parseSearchQuery(query);
  if (terms.terms.length === 0) return EMPTY;
  const rowBlock = await findSearchRowBlock(db, spaceId);
  if (rowBlock === undefined) return EMPTY;

  const firstRow = rowBlock * ROWS_PER_BLOCK;
  const rows = await searchRankedPages(db, terms, { spaceId, firstRow, endRow: firstRow + ROWS_PER_BLOCK, candidateLimit }, { offset, limit });

  const first = rows[0];
  const count = Number(first?.total ?? 0);
  const candidateCount = Number(first?.candidate_count ?? 0);
  const matches = wordMatcher(terms);
  const items: SearchResultPage[] = [];
  let pageRows: ResultRow[] = [];
  const flush = (): void => {
    if (pageRows.length > 0) items.push(presentPage(pageRows, matches));
    pageRows = [];
  };
  for (const row of rows) {
    if (row.page_id === null) continue;
    if (pageRows.length > 0 && pageRows[0]!.page_id !== row.page_id) flush();
    pageRows.push(row);
  }
  flush();
  return {
    items,
    count,
    ...(offset + limit < count ? { next: { page: encodeCursor([offset + limit]) } } : {}),
    stats: { candidates: candidateCount, capped: candidateCount >= candidateLimit },
  };
}

/** The offset a search's page cursor holds (organization searches page alike). */
export function decodeOffset(cursor: string): number {
  const [offset] = decodeCursor(cursor, 1);
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) throw new BadRequestError('query.page is not a valid page cursor');
  return offset;
}

/**
 * A page with its sections, best first. A section that matched only through the page title (which every
 * row of the page carries) is listed only when no section matched by its own heading or text.
 */
function presentPage(rows: readonly ResultRow[], matches: WordMatcher): SearchResultPage {
  const first = rows[0]!;
  const pagePath = first.page_path ?? '';
  const own = rows.filter((row) => containsMatch(row.section_title ?? '', matches) || containsMatch(row.body ?? '', matches));
  const chosen = (own.length > 0 ? own : rows.slice(0, 1)).slice(0, MAX_SECTIONS_PER_RESULT);
  const ancestors = JSON.parse(first.ancestors ?? '[]') as string[];
  return {
    id: first.page_id!,
    title: first.page_title ?? '',
    path: pagePath,
    sections: chosen.map((row) => ({
      id: row.section_id ?? '',
      title: row.section_title ?? '',
      path: row.section_id ? `${pagePath}#${row.section_id}` : pagePath,
      body: makeSnippet(row.body ?? '', matches),
    })),
    ancestors: ancestors.map((title) => ({ title })),
  };
}
