import { searchOrganization, searchSpace, type OrganizationSearchAnswer, type SearchAnswer } from '../search/index.js';
import { membershipFromRow } from '../policies/organization-policy.js';
import type { Caller, Principal } from './caller.js';
import type { ServiceContext } from './context.js';
import { getOrganizationById } from './organization-service.js';
import { requireSpace, type SpaceAccess } from './space-access.js';

/** Search of a space's main content, in the index kept by the `search.reindex` job (see search-reindex.ts). */
export interface SpaceSearch {
  access: SpaceAccess;
  answer: SearchAnswer;
}

type SearchQuery = { query: string; page?: string; limit?: number };

const searchOptions = (query: SearchQuery) => ({
  ...(query.limit !== undefined ? { limit: query.limit } : {}),
  ...(query.page !== undefined ? { cursor: query.page } : {}),
});

export async function searchSpaceContent(context: ServiceContext, caller: Principal, spaceId: string, query: SearchQuery): Promise<SpaceSearch> {
  const access = await requireSpace(context, caller, spaceId);
  return { access, answer: await searchSpace(context.db, spaceId, query.query, searchOptions(query)) };
}

/**
 * Search of the main content of every space of the organization the caller sees (the rule of
 * stores/visibility.ts, applied in the search's own query, so that a space they cannot see is never read).
 * An organization they do not belong to is a 404 like a missing one.
 */
export async function searchOrganizationContent(context: ServiceContext, caller: Caller, organizationId: string, query: SearchQuery): Promise<{ organizationId: string; answer: OrganizationSearchAnswer }> {
  const found = await getOrganizationById(context, caller, organizationId);
  const viewer = { userId: caller.user.id, membership: membershipFromRow(found.membership) };
  return { organizationId: found.organization.id, answer: await searchOrganization(context.db, found.organization.id, viewer, query.query, searchOptions(query)) };
}
