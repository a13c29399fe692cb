import { searchSpace, type SearchAnswer } from '../search/index.js';
import type { Principal } from './caller.js';
import type { ServiceContext } from './context.js';
import { requireSpace, type SpaceAccess } from './space-service.js';

/** Search of a space's main content, in the index kept by the `search.reindex` job (see search-reindex.ts). */
export interface SpaceSearch {
  access: SpaceAccess;
  answer: SearchAnswer;
}

export async function searchSpaceContent(
  context: ServiceContext,
  caller: Principal,
  spaceId: string,
  query: { query: string; page?: string; limit?: number },
): Promise<SpaceSearch> {
  const access = await requireSpace(context, caller, spaceId);
  const answer = await searchSpace(context.db, spaceId, query.query, {
    ...(query.limit !== undefined ? { limit: query.limit } : {}),
    ...(query.page !== undefined ? { cursor: query.page } : {}),
  });
  return { access, answer };
}
