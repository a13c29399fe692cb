import { canViewOrganization, organizationPermissions, type OrganizationMembership } from './organization-policy.js';

/**
 * Support conversations hold what customers wrote: full members of the organization read them, guests (who
 * are outsiders let into some content) do not.
 */
export function canReadConversations(membership: OrganizationMembership | undefined): boolean {
  return canViewOrganization(membership) && membership.role !== null;
}

/** The organization's `ingestConversations` permission, which this same rule computes. */
export function canIngestConversations(membership: OrganizationMembership | undefined): boolean {
  return organizationPermissions(membership).ingestConversations;
}
