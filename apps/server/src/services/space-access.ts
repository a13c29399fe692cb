import { ForbiddenError, NotFoundError } from '../errors.js';
import { canViewOrganization, membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import { parseDefaultLevel, type DefaultLevel, type Role, type RoleOrGuest } from '../policies/roles.js';
import { refusalReason, spacePermissions, spaceStateOf, type SpacePermission, type SpaceState } from '../policies/space-policy.js';
import { canViewContent, contentRole, grantsApply } from '../policies/visibility-policy.js';
import { VISITOR_ROLE, visitorSeesSiteSpace } from '../policies/visitor-policy.js';
import { findCollectionAncestry } from '../stores/collection-store.js';
import { permittedRolesOnCollections, permittedRolesOnSpace } from '../stores/content-permission-store.js';
import { siteSpaceOfSpace } from '../stores/site-space-store.js';
import { findSpaceById, findSpaceWithCollectionsForMember, type SpaceRow } from '../stores/space-store.js';
import { isVisitor, type Caller, type Principal, type VisitorCaller } from './caller.js';
import type { SpaceWithRole } from './collection-service.js';
import type { ServiceContext } from './context.js';
import { isPastRetention } from './space-lifecycle.js';

/*
 * One space as the caller reaches it: loaded with the caller's role on it (from the organization, the
 * default levels of its collections and the grants), or refused as missing; and the permission checks every
 * family acting on a space makes with it.
 */

/** A space the caller can see, with everything that decides what they may do with it. */
export interface SpaceAccess extends SpaceWithRole {
  membership: OrganizationMembership | undefined;
  /** Default levels of the space's collection and its ancestors, nearest first; empty at the top level. */
  collectionChain: DefaultLevel[];
  /** Ids of the space's collection and its ancestors, in the same order: whose grants apply to the space. */
  collectionIds: string[];
  /** Roles granted to the caller or their teams on the space's collection and its ancestors. */
  collectionGrants: Role[];
  state: SpaceState;
}

export interface RequireSpaceOptions {
  /** Also answer a space deleted within its retention (for reading it and restoring it). */
  includeDeleted?: boolean;
}

export function spaceNotFound(): NotFoundError {
  return new NotFoundError('No space matches this id');
}

/** The caller's role on a space, which hangs from collections with these default levels (nearest first). */
export function roleOnSpace(membership: OrganizationMembership | undefined, space: SpaceRow, collectionChain: readonly DefaultLevel[], grants: readonly Role[]): RoleOrGuest {
  return contentRole({ membership, defaultLevels: [parseDefaultLevel(space.default_level), ...collectionChain], grants });
}

/** The collections a space hangs from, nearest first: their default levels and their ids. */
export async function collectionsAbove(context: ServiceContext, space: SpaceRow): Promise<{ collectionChain: DefaultLevel[]; collectionIds: string[] }> {
  if (space.collection_id === null) return { collectionChain: [], collectionIds: [] };
  return chainOf(space, await findCollectionAncestry(context.db, space.collection_id));
}

/** The default levels and ids of the collections above a space, nearest first, from their rows. */
function chainOf(space: SpaceRow, ancestry: ReadonlyArray<{ id: string; organization_id: string; default_level: string | null }>): { collectionChain: DefaultLevel[]; collectionIds: string[] } {
  // A deleted space may name a collection deleted since; it then hangs from the organization alone.
  if (space.collection_id === null || ancestry[0]?.organization_id !== space.organization_id) return { collectionChain: [], collectionIds: [] };
  return { collectionChain: ancestry.map((row) => parseDefaultLevel(row.default_level)), collectionIds: ancestry.map((row) => row.id) };
}

/** `absent`: there is no such space (never was, purged, or past its retention); `hidden`: the caller cannot see it. */
export async function loadSpaceAccess(context: ServiceContext, userId: string, spaceId: string): Promise<SpaceAccess | 'absent' | 'hidden'> {
  // The space, the membership and the collections above it in one statement (one round trip on PostgreSQL).
  const found = await findSpaceWithCollectionsForMember(context.db, spaceId, userId);
  if (!found) return 'absent';
  const membership = found.membership ? membershipFromRow(found.membership) : undefined;
  if (!canViewOrganization(membership)) return 'hidden';
  const { space } = found;
  if (space.deleted_at !== null && isPastRetention(space.deleted_at)) return 'absent';
  const { collectionChain, collectionIds } = chainOf(space, found.collections);
  const withGrants = grantsApply(membership);
  const collectionGrants = withGrants ? await permittedRolesOnCollections(context.db, userId, collectionIds) : [];
  const spaceGrants = withGrants ? await permittedRolesOnSpace(context.db, userId, space.id) : [];
  const role = roleOnSpace(membership, space, collectionChain, [...spaceGrants, ...collectionGrants]);
  if (!canViewContent(role)) return 'hidden';
  return { space, role, membership, collectionChain, collectionIds, collectionGrants, state: spaceStateOf(space) };
}

/**
 * Loads a space the caller can see, or answers 404 exactly as for a missing one: another organization's
 * space, one hidden from the caller by its default levels, and (unless `includeDeleted`) a deleted space.
 * For every family whose operations act on a space.
 */
export async function requireSpace(context: ServiceContext, caller: Principal, spaceId: string, options: RequireSpaceOptions = {}): Promise<SpaceAccess> {
  if (isVisitor(caller)) return visitorSpaceAccess(context, caller, spaceId);
  const access = await loadSpaceAccess(context, caller.user.id, spaceId);
  if (typeof access === 'string') throw spaceNotFound();
  if (access.state.deleted && !options.includeDeleted) throw spaceNotFound();
  return access;
}

/**
 * A space as a visitor of a published site reads it: only the space of a site space of the visitor's site
 * that they see, live (never a deleted one), with the reading role; anything else is 404 like a missing space.
 */
async function visitorSpaceAccess(context: ServiceContext, visitor: VisitorCaller, spaceId: string): Promise<SpaceAccess> {
  // Both reads at once (one round trip on PostgreSQL, on every read a reader makes); decided in the same order.
  const [siteSpace, space] = await Promise.all([siteSpaceOfSpace(context.db, visitor.grant.siteId, spaceId), findSpaceById(context.db, spaceId)]);
  if (!siteSpace || !visitorSeesSiteSpace(visitor.grant, siteSpace)) throw spaceNotFound();
  if (!space || space.organization_id !== visitor.grant.organizationId || space.deleted_at !== null) throw spaceNotFound();
  return { space, role: VISITOR_ROLE, membership: undefined, collectionChain: [], collectionIds: [], collectionGrants: [], state: spaceStateOf(space) };
}

/** The caller's role on the space as it is now in the transaction (after a move, a restore...); null when hidden. */
export async function currentRole(context: ServiceContext, caller: Caller, spaceId: string): Promise<RoleOrGuest> {
  const access = await loadSpaceAccess(context, caller.user.id, spaceId);
  return typeof access === 'string' ? null : access.role;
}

/**
 * Whether another user (a reviewer being asked, for instance) can see the space (not deleted), by the same
 * rule as `requireSpace`.
 */
export async function userCanViewSpace(context: ServiceContext, userId: string, spaceId: string): Promise<boolean> {
  const access = await loadSpaceAccess(context, userId, spaceId);
  return typeof access !== 'string' && !access.state.deleted;
}

/** Answers 403 unless the caller has the permission (the same one `permissions` reports) on the space. */
export function assertSpacePermission(access: SpaceAccess, permission: SpacePermission): void {
  if (!spacePermissions(access.role, access.state)[permission]) throw new ForbiddenError(refusalReason(permission, access.role, access.state));
}
