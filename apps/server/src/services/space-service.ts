import type { components } from '@quire/api-types';
import { TreeWriter, WorkingTree } from '../content/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { newId, nowIso } from '../ids.js';
import { membershipFromRow } from '../policies/organization-policy.js';
import type { DefaultLevel, RoleOrGuest } from '../policies/roles.js';
import { contentRole } from '../policies/visibility-policy.js';
import { findCollectionById, findNeighbourSibling } from '../stores/collection-store.js';
import { putObjects, SqlObjectReader } from '../stores/content-object-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findRevisionOfSpace, insertRevision } from '../stores/revision-store.js';
import { insertSpace, listSpacesInOrganization, SPACE_ORDER_KEY_LENGTH, updateSpace, type SpaceRow } from '../stores/space-store.js';
import type { Caller, Principal } from './caller.js';
import { checkMergeRuleUsers } from './change-request-rules.js';
import { assertCanCreateIn, placeMovedContent, placeNewContent, requireCollectionIn, type SpaceWithRole } from './collection-service.js';
import { placeAmongSiblings } from './content-placement.js';
import type { ServiceContext } from './context.js';
import { getOrganizationById } from './organization-service.js';
import { positionBetween } from './position-keys.js';
import { enqueueSearchReindex } from './search-reindex.js';
import {
  assertSpacePermission,
  currentRole,
  loadSpaceAccess,
  requireSpace,
  roleOnSpace,
  spaceNotFound,
  type RequireSpaceOptions,
  type SpaceAccess,
} from './space-access.js';
import { assertSpacesMayLeave, schedulePurge } from './space-lifecycle.js';
import { withLockedStructure } from './structure-lock.js';
import { inTransaction } from './transaction.js';

export type { SpaceWithRole } from './collection-service.js';

type MergeRules = components['schemas']['MergeRules'];
type SpaceLanguage = components['schemas']['SpaceLanguage'];
type SpaceEditMode = components['schemas']['SpaceEditMode'];

/** Runs `work` on the space under its organization's structure lock (`withLockedStructure`). */
function withLockedSpace<T>(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  options: RequireSpaceOptions & { extraOrganizations?: string[] },
  work: (tx: ServiceContext, access: SpaceAccess) => Promise<T>,
): Promise<T> {
  return withLockedStructure(context, {
    load: (tx) => requireSpace(tx, caller, spaceId, options),
    organizationOf: (access) => access.space.organization_id,
    extraOrganizations: async () => options.extraOrganizations ?? [],
    noun: 'space',
  }, work);
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
  return inTransaction(context, async (tx) => {
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
    await insertSpace(tx.db, space);
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
  return inTransaction(context, async (tx) => {
    const access = await requireSpace(tx, caller, spaceId);
    assertSpacePermission(access, 'admin');
    if (body.mergeRules) await checkMergeRuleUsers(tx.db, access.space.organization_id, body.mergeRules);
    const patch = {
      ...(body.editMode !== undefined ? { edit_mode: body.editMode } : {}),
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.defaultLevel !== undefined ? { default_level: body.defaultLevel } : {}),
      ...(body.language !== undefined ? { language: body.language } : {}),
      ...(body.mergeRules !== undefined ? { merge_rules: JSON.stringify(body.mergeRules) } : {}),
      ...(body.emoji !== undefined ? { emoji: body.emoji ?? '' } : {}),
      updated_at: nowIso(),
    };
    await updateSpace(tx.db, spaceId, patch);
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
  await inTransaction(context, async (tx) => {
    const access = await loadSpaceAccess(tx, caller.user.id, spaceId);
    if (access === 'absent') return;
    if (access === 'hidden') throw spaceNotFound();
    if (access.state.deleted) return;
    assertSpacePermission(access, 'admin');
    const now = nowIso();
    await updateSpace(tx.db, spaceId, { deleted_at: now, updated_at: now });
    await schedulePurge(tx.db, [spaceId], now);
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
