import { canAdministerOrganization, canViewOrganization, organizationPermissions, type OrganizationMembership } from './organization-policy.js';
import type { RoleOrGuest } from './roles.js';

/** Who is looking: what they may see of others depends on their own membership. */
export interface MemberViewer {
  userId: string;
  membership: OrganizationMembership;
}

/**
 * Who may see and change the members of an organization. The member directory follows the organization's
 * `listMembers` permission (every member with a role; guests only see themselves), so what the
 * Organization object announces is what these operations allow.
 */

export function canListMembers(membership: OrganizationMembership | undefined): boolean {
  return organizationPermissions(membership).listMembers;
}

/** Everyone who can see the organization may read their own membership, guests included. */
export function canViewMember(membership: OrganizationMembership | undefined, callerId: string, userId: string): boolean {
  return canViewOrganization(membership) && (callerId === userId || canListMembers(membership));
}

/** Changing roles, SSO status and removing members is for organization admins. */
export function canManageMembers(membership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(membership);
}

/** E-mail addresses are shown only to the user themselves and to organization admins (see the User schema). */
export function canSeeMemberEmail(membership: OrganizationMembership | undefined, callerId: string, userId: string): boolean {
  return callerId === userId || canAdministerOrganization(membership);
}

/**
 * Whether a member `search` may match e-mail addresses. Only for callers who may see them: otherwise a
 * search would tell a reader which addresses belong to the organization, one guess at a time.
 */
export function canSearchMemberEmails(membership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(membership);
}

/**
 * Whether changing a member from `currentRole` to `nextRole` (undefined: removing them) would leave the
 * organization without an active admin, given how many other active admins it has.
 */
export function wouldRemoveLastAdmin(currentRole: RoleOrGuest, nextRole: RoleOrGuest | undefined, otherActiveAdmins: number): boolean {
  return currentRole === 'admin' && nextRole !== 'admin' && otherActiveAdmins === 0;
}
