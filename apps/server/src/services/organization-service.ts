import { NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { canViewOrganization, membershipFromRow } from '../policies/organization-policy.js';
import {
  findOrganizationForMember,
  listOrganizationsOfUser,
  MEMBER_ORGANIZATION_ORDER_KEY_LENGTH,
  type OrganizationWithMembership,
} from '../stores/organization-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';

/**
 * Loads an organization the caller can see. An organization they do not belong to, or whose membership is
 * disabled, is reported exactly like one that does not exist.
 */
export async function getOrganizationById(context: ServiceContext, caller: Caller, organizationId: string): Promise<OrganizationWithMembership> {
  const found = await findOrganizationForMember(context.db, organizationId, caller.user.id);
  if (!found || !canViewOrganization(membershipFromRow(found.membership))) {
    throw new NotFoundError('No organization matches this id');
  }
  return found;
}

export async function listOrganizationsForAuthenticatedUser(
  context: ServiceContext,
  caller: Caller,
  query: { page?: string; limit?: number },
): Promise<KeysetPage<OrganizationWithMembership>> {
  const { after, limit } = pageRequest(query, MEMBER_ORGANIZATION_ORDER_KEY_LENGTH);
  // A session started through an organization's SSO lists that organization only (services/session-scope.ts).
  return listOrganizationsOfUser(context.db, caller.user.id, after, limit, caller.organizationId);
}
