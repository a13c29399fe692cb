import { canAdministerOrganization, type OrganizationMembership } from './organization-policy.js';
import { rank, type RoleOrGuest } from './roles.js';

/*
 * Who invites people to an organization, and what an invitation offers. Invitations give any role up to
 * admin, so making, reading, changing and revoking them is for the organization's admins; invite links also
 * need the organization's `inviteLinks` setting, which turns every link off at once.
 */

export function canManageInvites(membership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(membership);
}

/** Whether links may be made and used: the organization's `inviteLinks` setting. */
export function inviteLinksAllowed(organization: { invite_links: number }): boolean {
  return organization.invite_links !== 0;
}

/** The public API's `redundant`: the caller already holds at least the role the invitation gives. */
export function isInviteRedundant(callerRole: RoleOrGuest, inviteRole: RoleOrGuest): boolean {
  return rank(callerRole) >= rank(inviteRole);
}

