import type { components } from '@quire/api-types';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { canAdministerOrganization, canViewOrganization, membershipFromRow } from '../policies/organization-policy.js';
import {
  findOrganizationForMember,
  updateOrganizationRow,
  listOrganizationsOfUser,
  MEMBER_ORGANIZATION_ORDER_KEY_LENGTH,
  type OrganizationWithMembership,
} from '../stores/organization-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { Caller } from './caller.js';
import { checkMergeRuleUsers } from './change-request-rules.js';
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

type OrganizationMergeRules = components['schemas']['Organization']['mergeRules'];

/**
 * The title and merge rules of the organization, for its administrators. Merge rules are read at every
 * merge and every answer about a change request, so new ones apply at once to open requests.
 */
export async function updateOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  body: { title?: string; mergeRules?: OrganizationMergeRules },
): Promise<OrganizationWithMembership> {
  return context.db.transaction().execute(async (trx) => {
    const found = await getOrganizationById({ ...context, db: trx }, caller, organizationId);
    if (!canAdministerOrganization(membershipFromRow(found.membership))) throw new ForbiddenError('You need the admin permission of this organization');
    if (body.mergeRules) await checkMergeRuleUsers(trx, organizationId, body.mergeRules);
    const patch = {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.mergeRules !== undefined ? { merge_rules: JSON.stringify(body.mergeRules) } : {}),
    };
    if (Object.keys(patch).length > 0) await updateOrganizationRow(trx, organizationId, patch);
    return { ...found, organization: { ...found.organization, ...patch } };
  });
}
