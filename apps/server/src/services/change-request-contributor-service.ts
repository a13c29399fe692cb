import { pageRequest } from '../pagination.js';
import type { OrganizationMembership } from '../policies/organization-policy.js';
import { CONTRIBUTION_ORDER_KEY_LENGTH, listChangeRequestContributions, type ContributionRecord } from '../stores/change-request-contributor-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { Caller } from './caller.js';
import { requireChangeRequest } from './change-request-service.js';
import type { ServiceContext } from './context.js';

/** Who took part in a change request, by person and kind of contribution (stores/change-request-contributor-store.ts). */

export interface ContributorViewer {
  userId: string;
  membership: OrganizationMembership | undefined;
}

export async function getContributorsByChangeRequestId(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  query: { page?: string; limit?: number },
): Promise<{ viewer: ContributorViewer; page: KeysetPage<ContributionRecord> }> {
  const { after, limit } = pageRequest(query, CONTRIBUTION_ORDER_KEY_LENGTH);
  const { access, changeRequest } = await requireChangeRequest(context, caller, spaceId, changeRequestId);
  const page = await listChangeRequestContributions(context.db, changeRequest, after, limit);
  return { viewer: { userId: caller.user.id, membership: access.membership }, page };
}
