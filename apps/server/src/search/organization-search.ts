import type { Db } from '../db/index.js';
import { BadRequestError } from '../errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT, encodeCursor } from '../pagination.js';
import { searchRankedSpaces, type OrganizationCandidateScope } from '../stores/search-store.js';
import { decodeOffset, SEARCH_CANDIDATE_LIMIT, searchSpace, type SearchResultPage } from './search-query.js';
import { parseSearchQuery } from './search-text.js';

/*
 * Searching every space of an organization that a viewer sees. One ranked query over their sections picks
 * the matching spaces (a space ranks by its best section, with the same candidate cap as a space's search:
 * see search-query.ts), then each space of the answer is searched on its own for its best pages, so that its
 * pages and sections are exactly what `searchSpaceContent` answers first for it. That second step costs one
 * space search per space answered, so one answer holds at most SPACES_PER_ANSWER spaces whatever `limit`
 * asks: at 20-40 ms for the commonest words (search-query.ts), a full page of 1,000 spaces would hold the
 * server for tens of seconds. Pages of results are an offset into the ranked spaces, as in a space's search.
 */

export const SPACES_PER_ANSWER = 20;
export const PAGES_PER_SPACE = 10;

export interface OrganizationSearchSpace {
  id: string;
  title: string;
  pages: SearchResultPage[];
}

export interface OrganizationSearchAnswer {
  items: OrganizationSearchSpace[];
  /** Matching spaces, among the ranked candidates. */
  count: number;
  next?: { page: string };
}

export interface OrganizationSearchOptions {
  limit?: number;
  cursor?: string;
  candidateLimit?: number;
}

/** Throws BadRequestError for a limit out of range or a cursor it did not make. */
export async function searchOrganization(
  db: Db,
  organizationId: string,
  viewer: OrganizationCandidateScope['viewer'],
  query: string,
  options: OrganizationSearchOptions = {},
): Promise<OrganizationSearchAnswer> {
  const asked = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(asked) || asked < 1 || asked > MAX_LIMIT) throw new BadRequestError(`query.limit must be between 1 and ${MAX_LIMIT}`);
  const limit = Math.min(asked, SPACES_PER_ANSWER);
  const offset = options.cursor === undefined ? 0 : decodeOffset(options.cursor);
  const terms = parseSearchQuery(query);
  if (terms.terms.length === 0) return { items: [], count: 0 };
  const candidateLimit = options.candidateLimit ?? SEARCH_CANDIDATE_LIMIT;
  const rows = await searchRankedSpaces(db, terms, { organizationId, viewer, candidateLimit }, { offset, limit });
  const count = Number(rows[0]?.total ?? 0);
  const items: OrganizationSearchSpace[] = [];
  for (const row of rows) {
    if (row.space_id === null) continue;
    const answer = await searchSpace(db, row.space_id, query, { limit: PAGES_PER_SPACE });
    // A space reindexed between the two queries may no longer match: it is left out rather than shown empty.
    if (answer.items.length > 0) items.push({ id: row.space_id, title: row.space_title ?? '', pages: answer.items });
  }
  return { items, count, ...(offset + limit < count ? { next: { page: encodeCursor([offset + limit]) } } : {}) };
}
