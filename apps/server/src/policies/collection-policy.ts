import type { components } from '@quire/api-types';
import { atLeast, effectiveRole, isRole, type DefaultLevel, type RoleOrGuest } from './roles.js';
import { canViewOrganization, type OrganizationMembership } from './organization-policy.js';

export type CollectionPermissions = components['schemas']['Collection']['permissions'];

/** Parses a stored default level; anything unknown grants nothing rather than being trusted. */
export function parseDefaultLevel(value: string | null): DefaultLevel {
  if (value === 'inherit') return 'inherit';
  return isRole(value) ? value : null;
}

/**
 * The caller's role on a piece of content (a collection or a space) from their membership and the default
 * levels of the content and of the collections around it, nearest first. Someone who cannot see the
 * organization has no role on anything in it. No operation of the contract grants roles on content to a
 * person or a team directly, so the default levels and the organization role are the whole story.
 */
export function contentRole(membership: OrganizationMembership | undefined, defaultLevels: readonly DefaultLevel[]): RoleOrGuest {
  if (!canViewOrganization(membership)) return null;
  return effectiveRole({ organizationRole: membership.role, defaultLevels });
}

/** Seeing content is having any role on it; content the caller cannot see answers 404. */
export function canViewContent(role: RoleOrGuest): boolean {
  return role !== null;
}

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

/** A collection and the default levels of its ancestors, for deciding what a list shows. */
export interface CollectionLevel {
  id: string;
  parentId: string | null;
  defaultLevel: DefaultLevel;
}

/**
 * Which content of an organization a caller sees, in a form a store turns into a query: administrators see
 * everything, people outside the organization and guests nothing (nothing can be granted to them), and
 * members whatever their default levels do not close. For members a level chain resolves to null only
 * through an explicit null level, so the filter names the collections whose chain resolves to null; a
 * space is visible when its own level is a role, or when it inherits and is not in one of those.
 */
export type ContentVisibilityFilter =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'members'; hiddenCollections: string[] };

export function contentVisibilityFilter(membership: OrganizationMembership | undefined, collections: readonly CollectionLevel[]): ContentVisibilityFilter {
  if (!canViewOrganization(membership) || membership.role === null) return { kind: 'none' };
  if (atLeast(membership.role, 'admin')) return { kind: 'all' };
  const byId = new Map(collections.map((collection) => [collection.id, collection]));
  const hiddenCollections = collections
    .filter((collection) => contentRole(membership, collectionChain(byId, collection.id)) === null)
    .map((collection) => collection.id);
  return { kind: 'members', hiddenCollections };
}

/** The default levels from a collection outwards (the collection first). */
export function collectionChain(byId: ReadonlyMap<string, CollectionLevel>, collectionId: string | null): DefaultLevel[] {
  const chain: DefaultLevel[] = [];
  const seen = new Set<string>();
  let current = collectionId === null ? undefined : byId.get(collectionId);
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    chain.push(current.defaultLevel);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return chain;
}

/** Whether a space with this level in this collection passes the filter; the stores' queries implement the same rule. */
export function passesVisibilityFilter(filter: ContentVisibilityFilter, space: { defaultLevel: DefaultLevel; collectionId: string | null }): boolean {
  if (filter.kind !== 'members') return filter.kind === 'all';
  if (space.defaultLevel === null) return false;
  if (space.defaultLevel !== 'inherit') return true;
  return space.collectionId === null || !filter.hiddenCollections.includes(space.collectionId);
}
