import type { ContentPosition } from '@quire/api-types';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { newId, nowIso } from '../ids.js';
import { canCreateContentIn, collectionPermissions } from '../policies/collection-policy.js';
import { canViewOrganization, membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import { parseDefaultLevel, type DefaultLevel, type Role, type RoleOrGuest } from '../policies/roles.js';
import { canViewContent, contentRole, grantsApply } from '../policies/visibility-policy.js';
import {
  COLLECTION_ORDER_KEY_LENGTH,
  deleteCollection,
  findCollectionAncestry,
  findCollectionForMember,
  findCollectionSubtreeIds,
  insertCollection,
  listCollectionsInOrganization,
  lockOrganizationStructure,
  setCollectionsOrganization,
  updateCollection,
  type CollectionRow,
} from '../stores/collection-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { permittedRolesOnCollections } from '../stores/content-permission-store.js';
import {
  findSpaceIdsInCollections,
  listSpacesInCollection,
  markSpacesOfCollectionsDeleted,
  setSpacesOrganization,
  SPACE_ORDER_KEY_LENGTH,
  type SpaceRow,
} from '../stores/space-store.js';
import type { Caller } from './caller.js';
import { placeAmongSiblings } from './content-placement.js';
import type { ServiceContext } from './context.js';
import { withLockedStructure } from './structure-lock.js';
import { inTransaction } from './transaction.js';
import { getOrganizationById } from './organization-service.js';
import { assertSpacesMayLeave, schedulePurge } from './space-lifecycle.js';

/** A collection as the caller sees it: the row and the caller's role on it (which `permissions` come from). */
export interface CollectionWithRole {
  collection: CollectionRow;
  role: RoleOrGuest;
}

export interface CollectionAccess extends CollectionWithRole {
  /** The collection and its ancestors, nearest first. */
  ancestry: CollectionRow[];
  /** Their default levels, in the same order: the chain that content inside the collection inherits. */
  chain: DefaultLevel[];
  /** Roles granted to the caller or their teams on the collection and its ancestors. */
  grants: Role[];
  membership: OrganizationMembership | undefined;
}

function notFound(field?: string): NotFoundError {
  return new NotFoundError(field ? `No collection matches ${field}` : 'No collection matches this id');
}

function levelsOf(ancestry: readonly CollectionRow[]): DefaultLevel[] {
  return ancestry.map((row) => parseDefaultLevel(row.default_level));
}

async function loadCollectionAccess(context: ServiceContext, caller: Caller, collectionId: string): Promise<CollectionAccess | undefined> {
  const found = await findCollectionForMember(context.db, collectionId, caller.user.id);
  if (!found) return undefined;
  const membership = found.membership ? membershipFromRow(found.membership) : undefined;
  if (!canViewOrganization(membership)) return undefined;
  const ancestry = found.collection.parent_id === null ? [found.collection] : await findCollectionAncestry(context.db, collectionId);
  const chain = levelsOf(ancestry);
  const grants = grantsApply(membership) ? await permittedRolesOnCollections(context.db, caller.user.id, ancestry.map((row) => row.id)) : [];
  const role = contentRole({ membership, defaultLevels: chain, grants });
  if (!canViewContent(role)) return undefined;
  return { collection: found.collection, role, ancestry, chain, grants, membership };
}

/**
 * Loads a collection the caller can see, or answers 404 exactly as for a missing one (another
 * organization's collection, one hidden by its default levels). For other families that act on
 * collections.
 */
export async function requireCollection(context: ServiceContext, caller: Caller, collectionId: string, field?: string): Promise<CollectionAccess> {
  const access = await loadCollectionAccess(context, caller, collectionId);
  if (!access) throw notFound(field);
  return access;
}

/** A destination collection named in a request: it must be visible and in `organizationId` (404 otherwise). */
export async function requireCollectionIn(context: ServiceContext, caller: Caller, organizationId: string, collectionId: string, field: string): Promise<CollectionAccess> {
  const access = await loadCollectionAccess(context, caller, collectionId);
  if (!access || access.collection.organization_id !== organizationId) throw notFound(field);
  return access;
}

function assertCollectionAdmin(access: CollectionAccess): void {
  if (!collectionPermissions(access.role).admin) throw new ForbiddenError('You need the admin permission of this collection');
}

/** Refuses creating or moving content into a place without the create permission there. */
export function assertCanCreateIn(membership: OrganizationMembership | undefined, destination: { role: RoleOrGuest } | undefined): void {
  if (canCreateContentIn(membership, destination?.role)) return;
  throw new ForbiddenError(destination
    ? 'You need the create permission of the destination collection'
    : 'You need the createContent permission of the organization (role create or above)');
}

/** Where a new collection or space goes: its parent collection (undefined at the top level) and its position key. */
export interface NewContentPlace {
  membership: OrganizationMembership;
  parent: CollectionAccess | undefined;
  position: string;
}

/**
 * The steps that start creating a collection or a space, in the creating transaction: loads the organization
 * (404 when the caller cannot see it), takes its structure lock, loads the parent named by `body.parent`
 * (404 unless visible and in the organization), checks the create permission there and places the new item
 * last among its siblings.
 */
export async function placeNewContent(tx: ServiceContext, caller: Caller, organizationId: string, parentId: string | undefined): Promise<NewContentPlace> {
  const found = await getOrganizationById(tx, caller, organizationId);
  const membership = membershipFromRow(found.membership);
  await lockOrganizationStructure(tx.db, tx.dialect, [organizationId]);
  const parent = parentId === undefined ? undefined : await requireCollectionIn(tx, caller, organizationId, parentId, 'body.parent');
  assertCanCreateIn(membership, parent);
  const position = await placeAmongSiblings(tx, { organizationId, parentId: parent?.collection.id ?? null, parentChain: parent?.chain ?? [], membership });
  return { membership, parent, position };
}

/** A collection or space being moved within its organization, as it is now. */
export interface MovedItem {
  type: 'collection' | 'space';
  id: string;
  organizationId: string;
  parentId: string | null;
  /** Default levels of its current parent collection and that collection's ancestors (nearest first). */
  parentChain: DefaultLevel[];
  position: string;
}

/** Where a moved item goes: its new parent (null for the top level), that parent's chain and the position key. */
export interface MovePlace {
  parentId: string | null;
  parentChain: DefaultLevel[];
  position: string;
}

/**
 * Resolves the destination of a move within the organization, in the transaction holding its structure lock:
 * `parent` undefined keeps the current parent, null is the top level, an id names a collection that must be
 * visible and in the organization (`checkDestination` may refuse it next). Changing parent needs the create
 * permission at the destination. Answers the parent and the position among its siblings (409 when the item
 * would stay where it is).
 */
export async function placeMovedContent(
  tx: ServiceContext,
  caller: Caller,
  membership: OrganizationMembership | undefined,
  item: MovedItem,
  body: { parent?: string | null; position?: ContentPosition | undefined },
  checkDestination: (destination: CollectionAccess) => void = () => {},
): Promise<MovePlace> {
  let parentId: string | null;
  let parentChain: DefaultLevel[];
  if (body.parent === undefined) {
    parentId = item.parentId;
    parentChain = item.parentChain;
  } else if (body.parent === null) {
    parentId = null;
    parentChain = [];
    if (item.parentId !== null) assertCanCreateIn(membership, undefined);
  } else {
    const destination = await requireCollectionIn(tx, caller, item.organizationId, body.parent, 'body.parent');
    checkDestination(destination);
    parentId = destination.collection.id;
    parentChain = destination.chain;
    if (parentId !== item.parentId) assertCanCreateIn(membership, destination);
  }
  const position = await placeAmongSiblings(tx, {
    organizationId: item.organizationId,
    parentId,
    parentChain,
    membership,
    item: { type: item.type, id: item.id, parentId: item.parentId, position: item.position },
    position: body.position,
  });
  return { parentId, parentChain, position };
}

/** Runs `work` on the collection under its organization's structure lock (`withLockedStructure`). */
function withLockedCollection<T>(
  context: ServiceContext,
  caller: Caller,
  collectionId: string,
  work: (tx: ServiceContext, access: CollectionAccess) => Promise<T>,
  extraOrganizations?: (access: CollectionAccess) => Promise<string[]>,
): Promise<T> {
  return withLockedStructure(context, {
    load: (tx) => requireCollection(tx, caller, collectionId),
    organizationOf: (access) => access.collection.organization_id,
    ...(extraOrganizations ? { extraOrganizations } : {}),
    noun: 'collection',
  }, work);
}

export async function listCollectionsInOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: { page?: string; limit?: number; nested?: boolean },
): Promise<KeysetPage<CollectionWithRole>> {
  const { after, limit } = pageRequest(query, COLLECTION_ORDER_KEY_LENGTH);
  const found = await getOrganizationById(context, caller, organizationId);
  const viewer = { userId: caller.user.id, membership: membershipFromRow(found.membership) };
  return listCollectionsInOrganization(context.db, organizationId, { topLevelOnly: query.nested === false, viewer }, after, limit);
}

export async function createCollection(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  body: { title?: string; parent?: string },
): Promise<CollectionWithRole> {
  return inTransaction(context, async (tx) => {
    const { membership, parent, position } = await placeNewContent(tx, caller, organizationId, body.parent);
    const now = nowIso();
    const collection: CollectionRow = {
      id: newId(),
      organization_id: organizationId,
      parent_id: parent?.collection.id ?? null,
      title: body.title ?? '',
      description: null,
      default_level: 'inherit',
      position,
      created_at: now,
      updated_at: now,
    };
    await insertCollection(tx.db, collection);
    return { collection, role: contentRole({ membership, defaultLevels: ['inherit', ...(parent?.chain ?? [])], grants: parent?.grants ?? [] }) };
  });
}

export async function getCollectionById(context: ServiceContext, caller: Caller, collectionId: string): Promise<CollectionWithRole> {
  return requireCollection(context, caller, collectionId);
}

export async function updateCollectionById(
  context: ServiceContext,
  caller: Caller,
  collectionId: string,
  body: { title?: string; description?: string; defaultLevel?: DefaultLevel },
): Promise<CollectionWithRole> {
  return inTransaction(context, async (tx) => {
    const access = await requireCollection(tx, caller, collectionId);
    assertCollectionAdmin(access);
    const now = nowIso();
    const patch = {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description === '' ? null : body.description } : {}),
      ...(body.defaultLevel !== undefined ? { default_level: body.defaultLevel } : {}),
      updated_at: now,
    };
    await updateCollection(tx.db, collectionId, patch);
    const collection = { ...access.collection, ...patch };
    // A new default level can change the caller's own role on the collection.
    const chain = [parseDefaultLevel(collection.default_level), ...access.chain.slice(1)];
    return { collection, role: contentRole({ membership: access.membership, defaultLevels: chain, grants: access.grants }) };
  });
}

/**
 * Deletes the collection and the collections inside it; their spaces become deleted spaces (restorable for
 * 7 days, then purged by a queued job). A collection that does not exist answers as deleted.
 */
export async function deleteCollectionById(context: ServiceContext, caller: Caller, collectionId: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    const found = await findCollectionForMember(tx.db, collectionId, caller.user.id);
    if (!found) return;
    await lockOrganizationStructure(tx.db, context.dialect, [found.collection.organization_id]);
    const access = await loadCollectionAccess(tx, caller, collectionId);
    if (!access) {
      // Gone while we waited for the lock: that is what the caller asked for.
      if (!(await findCollectionForMember(tx.db, collectionId, caller.user.id))) return;
      throw notFound();
    }
    assertCollectionAdmin(access);
    const now = nowIso();
    const subtree = await findCollectionSubtreeIds(tx.db, collectionId);
    const deletedSpaces = await markSpacesOfCollectionsDeleted(tx.db, subtree, now);
    await deleteCollection(tx.db, collectionId);
    await schedulePurge(tx.db, deletedSpaces, now);
  });
}

export interface SpaceWithRole {
  space: SpaceRow;
  role: RoleOrGuest;
}

export async function listSpacesInCollectionById(
  context: ServiceContext,
  caller: Caller,
  collectionId: string,
  query: { page?: string; limit?: number },
): Promise<KeysetPage<SpaceWithRole>> {
  const { after, limit } = pageRequest(query, SPACE_ORDER_KEY_LENGTH);
  const access = await requireCollection(context, caller, collectionId);
  const viewer = { userId: caller.user.id, membership: access.membership };
  return listSpacesInCollection(context.db, { id: collectionId, organizationId: access.collection.organization_id }, viewer, after, limit);
}

export async function moveCollection(
  context: ServiceContext,
  caller: Caller,
  collectionId: string,
  body: { parent?: string | null; position?: ContentPosition },
): Promise<CollectionWithRole> {
  return withLockedCollection(context, caller, collectionId, async (tx, access) => {
    assertCollectionAdmin(access);
    const { collection, membership } = access;
    const { parentId, parentChain, position } = await placeMovedContent(tx, caller, membership, {
      type: 'collection',
      id: collection.id,
      organizationId: collection.organization_id,
      parentId: collection.parent_id,
      parentChain: access.chain.slice(1),
      position: collection.position,
    }, body, (destination) => {
      if (destination.ancestry.some((ancestor) => ancestor.id === collectionId)) {
        throw new BadRequestError('body.parent is the collection itself or one of the collections inside it');
      }
    });
    const now = nowIso();
    await updateCollection(tx.db, collectionId, { parent_id: parentId, position, updated_at: now });
    const moved = { ...collection, parent_id: parentId, position, updated_at: now };
    return { collection: moved, role: (await loadCollectionAccess(tx, caller, collectionId))?.role ?? null };
  });
}

/**
 * Moves the collection, with the collections and spaces inside it (deleted ones too, so that they can still
 * be restored there), to the top level of another organization.
 */
export async function transferCollection(
  context: ServiceContext,
  caller: Caller,
  collectionId: string,
  body: { organization: string },
): Promise<CollectionWithRole> {
  return withLockedCollection(context, caller, collectionId, async (tx, access) => {
    assertCollectionAdmin(access);
    const { collection } = access;
    const target = await getOrganizationById(tx, caller, body.organization).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new NotFoundError('No organization matches body.organization');
      throw error;
    });
    if (target.organization.id === collection.organization_id) throw new ConflictError('The collection already belongs to this organization');
    const targetMembership = membershipFromRow(target.membership);
    assertCanCreateIn(targetMembership, undefined);
    const subtree = await findCollectionSubtreeIds(tx.db, collectionId);
    const spaceIds = await findSpaceIdsInCollections(tx.db, subtree);
    await assertSpacesMayLeave(tx.db, collection.organization_id, spaceIds);
    const position = await placeAmongSiblings(tx, { organizationId: target.organization.id, parentId: null, parentChain: [], membership: targetMembership });
    const now = nowIso();
    await setCollectionsOrganization(tx.db, subtree, target.organization.id);
    await setSpacesOrganization(tx.db, spaceIds, target.organization.id);
    await updateCollection(tx.db, collectionId, { parent_id: null, position, updated_at: now });
    const moved = { ...collection, organization_id: target.organization.id, parent_id: null, position, updated_at: now };
    return { collection: moved, role: (await loadCollectionAccess(tx, caller, collectionId))?.role ?? null };
  }, async () => [body.organization]);
}
