import { canAdministerOrganization, canViewOrganization, type OrganizationMembership } from './organization-policy.js';

export type IntegrationVisibility = 'public' | 'private' | 'unlisted';

/**
 * Who sees an integration: anyone for a `public` or `unlisted` one (an `unlisted` one is only left out of
 * lists), only the members of its owner organization for a `private` one. `ownerMembership` is the caller's
 * membership in the owner organization, if any.
 */
export function canSeeIntegration(visibility: string, ownerMembership: OrganizationMembership | undefined): boolean {
  return visibility !== 'private' || canViewOrganization(ownerMembership);
}

/** Whether the integration shows in lists: `unlisted` ones only to their owner's members. */
export function isListedFor(visibility: string, ownerMembership: OrganizationMembership | undefined): boolean {
  return visibility === 'public' || canViewOrganization(ownerMembership);
}

/** The admins of the owner organization publish new versions and unpublish (the `admin` permission). */
export function canAdministerIntegration(ownerMembership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(ownerMembership);
}

export function integrationPermissions(ownerMembership: OrganizationMembership | undefined): { admin: boolean } {
  return { admin: canAdministerIntegration(ownerMembership) };
}
