import type { Db } from '../db/index.js';
import { BadRequestError } from '../errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT, decodeCursor, encodeCursor } from '../pagination.js';
import {
  findMatchingSectionTexts,
  findSearchRankState,
  findSectionTexts,
  findSectionTextsOfPages,
  findTermCounts,
  findTopPostings,
  type PostingRow,
  type RankedTermInput,
  type SectionTextRow,
} from '../stores/search-store.js';
import { RANKED_ROW_FORMAT, ROWS_PER_BLOCK } from './search-index.js';
import { idfOf, POSTING_MIN_IMPACT, prefixEnd, queryImpacts, rankTerms, sectionWords } from './search-rank.js';
import { containsMatch, makeSnippet, parseSearchQuery, wordMatcher, type WordMatcher } from './search-text.js';

/*
 * Searching a space. The ranking (search-rank.ts) scores a section by the impact of each word in it and the
 * word's rarity; a page ranks by its best section, ties broken by depth (pages nearer the top first) and id.
 * A section matches when it holds every word, counting the page title (which every section of the page
 * carries) and its heading: words spread over different sections of a page do not make it match.
 *
 * Two ways to the same ranking:
 * - A query whose rarest word is in at most FULL_SCORING_LIMIT sections has every match scored: the FTS5 /
 *   tsvector index finds them, their text gives their impacts.
 * - A query of common words is answered best-first (a two-phase top-k, as MaxScore/WAND do): each word's
 *   postings are read highest impact first (search_postings), the sections met get their exact scores (from
 *   the postings, or from their text when a word's posting was not read), and the reading stops once the
 *   last page wanted scores above what any section not met can reach: the sum over the words of idf times
 *   the impact where each list's reading stopped (a section missing from a list scores at most that for its
 *   word, or below POSTING_MIN_IMPACT when the list was read to its end). The pages answered are then those
 *   of scoring every match, in the same order. Each round reads four times as many postings, up to
 *   MAX_POSTINGS_READ per word; if that proves nothing (thousands of sections tied, or a page of results far
 *   down the list) the search scores its matches as above, at most SEARCH_CANDIDATE_LIMIT of them in index
 *   order (the space's pages in tree order, pages rewritten since the space was first indexed last), which
 *   can then miss a better match further down: the one case left of the old cap's trade-off.
 *   Measured with bench/search-bench.ts on 50,000 pages: see the README's Performance section.
 *
 * `count` is exact when every match was scored, and for a one-word query; for several common words it is
 * the number of pages holding the rarest of them (an upper bound, from search_terms), since counting the
 * pages that hold all of them would mean reading every match.
 *
 * Pages of results are an offset into that ranked list, in an opaque cursor, rather than a keyset on
 * (score, page id): a page of results far down needs every page above it ranked anyway (a keyset saves
 * nothing), and both are equally stable: the order is total and deterministic for a given index. When the
 * space is reindexed between two requests the later pages follow the new ranking. A space whose rows predate
 * the ranking index (until the reindex migration 0400 queued has run) is searched by scoring its matches,
 * every word weighing the same.
 */

export const SEARCH_CANDIDATE_LIMIT = 5_000;
/** A query whose rarest word is in at most this many sections has every match scored (see above). */
export const FULL_SCORING_LIMIT = 1_000;
/** Postings read per word in the first round of a best-first search; each further round reads four times as many. */
const FIRST_POSTINGS_READ = 128;
/** Postings read per word at most before a best-first search gives up for the scoring of its matches. */
export const MAX_POSTINGS_READ = 8_192;
/** Sections listed per page result, best first: enough to pick from, and a bound on the size of an answer. */
export const MAX_SECTIONS_PER_RESULT = 5;

export interface SearchOptions {
  /** Results per page of results: 1 to 1000, default 50. */
  limit?: number;
  /** The `next.page` of the previous answer. */
  cursor?: string;
  /** The cap on the matches scored when they are scored one by one; tests and benchmarks change it, callers should not. */
  candidateLimit?: number;
  /** Scores every match, whatever their number (the reference tests and benchmarks compare the best-first answer with). */
  exhaustive?: boolean;
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
  /** Matching pages (see above for when it is an upper bound). */
  count: number;
  next?: { page: string };
  /**
   * How the answer was ranked (for logs, tests and benchmarks): `scored` (every match, or the first
   * `candidateLimit`: `capped`) or `best-first`; and how many sections were scored.
   */
  stats: { candidates: number; capped: boolean; method: 'scored' | 'best-first' };
}

const EMPTY: SearchAnswer = { items: [], count: 0, stats: { candidates: 0, capped: false, method: 'scored' } };

/** A ranked page: its best section's score, and what breaks ties. */
interface RankedPage {
  pageId: string;
  score: number;
  depth: number;
}

function comparePages(a: RankedPage, b: RankedPage): number {
  return b.score - a.score || a.depth - b.depth || (a.pageId < b.pageId ? -1 : a.pageId > b.pageId ? 1 : 0);
}

function scoreOf(impacts: readonly number[], idfs: readonly number[]): number {
  let score = 0;
  for (let i = 0; i < impacts.length; i++) score += idfs[i]! * impacts[i]!;
  return score;
}

/** Keeps each page's best section. */
function addToPages(pages: Map<string, RankedPage>, pageId: string, depth: number, score: number): void {
  const known = pages.get(pageId);
  if (!known || score > known.score) pages.set(pageId, { pageId, score, depth });
}

interface Ranking {
  terms: RankedTermInput[];
  idfs: number[];
}

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

  const parsed = parseSearchQuery(query);
  if (parsed.terms.length === 0) return EMPTY;
  const state = await findSearchRankState(db, spaceId);
  if (state === undefined) return EMPTY;

  const terms = rankTerms(parsed.terms, parsed.prefix).map((term) => ({ ...term, end: prefixEnd(term.term) }));
  const hasRanking = state.row_format === RANKED_ROW_FORMAT;
  const counts = hasRanking ? await findTermCounts(db, spaceId, terms) : undefined;
  const ranking: Ranking = { terms, idfs: terms.map((_, i) => idfOf(counts ? counts[i]!.sections : 1, state.section_count)) };
  const matches = wordMatcher(parsed);

  if (counts && !options.exhaustive && Math.min(...counts.map((c) => c.sections)) > FULL_SCORING_LIMIT) {
    const best = await rankBestFirst(db, spaceId, ranking, offset + limit);
    if (best) {
      const window = best.pages.slice(offset, offset + limit);
      const rows = await findSectionTextsOfPages(db, spaceId, window.map((page) => page.pageId));
      const count = Math.max(best.pages.length, Math.min(state.page_count, ...counts.map((c) => c.pages)));
      return {
        items: presentPages(window, scoreRows(rows, ranking), matches),
        count,
        ...(offset + limit < count ? { next: { page: encodeCursor([offset + limit]) } } : {}),
        stats: { candidates: best.scored, capped: false, method: 'best-first' },
      };
    }
  }

  const firstRow = state.row_block * ROWS_PER_BLOCK;
  const cap = options.exhaustive ? Number.MAX_SAFE_INTEGER : candidateLimit;
  const found = await findMatchingSectionTexts(db, parsed, { spaceId, firstRow, endRow: firstRow + ROWS_PER_BLOCK, candidateLimit: cap });
  const scored = scoreRows(found, ranking);
  const pages = new Map<string, RankedPage>();
  for (const { row, score } of scored) addToPages(pages, row.page_id, row.depth, score);
  const ranked = [...pages.values()].sort(comparePages);
  const count = ranked.length;
  return {
    items: presentPages(ranked.slice(offset, offset + limit), scored, matches),
    count,
    ...(offset + limit < count ? { next: { page: encodeCursor([offset + limit]) } } : {}),
    stats: { candidates: found.length, capped: found.length >= cap, method: 'scored' },
  };
}

/** The rows that hold every word, with their scores. */
function scoreRows(rows: readonly SectionTextRow[], { terms, idfs }: Ranking): Array<{ row: SectionTextRow; score: number }> {
  const scored: Array<{ row: SectionTextRow; score: number }> = [];
  for (const row of rows) {
    const impacts = queryImpacts(sectionWords(row.page_title, row.section_title, row.body), terms);
    if (impacts) scored.push({ row, score: scoreOf(impacts, idfs) });
  }
  return scored;
}

/**
 * The best `want` pages, read best-first (see above), with how many postings were read; undefined when
 * MAX_POSTINGS_READ postings per word do not prove them.
 */
async function rankBestFirst(db: Db, spaceId: string, { terms, idfs }: Ranking, want: number): Promise<{ pages: RankedPage[]; scored: number } | undefined> {
  for (let depth = FIRST_POSTINGS_READ; depth <= MAX_POSTINGS_READ; depth *= 4) {
    const lists: PostingRow[][] = [];
    for (const term of terms) lists.push(await findTopPostings(db, spaceId, term, depth));
    if (terms.length === 1) {
      // One word: its postings come in the order pages rank (impact, then depth and id), and a page's first
      // posting is its best section. The first `want` pages met are the answer, provided they are met before
      // the list ends (the sections it does not list have lower impacts, but come in no order).
      const pages = firstPages(lists[0]!, idfs[0]!, want);
      if (pages.length === want) return { pages, scored: lists[0]!.length };
      if (lists[0]!.length < depth) return undefined;
      continue;
    }
    // Each section met, with the impact of each word whose posting was read (a list is best first, so a
    // section's first posting in a prefix's list is its best), and where it is.
    const met = new Map<number, { impacts: Array<number | undefined>; pageId: string; depth: number }>();
    let bound = 0;
    // Where the readings stopped, in the order ties are broken: a section not met that scores exactly `bound`
    // has each word's impact where its list stopped, so it comes after every list's last posting, hence
    // after the latest of them.
    let latest: RankedPage | undefined;
    let exhausted = false;
    lists.forEach((list, i) => {
      for (const posting of list) {
        let entry = met.get(posting.row_id);
        if (!entry) met.set(posting.row_id, (entry = { impacts: new Array<number | undefined>(terms.length).fill(undefined), pageId: posting.page_id, depth: posting.depth }));
        entry.impacts[i] ??= posting.impact;
      }
      const last = list[list.length - 1];
      if (list.length < depth || !last) {
        exhausted = true;
        bound += idfs[i]! * POSTING_MIN_IMPACT;
      } else {
        bound += idfs[i]! * last.impact;
        const key = { pageId: last.page_id, depth: last.depth, score: 0 };
        if (!latest || comparePages(latest, key) < 0) latest = key;
      }
    });
    const pages = new Map<string, RankedPage>();
    const partial: number[] = [];
    for (const [rowId, entry] of met) {
      if (entry.impacts.includes(undefined)) partial.push(rowId);
      else addToPages(pages, entry.pageId, entry.depth, scoreOf(entry.impacts as number[], idfs));
    }
    // Sections missing a word's posting get their impacts from their text; those lacking a word do not match.
    for (const row of await findSectionTexts(db, spaceId, partial)) {
      const impacts = queryImpacts(sectionWords(row.page_title, row.section_title, row.body), terms);
      if (impacts) addToPages(pages, row.page_id, row.depth, scoreOf(impacts, idfs));
    }
    const ranked = [...pages.values()].sort(comparePages);
    const last = ranked[want - 1];
    if (last && (last.score > bound || (last.score === bound && !exhausted && latest && comparePages({ ...last, score: 0 }, latest) < 0))) {
      return { pages: ranked.slice(0, want), scored: met.size };
    }
  }
  return undefined;
}

/** The first `want` pages of a one-word list, in its order. */
function firstPages(list: readonly PostingRow[], idf: number, want: number): RankedPage[] {
  const pages: RankedPage[] = [];
  const seen = new Set<string>();
  for (const posting of list) {
    if (seen.has(posting.page_id)) continue;
    seen.add(posting.page_id);
    pages.push({ pageId: posting.page_id, score: idf * posting.impact, depth: posting.depth });
    if (pages.length === want) break;
  }
  return pages;
}

/** The pages of the window with their matching sections, best first. */
function presentPages(window: readonly RankedPage[], scored: ReadonlyArray<{ row: SectionTextRow; score: number }>, matches: WordMatcher): SearchResultPage[] {
  const byPage = new Map<string, Array<{ row: SectionTextRow; score: number }>>(window.map((page) => [page.pageId, []]));
  for (const entry of scored) byPage.get(entry.row.page_id)?.push(entry);
  // A page reindexed away between the ranking and the reading of its sections (separate statements) is left out.
  return window.filter((page) => byPage.get(page.pageId)!.length > 0).map((page) => {
    const rows = byPage.get(page.pageId)!.sort((a, b) => b.score - a.score || a.row.section_position - b.row.section_position);
    return presentPage(rows.map((entry) => entry.row), matches);
  });
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
function presentPage(rows: readonly SectionTextRow[], matches: WordMatcher): SearchResultPage {
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
