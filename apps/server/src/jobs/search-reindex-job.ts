import { reindexSpaceSearch, SEARCH_REINDEX_JOB, type SearchReindexPayload } from '../services/search-reindex.js';
import type { JobHandler } from './runner.js';

export { SEARCH_REINDEX_JOB };

function spaceIdOf(payload: unknown): string {
  const spaceId = (payload as Partial<SearchReindexPayload> | null)?.spaceId;
  if (typeof spaceId !== 'string' || spaceId === '') throw new Error('search.reindex payload must be {"spaceId": string}');
  return spaceId;
}

/**
 * Brings the search index of a space up to its current main revision. Idempotent: it indexes whatever
 * main is when it runs and does nothing when the index is already there.
 */
export function searchReindexJob(): JobHandler {
  return async (payload, { services }) => {
    await reindexSpaceSearch(services, spaceIdOf(payload));
  };
}
