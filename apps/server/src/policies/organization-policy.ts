import type { components } from '@quire/api-types';
import { atLeast, parseRole, type RoleOrGuest } from './roles.js';

export type OrganizationPermissions = components['schemas']['Organization']['permissions'];

/** What a policy needs to know about the caller's place in an organization. */
export interface OrganizationMembership {
  role: RoleOrGuest;
  disabled: boolean;
  /** Whether the caller owns at least one team of the organization. */
  ownsTeam?: boolean;
}

export function membershipFromRow(row: { role: string | null; disabled: number }, ownsTeam = false): OrganizationMembership {
  return { role: parseRole(row.role), disabled: row.disabled !== 0, ownsTeam };
}

/** Whether the caller can see the organization at all; when not, it answers 404 like a missing one. */
export function canViewOrganization(membership: OrganizationMembership | undefined): membership is OrganizationMembership {
  return membership !== undefined && !membership.disabled;
}

export function canAdministerOrganization(membership: OrganizationMembership | undefined): boolean {
  return canViewOrganization(membership) && atLeast(membership.role, 'admin');
}

/** Guests see the organization but not its member and team directories. */
function isFullMember(membership: OrganizationMembership): boolean {
  return membership.role !== null;
}

/** Who adds OpenAPI specifications to the organization, and changes or deletes them: role `create` or higher. */
export function canManageOpenApiSpecs(membership: OrganizationMembership | undefined): boolean {
  return canViewOrganization(membership) && atLeast(membership.role, 'create');
}

export function organizationPermissions(membership: OrganizationMembership | undefined): OrganizationPermissions {
  const view = canViewOrganization(membership);
  const role = view ? membership!.role : null;
  const admin = view && atLeast(role, 'admin');
  const member = view && isFullMember(membership!);
  return {
    view,
    admin,
    ownTeam: view && membership!.ownsTeam === true,
    createContent: view && atLeast(role, 'create'),
    createOpenAPISpec: canManageOpenApiSpecs(membership),
    ingestConversations: view && atLeast(role, 'edit'),
    viewBilling: admin,
    listMembers: member,
    listTeams: member,
    listIntegrations: member,
    listInstallations: admin,
    installIntegration: admin,
  };
}
