import { canViewOrganization, type OrganizationMembership } from './organization-policy.js';
import { atLeast } from './roles.js';

/** Every member of the organization, guests included, reads its glossary. */
export function canReadGlossary(membership: OrganizationMembership | undefined): boolean {
  return canViewOrganization(membership);
}

/** The glossary is content: those who may edit content change it. */
export function canEditGlossary(membership: OrganizationMembership | undefined): boolean {
  return canViewOrganization(membership) && atLeast(membership.role, 'edit');
}
