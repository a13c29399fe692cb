import type { components } from '@quire/api-types';
import { TreeWriter, WorkingTree } from '../content/index.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { newId, nowIso } from '../ids.js';
import { canViewOrganization, membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import { parseDefaultLevel, type DefaultLevel, type Role, type RoleOrGuest } from '../policies/roles.js';
import { refusalReason, spacePermissions, spaceStateOf, type SpacePermission, type SpaceState } from '../policies/space-policy.js';
import { canViewContent, contentRole, grantsApply } from '../policies/visibility-policy.js';
import { findCollectionAncestry, findCollectionById, findNeighbourSibling, lockOrganizationStructure } from '../stores/collection-store.js';
import { putObjects, SqlObjectReader } from '../stores/content-object-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { grantedRolesOnCollections, grantedRolesOnSpace } from '../stores/grant-store.js';
import { findRevisionOfSpace, insertRevision } from '../stores/revision-store.js';
import { siteSpaceOfSpace } from '../stores/site-store.js';
import { VISITOR_ROLE, visitorSeesSiteSpace } from '../policies/visitor-policy.js';
import {
  findSpaceById,
  findSpaceForMember,
  insertSpace,
  listSpacesInOrganization,
  SPACE_ORDER_KEY_LENGTH,
  updateSpace,
  type SpaceRow,
} from '../stores/space-store.js';
import { isVisitor, type Caller, type Principal, type VisitorCaller } from './caller.js';
import { assertCanCreateIn, placeMovedContent, placeNewContent, requireCollectionIn, type SpaceWithRole } from './collection-service.js';
import { placeAmongSiblings } from './content-placement.js';
import type { ServiceContext } from './context.js';
import { getOrganizationById } from './organization-service.js';
import { positionBetween } from './position-keys.js';
import { assertSpacesMayLeave, isPastRetention, schedulePurge } from './space-lifecycle.js';
import { enqueueSearchReindex } from './search-reindex.js';
import { checkMergeRuleUsers } from './change-request-rules.js';

export type { SpaceWithRole } from './collection-service.js';

type MergeRules = components['schemas']['MergeRules'];
type SpaceLanguage = components['schemas']['SpaceLanguage'];
type SpaceEditMode = components['schemas']['SpaceEditMode'];

/** A space the caller can see, with everything that decides what they may do with it. */
export interface SpaceAccess extends SpaceWithRole {
  membership: OrganizationMembership | undefined;
  /** Default levels of the space's collection and its ancestors, nearest first; empty at the top level. */
  collectionChain: DefaultLevel[];
  /** Roles granted to the caller or their teams on the space's collection and its ancestors. */
  collectionGrants: Role[];
  state: SpaceState;
}

export interface RequireSpaceOptions {
  /** Also answer a space deleted within its retention (for reading it and restoring it). */
  includeDeleted?: boolean;
}

function notFound(): NotFoundError {
  return new NotFoundError('No space matches this id');
}

/** The caller's role on a space, which hangs from collections with these default levels (nearest first). */
function roleOnSpace(membership: OrganizationMembership | undefined, space: SpaceRow, collectionChain: readonly DefaultLevel[], grants: readonly Role[]): RoleOrGuest {
  return contentRole({ membership, defaultLevels: [parseDefaultLevel(space.default_level), ...collectionChain], grants });
}

/** `absent`: there is no such space (never was, purged, or past its retention); `hidden`: the caller cannot see it. */
async function loadSpaceAccess(context: ServiceContext, userId: string, spaceId: string): Promise<SpaceAccess | 'absent' | 'hidden'> {
  const found = await findSpaceForMember(context.db, spaceId, userId);
  if (!found) return 'absent';
  const membership = found.membership ? membershipFromRow(found.membership) : undefined;
  if (!canViewOrganization(membership)) return 'hidden';
  const { space } = found;
  if (space.deleted_at !== null && isPastRetention(space.deleted_at)) return 'absent';
  let collectionChain: DefaultLevel[] = [];
  let collectionIds: string[] = [];
  if (space.collection_id !== null) {
    const ancestry = await findCollectionAncestry(context.db, space.collection_id);
    // A deleted space may name a collection deleted since; it then hangs from the organization alone.
    if (ancestry[0]?.organization_id === space.organization_id) {
      collectionChain = ancestry.map((row) => parseDefaultLevel(row.default_level));
      collectionIds = ancestry.map((row) => row.id);
    }
  }
  const withGrants = grantsApply(membership);
  const collectionGrants = withGrants ? await grantedRolesOnCollections(context.db, userId, collectionIds) : [];
  const spaceGrants = withGrants ? await grantedRolesOnSpace(context.db, userId, space.id) : [];
  const role = roleOnSpace(membership, space, collectionChain, [...spaceGrants, ...collectionGrants]);
  if (!canViewContent(role)) return 'hidden';
  return { space, role, membership, collectionChain, collectionGrants, state: spaceStateOf(space) };
}

/**
 * Loads a space the caller can see, or answers 404 exactly as for a missing one: another organization's
 * space, one hidden from the caller by its default levels, and (unless `includeDeleted`) a deleted space.
 * For every family whose operations act on a space.
 */
export async function requireSpace(context: ServiceContext, caller: Principal, spaceId: string, options: RequireSpaceOptions = {}): Promise<SpaceAccess> {
  if (isVisitor(caller)) return visitorSpaceAccess(context, caller, spaceId);
  const access = await loadSpaceAccess(context, caller.user.id, spaceId);
  if (typeof access === 'string') throw notFound();
  if (access.state.deleted && !options.includeDeleted) throw notFound();
  return access;
}

/**
 * A space as a visitor of a published site reads it: only the space of a site space of the visitor's site
 * that they see, live (never a deleted one), with the reading role; anything else is 404 like a missing space.
 */
async function visitorSpaceAccess(context: ServiceContext, visitor: VisitorCaller, spaceId: string): Promise<SpaceAccess> {
  const siteSpace = await siteSpaceOfSpace(context.db, visitor.grant.siteId, spaceId);
  if (!siteSpace || !visitorSeesSiteSpace(visitor.grant, siteSpace)) throw notFound();
  const space = await findSpaceById(context.db, spaceId);
  if (!space || space.organization_id !== visitor.grant.organizationId || space.deleted_at !== null) throw notFound();
  return { space, role: VISITOR_ROLE, membership: undefined, collectionChain: [], collectionGrants: [], state: spaceStateOf(space) };
}

/** The caller's role on the space as it is now in the transaction (after a move, a restore...); null when hidden. */
async function currentRole(context: ServiceContext, caller: Caller, spaceId: string): Promise<RoleOrGuest> {
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

/**
 * Runs `work` in a transaction holding the structure lock of the space's organization (and of
 * `extraOrganizations`). On PostgreSQL the space is read again once the lock is held, so that what `work`
 * decides on is what the lock protects.
 */
async function withLockedSpace<T>(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  options: RequireSpaceOptions & { extraOrganizations?: string[] },
  work: (tx: ServiceContext, access: SpaceAccess) => Promise<T>,
): Promise<T> {
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    let access = await requireSpace(tx, caller, spaceId, options);
    await lockOrganizationStructure(trx, context.dialect, [access.space.organization_id, ...(options.extraOrganizations ?? [])]);
    if (context.dialect === 'postgres') {
      const locked = await requireSpace(tx, caller, spaceId, options);
      if (locked.space.organization_id !== access.space.organization_id) throw new ConflictError('The space moved while this request ran; try again');
      access = locked;
    }
    return work(tx, access);
  });
}

export async function getSpaceById(context: ServiceContext, caller: Principal, spaceId: string): Promise<SpaceWithRole> {
  return requireSpace(context, caller, spaceId, { includeDeleted: true });
}

export async function listSpacesInOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: { page?: string; limit?: number },
): Promise<KeysetPage<SpaceWithRole>> {
  const { after, limit } = pageRequest(query, SPACE_ORDER_KEY_LENGTH);
  const found = await getOrganizationById(context, caller, organizationId);
  return listSpacesInOrganization(context.db, organizationId, { userId: caller.user.id, membership: membershipFromRow(found.membership) }, after, limit);
}

/** What a space starts with, new or duplicated: not deleted, nothing commented or proposed yet. */
const NO_ACTIVITY_YET = {
  deleted_at: null,
  comments_count: 0,
  change_requests_count: 0,
  change_requests_open: 0,
  change_requests_draft: 0,
} as const satisfies Partial<SpaceRow>;

/** Stores an empty page tree and answers its root hash, in the caller's transaction. */
async function writeEmptyTree(tx: ServiceContext): Promise<string> {
  const writer = new TreeWriter(new SqlObjectReader(tx.db));
  const root = WorkingTree.empty().commit(writer);
  await putObjects(tx.db, writer.collect(root));
  return root;
}

/** Records the first revision of a new space (its `revision_id`, holding `root`) and queues its search indexing. */
async function insertFirstRevision(tx: ServiceContext, space: SpaceRow, root: string, caller: Caller, now: string): Promise<void> {
  await insertRevision(tx.db, {
    id: space.revision_id, space_id: space.id, type: 'edits', parents: '[]', root, created_at: now, created_by: caller.user.id, git: null, change_request_id: null,
  });
  await enqueueSearchReindex(tx.db, space.id);
}

export async function createSpace(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  body: { title?: string; emoji?: string; parent?: string; language?: SpaceLanguage; editMode?: SpaceEditMode },
): Promise<SpaceWithRole> {
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const { membership, parent, position } = await placeNewContent(tx, caller, organizationId, body.parent);
    const now = nowIso();
    const space: SpaceRow = {
      id: newId(),
      organization_id: organizationId,
      collection_id: parent?.collection.id ?? null,
      title: body.title ?? '',
      emoji: body.emoji ?? '',
      visibility: parent ? 'in-collection' : 'private',
      edit_mode: body.editMode ?? 'live',
      default_level: 'inherit',
      language: body.language ?? null,
      merge_rules: JSON.stringify({ type: 'inherit' }),
      revision_id: newId(),
      git_sync: null,
      visitor_auth: null,
      position,
      created_at: now,
      updated_at: now,
      ...NO_ACTIVITY_YET,
    };
    await insertSpace(trx, space);
    await insertFirstRevision(tx, space, await writeEmptyTree(tx), caller, now);
    return { space, role: roleOnSpace(membership, space, parent?.chain ?? [], parent?.grants ?? []) };
  });
}

export async function updateSpaceById(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  body: { editMode?: SpaceEditMode; title?: string; defaultLevel?: DefaultLevel; language?: SpaceLanguage; mergeRules?: MergeRules; emoji?: string | null },
): Promise<SpaceWithRole> {
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    assertSpacePermission(access, 'admin');
    if (body.mergeRules) await checkMergeRuleUsers(trx, access.space.organization_id, body.mergeRules);
    const patch = {
      ...(body.editMode !== undefined ? { edit_mode: body.editMode } : {}),
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.defaultLevel !== undefined ? { default_level: body.defaultLevel } : {}),
      ...(body.language !== undefined ? { language: body.language } : {}),
      ...(body.mergeRules !== undefined ? { merge_rules: JSON.stringify(body.mergeRules) } : {}),
      ...(body.emoji !== undefined ? { emoji: body.emoji ?? '' } : {}),
      updated_at: nowIso(),
    };
    await updateSpace(trx, spaceId, patch);
    const space = { ...access.space, ...patch };
    // A new default level can change the caller's own role on the space.
    return { space, role: await currentRole(tx, caller, spaceId) };
  });
}

/**
 * Marks the space deleted and queues its removal for good at the end of its retention. A space that does
 * not exist, or is already deleted, answers as deleted; one the caller cannot see answers 404.
 */
export async function deleteSpaceById(context: ServiceContext, caller: Caller, spaceId: string): Promise<void> {
  await context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await loadSpaceAccess(tx, caller.user.id, spaceId);
    if (access === 'absent') return;
    if (access === 'hidden') throw notFound();
    if (access.state.deleted) return;
    assertSpacePermission(access, 'admin');
    const now = nowIso();
    await updateSpace(trx, spaceId, { deleted_at: now, updated_at: now });
    await schedulePurge(trx, [spaceId], now);
  });
}

/** An `in-collection` space that ends up at the top level has no collection to take its audience from. */
function visibilityAt(space: SpaceRow, collectionId: string | null): string {
  return collectionId === null && space.visibility === 'in-collection' ? 'private' : space.visibility;
}

export async function restoreSpace(context: ServiceContext, caller: Caller, spaceId: string): Promise<SpaceWithRole> {
  return withLockedSpace(context, caller, spaceId, { includeDeleted: true }, async (tx, access) => {
    assertSpacePermission(access, 'admin');
    if (!access.state.deleted) throw new ConflictError('The space is not deleted');
    const { space, membership } = access;
    // Back into its collection when that still exists, else to the top level; last among its new siblings,
    // since its old place may have been taken while it was away.
    const collection = space.collection_id === null ? undefined : await findCollectionById(tx.db, space.collection_id);
    const collectionId = collection && collection.organization_id === space.organization_id ? collection.id : null;
    const parentChain = collectionId === null ? [] : access.collectionChain;
    const position = await placeAmongSiblings(tx, { organizationId: space.organization_id, parentId: collectionId, parentChain, membership });
    const now = nowIso();
    const patch = {
      deleted_at: null,
      collection_id: collectionId,
      visibility: visibilityAt(space, collectionId),
      position,
      updated_at: now,
    };
    await updateSpace(tx.db, spaceId, patch);
    const restored = { ...space, ...patch };
    return { space: restored, role: await currentRole(tx, caller, spaceId) };
  });
}

/** The collection a space is in, as a destination for content created next to it (undefined at the top level). */
function collectionOf(access: SpaceAccess): { role: RoleOrGuest } | undefined {
  if (access.space.collection_id === null) return undefined;
  return { role: contentRole({ membership: access.membership, defaultLevels: access.collectionChain, grants: access.collectionGrants }) };
}

/**
 * A copy of the space right after it, with its settings and a first revision holding its current main
 * content. Content objects are shared by hash, so the copy writes one revision row and no content.
 */
export async function duplicateSpace(context: ServiceContext, caller: Caller, spaceId: string): Promise<SpaceWithRole> {
  return withLockedSpace(context, caller, spaceId, {}, async (tx, access) => {
    assertSpacePermission(access, 'view');
    const { space: original, membership } = access;
    assertCanCreateIn(membership, collectionOf(access));
    const revision = await findRevisionOfSpace(tx.db, original.id, original.revision_id);
    if (!revision) throw new Error(`space ${original.id} has no revision ${original.revision_id}`);
    const next = await findNeighbourSibling(tx.db, { organizationId: original.organization_id, parentId: original.collection_id }, original.position, 'after');
    const now = nowIso();
    const copy: SpaceRow = {
      ...original,
      id: newId(),
      revision_id: newId(),
      git_sync: null,
      position: positionBetween(original.position, next?.position ?? null),
      created_at: now,
      updated_at: now,
      ...NO_ACTIVITY_YET,
    };
    await insertSpace(tx.db, copy);
    await insertFirstRevision(tx, copy, revision.root, caller, now);
    return { space: copy, role: roleOnSpace(membership, copy, access.collectionChain, access.collectionGrants) };
  });
}

export async function moveSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  body: { parent?: string | null; position?: components['schemas']['ContentPosition'] },
): Promise<SpaceWithRole> {
  return withLockedSpace(context, caller, spaceId, {}, async (tx, access) => {
    assertSpacePermission(access, 'admin');
    const { space, membership } = access;
    const { parentId, parentChain, position } = await placeMovedContent(tx, caller, membership, {
      type: 'space',
      id: space.id,
      organizationId: space.organization_id,
      parentId: space.collection_id,
      parentChain: access.collectionChain,
      position: space.position,
    }, body);
    const now = nowIso();
    const patch = { collection_id: parentId, position, visibility: visibilityAt(space, parentId), updated_at: now };
    await updateSpace(tx.db, spaceId, patch);
    const moved = { ...space, ...patch };
    return { space: moved, role: await currentRole(tx, caller, spaceId) };
  });
}

export async function transferSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  body: { organization: string; collection?: string },
): Promise<SpaceWithRole> {
  return withLockedSpace(context, caller, spaceId, { extraOrganizations: [body.organization] }, async (tx, access) => {
    assertSpacePermission(access, 'admin');
    const { space } = access;
    const target = await getOrganizationById(tx, caller, body.organization).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new NotFoundError('No organization matches body.organization');
      throw error;
    });
    const targetId = target.organization.id;
    const targetMembership = membershipFromRow(target.membership);
    const destination = body.collection === undefined ? undefined : await requireCollectionIn(tx, caller, targetId, body.collection, 'body.collection');
    const collectionId = destination?.collection.id ?? null;
    if (targetId === space.organization_id && collectionId === space.collection_id) {
      throw new ConflictError('The space is already in this place');
    }
    assertCanCreateIn(targetMembership, destination);
    if (targetId !== space.organization_id) await assertSpacesMayLeave(tx.db, space.organization_id, [space.id]);
    const parentChain = destination?.chain ?? [];
    const position = await placeAmongSiblings(tx, { organizationId: targetId, parentId: collectionId, parentChain, membership: targetMembership });
    const now = nowIso();
    const patch = { organization_id: targetId, collection_id: collectionId, position, visibility: visibilityAt(space, collectionId), updated_at: now };
    await updateSpace(tx.db, spaceId, patch);
    const moved = { ...space, ...patch };
    return { space: moved, role: await currentRole(tx, caller, spaceId) };
  });
}
