import type { components } from '@quire/api-types';
import type { TeamMemberRole } from '../db/schema.js';
import { canAdministerOrganization, canViewOrganization, organizationPermissions, type OrganizationMembership } from './organization-policy.js';

export type TeamPermissions = components['schemas']['Team']['permissions'];
export type TeamMembershipPermissions = components['schemas']['TeamMembership']['permissions'];

export function isTeamMemberRole(value: unknown): value is TeamMemberRole {
  return value === 'owner' || value === 'member';
}

/** Parses a stored team role; anything else means "not in the team". */
export function parseTeamRole(value: string | null | undefined): TeamMemberRole | null {
  return isTeamMemberRole(value) ? value : null;
}

/**
 * What the caller may do with one team, from their organization membership and their role in the team
 * (null when they are not in it). Organization admins manage every team and team owners their own; the
 * team directory is open to whoever may list teams, and a guest sees the teams they belong to.
 */
export function teamPermissions(membership: OrganizationMembership | undefined, teamRole: TeamMemberRole | null): TeamPermissions {
  if (!canViewOrganization(membership)) return { admin: false, view: false };
  const admin = canAdministerOrganization(membership) || teamRole === 'owner';
  const view = admin || organizationPermissions(membership).listTeams || teamRole !== null;
  return { admin, view };
}

/** Whoever sees a team sees its members. */
export function teamMembershipPermissions(permissions: TeamPermissions): TeamMembershipPermissions {
  return { view: permissions.view };
}

export function canListTeams(membership: OrganizationMembership | undefined): boolean {
  return organizationPermissions(membership).listTeams;
}

/** A member's own teams are theirs to see, guests included. */
export function canListTeamsOfMember(membership: OrganizationMembership | undefined, callerId: string, userId: string): boolean {
  return canViewOrganization(membership) && (callerId === userId || canListTeams(membership));
}

/**
 * Whether a team the caller cannot see is, for a delete, already gone (204) rather than unknown (404). Only
 * for callers who see the whole team directory, for whom not seeing a team means it does not exist; to a
 * guest, any team outside their own is unknown, as it is to every other team operation.
 */
export function isUnseenTeamGone(membership: OrganizationMembership | undefined): boolean {
  return canListTeams(membership);
}

export function canCreateTeam(membership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(membership);
}

/**
 * Whether a member can manage every team of the organization whatever their team roles, which is what
 * `teamPermissions` grants an organization admin; the `owner` filter of the team list relies on it.
 */
export function canManageEveryTeam(membership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(membership);
}
