import type { components } from '@quire/api-types';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { canAdministerOrganization, canViewOrganization, membershipFromRow } from '../policies/organization-policy.js';
import {
  findOrganizationForMember,
  updateOrganizationRow,
  listOrganizationsOfUser,
  listOrganizationsOfUserDeclaringDomain,
  MEMBER_ORGANIZATION_ORDER_KEY_LENGTH,
  type OrganizationWithMembership,
} from '../stores/organization-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { UserRow } from '../stores/user-store.js';
import type { Caller } from './caller.js';
import { checkMergeRuleUsers } from './change-request-rules.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/**
 * The caller themself (the contract puts `getAuthenticatedUser` with the organizations: the caller and the
 * organizations they belong to). Authentication has read the token and its owner on this request
 * (services/auth-service.ts), so nothing is left to load, and any valid token may read its own user.
 */
export function getAuthenticatedUser(caller: Caller): UserRow {
  return caller.user;
}

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

/**
 * The caller's organizations that declare the e-mail domain. The public API answers every organization of
 * the domain, for suggesting one to join; answering beyond the caller's own would tell anyone which
 * organizations exist and which domains they declare, so a self-hosted install answers only those the caller
 * belongs to (a visible one only: guests see their organization as members do, as in the list of their
 * organizations).
 */
export async function getOrganizationsForEmailDomain(context: ServiceContext, caller: Caller, emailDomain: string): Promise<OrganizationWithMembership[]> {
  const found = await listOrganizationsOfUserDeclaringDomain(context.db, caller.user.id, emailDomain.toLowerCase(), caller.organizationId);
  // The LIKE finds the domain as a JSON string anywhere in the list; this keeps exact entries only.
  return found.filter((row) => canViewOrganization(membershipFromRow(row.membership)) && emailDomainsOf(row.organization).includes(emailDomain.toLowerCase()));
}

/** The organization's declared e-mail domains (stored lower case, as updateOrganizationById writes them). */
export function emailDomainsOf(organization: { email_domains: string }): string[] {
  const parsed: unknown = JSON.parse(organization.email_domains);
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string').map((item) => item.toLowerCase()) : [];
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
  body: { title?: string; emailDomains?: string[]; inviteLinks?: boolean; mergeRules?: OrganizationMergeRules },
): Promise<OrganizationWithMembership> {
  return inTransaction(context, async (tx) => {
    const found = await getOrganizationById(tx, caller, organizationId);
    if (!canAdministerOrganization(membershipFromRow(found.membership))) throw new ForbiddenError('You need the admin permission of this organization');
    if (body.mergeRules) await checkMergeRuleUsers(tx.db, organizationId, body.mergeRules);
    const patch = {
      ...(body.title !== undefined ? { title: body.title } : {}),
      // Domains compare without regard to case: kept in lower case, each once, in the order first given.
      ...(body.emailDomains !== undefined ? { email_domains: JSON.stringify([...new Set(body.emailDomains.map((domain) => domain.toLowerCase()))]) } : {}),
      ...(body.inviteLinks !== undefined ? { invite_links: body.inviteLinks ? 1 : 0 } : {}),
      ...(body.mergeRules !== undefined ? { merge_rules: JSON.stringify(body.mergeRules) } : {}),
    };
    if (Object.keys(patch).length > 0) await updateOrganizationRow(tx.db, organizationId, patch);
    return { ...found, organization: { ...found.organization, ...patch } };
  });
}
