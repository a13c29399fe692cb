import type { components } from '@quire/api-types';
import { atLeast, type RoleOrGuest } from './roles.js';
import { canViewOrganization, type OrganizationMembership } from './organization-policy.js';
import { canViewContent } from './visibility-policy.js';

export type CollectionPermissions = components['schemas']['Collection']['permissions'];

/** What the caller may do with a collection, from their role on it (see `contentRole`). */
export function collectionPermissions(role: RoleOrGuest): CollectionPermissions {
  const admin = atLeast(role, 'admin');
  return {
    view: canViewContent(role),
    admin,
    viewInviteLinks: admin,
    create: atLeast(role, 'create'),
  };
}

/**
 * Whether the caller may create (or move, transfer or duplicate) content into a place: the top level of the
 * organization needs its `createContent` permission (role `create`), a collection its `create` permission.
 */
export function canCreateContentIn(membership: OrganizationMembership | undefined, collectionRole: RoleOrGuest | undefined): boolean {
  if (collectionRole !== undefined) return collectionPermissions(collectionRole).create;
  return canViewOrganization(membership) && atLeast(membership.role, 'create');
}
