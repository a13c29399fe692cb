import { sql, type Selectable, type Updateable } from 'kysely';
import { notifyChange } from '../db/change-notices.js';
import type { Db } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import type { SpacesTable } from '../db/schema.js';
import { parseRole, type RoleOrGuest } from '../policies/roles.js';
import { organizationReach, type ContentViewer } from '../policies/visibility-policy.js';
import { chunks } from './collection-store.js';
import type { MembershipState } from './content-membership.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { prepared } from './prepared.js';
import { cachedReach, type Reach } from './reach-cache.js';
import { visibleSpacesFrom, withContentAccess, type SpacesQuery } from './visibility.js';

export type SpaceRow = Selectable<SpacesTable>;

export async function insertSpace(db: Db, row: SpaceRow): Promise<void> {
  await db.insertInto('spaces').values(row).execute();
}

export async function findSpaceById(db: Db, id: string): Promise<SpaceRow | undefined> {
  return db.selectFrom('spaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A collection a space hangs from, as far as the caller's role on the space depends on it. */
export interface CollectionAbove {
  id: string;
  organization_id: string;
  default_level: string | null;
}

/** How deep collections nest at most (as collection-store.ts walks them). */
const MAX_COLLECTION_DEPTH = 64;

/*
 * The space, the user's membership in its organization and the collections it hangs from (nearest first), in
 * one statement: one row per collection above the space (one row with null collection columns at the top
 * level). Every request on a space needs all three, and on PostgreSQL each statement is a round trip.
 */
const spaceWithCollections = prepared((db: Db, id: string, userId: string, sameId: string) => ({
  compile: () => sql<SpaceRow & { member_role: string | null; member_disabled: number | null; member_user_id: string | null;
    chain_id: string | null; chain_organization_id: string | null; chain_default_level: string | null; chain_depth: number | null }>`
    with recursive chain as (
      select c.id, c.parent_id, c.organization_id, c.default_level, 0 as depth
      from collections c where c.id = (select s.collection_id from spaces s where s.id = ${sameId})
      union all
      select p.id, p.parent_id, p.organization_id, p.default_level, chain.depth + 1
      from collections p inner join chain on p.id = chain.parent_id where chain.depth < ${sql.lit(MAX_COLLECTION_DEPTH)}
    )
    select o.*, m.role as member_role, m.disabled as member_disabled, m.user_id as member_user_id,
      chain.id as chain_id, chain.organization_id as chain_organization_id, chain.default_level as chain_default_level, chain.depth as chain_depth
    from spaces o
    left join organization_members m on m.organization_id = o.organization_id and m.user_id = ${userId}
    left join chain on 1 = 1
    where o.id = ${id}
    order by chain.depth`.compile(db),
}), { read: true });

/**
 * A space (deleted or not) with the user's membership in its organization and the collections above it
 * (nearest first; empty at the top level), in one statement: every space request starts here.
 */
export async function findSpaceWithCollectionsForMember(db: Db, spaceId: string, userId: string): Promise<{ space: SpaceRow; membership: MembershipState | undefined; collections: CollectionAbove[] } | undefined> {
  const rows = await spaceWithCollections(db, spaceId, userId, spaceId);
  const first = rows[0];
  if (!first) return undefined;
  const { member_role, member_disabled, member_user_id, chain_id: _id, chain_organization_id: _organization, chain_default_level: _level, chain_depth: _depth, ...space } = first;
  const collections: CollectionAbove[] = [];
  for (const row of rows) {
    if (row.chain_id !== null) collections.push({ id: row.chain_id, organization_id: row.chain_organization_id!, default_level: row.chain_default_level });
  }
  return { space, membership: member_user_id === null ? undefined : { role: member_role, disabled: member_disabled ?? 0 }, collections };
}

export async function updateSpace(db: Db, id: string, patch: Updateable<SpacesTable>): Promise<void> {
  await db.updateTable('spaces').set(patch).where('id', '=', id).execute();
  // Deleted, restored or moved away: the sites that show it do so no longer (or again).
  if (patch.deleted_at !== undefined || patch.organization_id !== undefined) await notifyChange(db, { kind: 'space', spaceId: id });
}

/** Past this many spaces changed at once, one notice to forget everything costs less than one per space. */
const MAX_SPACE_NOTICES = 20;

async function notifySpacesChanged(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length > MAX_SPACE_NOTICES) return notifyChange(db, { kind: 'everything' });
  for (const spaceId of ids) await notifyChange(db, { kind: 'space', spaceId });
}

/** Makes a revision the main content of the space (after a merge, an import, a template...). */
export async function setSpaceMainRevision(db: Db, spaceId: string, revisionId: string, at: string): Promise<void> {
  await db.updateTable('spaces').set({ revision_id: revisionId, updated_at: at }).where('id', '=', spaceId).execute();
}

export interface SpaceCounterChanges {
  comments?: number;
  changeRequests?: number;
  changeRequestsOpen?: number;
  changeRequestsDraft?: number;
}

/**
 * Adds to the space's counters, in the transaction that creates or changes what they count, so they stay
 * exact. An increment in SQL (rather than read-modify-write) keeps concurrent writers from losing updates.
 */
export async function adjustSpaceCounters(db: Db, spaceId: string, changes: SpaceCounterChanges): Promise<void> {
  const columns: Array<[keyof SpaceCounterChanges, 'comments_count' | 'change_requests_count' | 'change_requests_open' | 'change_requests_draft']> = [
    ['comments', 'comments_count'],
    ['changeRequests', 'change_requests_count'],
    ['changeRequestsOpen', 'change_requests_open'],
    ['changeRequestsDraft', 'change_requests_draft'],
  ];
  const set: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const delta = changes[key];
    if (delta) set[column] = sql`${sql.ref(column)} + ${delta}`;
  }
  if (Object.keys(set).length === 0) return;
  await db.updateTable('spaces').set(set).where('id', '=', spaceId).execute();
}

/** Marks the live spaces of these collections deleted; answers the ids it marked. */
export async function markSpacesOfCollectionsDeleted(db: Db, collectionIds: readonly string[], at: string): Promise<string[]> {
  const marked: string[] = [];
  for (const chunk of chunks(collectionIds)) {
    const rows = await db.selectFrom('spaces').select('id').where('collection_id', 'in', chunk).where('deleted_at', 'is', null).execute();
    if (rows.length === 0) continue;
    const ids = rows.map((row) => row.id);
    for (const idChunk of chunks(ids)) await db.updateTable('spaces').set({ deleted_at: at, updated_at: at }).where('id', 'in', idChunk).execute();
    marked.push(...ids);
  }
  await notifySpacesChanged(db, marked);
  return marked;
}

/** Every space (deleted or not) in these collections. */
export async function findSpaceIdsInCollections(db: Db, collectionIds: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const chunk of chunks(collectionIds)) {
    const rows = await db.selectFrom('spaces').select('id').where('collection_id', 'in', chunk).execute();
    ids.push(...rows.map((row) => row.id));
  }
  return ids;
}

export async function setSpacesOrganization(db: Db, ids: readonly string[], organizationId: string): Promise<void> {
  for (const chunk of chunks(ids)) await db.updateTable('spaces').set({ organization_id: organizationId }).where('id', 'in', chunk).execute();
  await notifySpacesChanged(db, ids);
}

/** Removes the space for good, its revisions with it (foreign key cascade). */
export async function deleteSpaceRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('spaces').where('id', '=', id).execute();
  await notifyChange(db, { kind: 'space', spaceId: id });
}

/** Spaces listed across the organization come in creation order; those of a collection in their order there. */
const CREATED_ORDER: KeysetOrder<SpaceRow> = { columns: ['s.created_at', 's.id'], keyOf: (row) => [row.created_at, row.id] };
const POSITION_ORDER: KeysetOrder<SpaceRow> = { columns: ['s.position', 's.id'], keyOf: (row) => [row.position, row.id] };
export const SPACE_ORDER_KEY_LENGTH = 2;

/** A space of a list, with the role on it of the viewer the list is for. */
export interface VisibleSpace {
  space: SpaceRow;
  role: RoleOrGuest;
}

/** Where a list of spaces looks: across an organization, or directly inside one of its collections. */
interface SpaceScope {
  organizationId: string;
  collectionId?: string;
}

function liveSpacesIn(db: Db, scope: SpaceScope) {
  return liveSpacesOf(db.selectFrom('spaces as s'), scope);
}

function liveSpacesOf<O>(spaces: SpacesQuery<O>, scope: SpaceScope) {
  const query = spaces.where('s.deleted_at', 'is', null);
  return scope.collectionId === undefined ? query.where('s.organization_id', '=', scope.organizationId) : query.where('s.collection_id', '=', scope.collectionId);
}

async function pageOfVisibleSpaces(
  db: Db,
  scope: SpaceScope,
  viewer: ContentViewer,
  order: KeysetOrder<SpaceRow>,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<VisibleSpace>> {
  const query = liveSpacesOf(visibleSpacesFrom(db, scope.organizationId, viewer, 'access_role'), scope).selectAll('s');
  const page = await keysetPage(query, order, after, limit);
  // The row keeps its role column (SpaceRow does not name it): copying every row without it costs more than the query.
  return { ...page, rows: page.rows.map((row) => ({ space: row, role: parseRole(row.access_role) })) };
}

/** The live spaces of the organization the viewer sees, in creation order, with their role on each. */
export async function listSpacesInOrganization(
  db: Db,
  organizationId: string,
  viewer: ContentViewer,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<VisibleSpace>> {
  // An admin's list is the organization's index read in order already; everyone else's is kept (outsiders
  // and suspended members see nothing, and their SQL says so at once).
  const { kind } = organizationReach(viewer.membership);
  if (kind === 'granted-only' || kind === 'default-levels') {
    const reach = await reachedSpaces(db, organizationId, viewer);
    const page = reach && await pageOfReach(db, organizationId, reach, after, limit);
    if (page) return page;
  }
  return pageOfVisibleSpaces(db, { organizationId }, viewer, CREATED_ORDER, after, limit);
}

/** A space a viewer reaches, as reach-cache.ts keeps it: its order key and the viewer's role on it. */
interface ReachedSpace {
  id: string;
  createdAt: string;
  role: RoleOrGuest;
}

/**
 * The live spaces of the organization the viewer sees, in creation order, with their role: the rule of
 * visibility.ts, computed when the organization's access has changed and kept otherwise (reach-cache.ts).
 * Without it a member who sees 100 of 1,000 spaces (default levels closed, grants through a team) read the
 * organization's 1,000 rows for every page, and a guest their grants, grouped and sorted.
 */
function reachedSpaces(db: Db, organizationId: string, viewer: ContentViewer): Promise<Reach<ReachedSpace> | undefined> {
  return cachedReach(db, 'spaces', organizationId, viewer.userId, async (limit) => {
    const rows = await liveSpacesOf(visibleSpacesFrom(db, organizationId, viewer, 'access_role'), { organizationId })
      .select(['s.id', 's.created_at'])
      .orderBy('s.created_at')
      .orderBy('s.id')
      .limit(limit + 1)
      .execute();
    return rows.map((row) => ({ id: row.id, createdAt: row.created_at, role: parseRole(row.access_role) }));
  });
}

/**
 * A page of a kept reach: the rows of its spaces, read by id, in the reach's order (the database's, so
 * cursors are the SQL list's). Undefined when the cursor's space is no longer reached: where it falls in
 * the order is then for the SQL to compare.
 */
async function pageOfReach(
  db: Db,
  organizationId: string,
  reach: Reach<ReachedSpace>,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<VisibleSpace> | undefined> {
  let start = 0;
  if (after) {
    const index = reach.indexOf.get(String(after[1]));
    if (index === undefined || reach.entries[index]!.createdAt !== after[0]) return undefined;
    start = index + 1;
  }
  const entries = reach.entries.slice(start, start + limit);
  const rows = new Map((await findSpacesByIds(db, entries.map((entry) => entry.id))).map((row) => [row.id, row]));
  // A space deleted or moved since the reach was read (the version has moved: the next request computes it
  // again) is left out rather than shown.
  const pageRows = entries.flatMap((entry) => {
    const row = rows.get(entry.id);
    return row !== undefined && row.deleted_at === null && row.organization_id === organizationId ? [{ space: row, role: entry.role }] : [];
  });
  const last = entries[entries.length - 1];
  const hasMore = start + limit < reach.entries.length;
  return { rows: pageRows, count: reach.entries.length, ...(hasMore && last !== undefined ? { nextKey: [last.createdAt, last.id] } : {}) };
}

/** The spaces (deleted or not) with these ids, in no particular order. */
async function findSpacesByIds(db: Db, ids: readonly string[]): Promise<SpaceRow[]> {
  if (ids.length === 0) return [];
  const rows: SpaceRow[] = [];
  for (const chunk of chunks(ids)) rows.push(...await db.selectFrom('spaces').selectAll().where('id', 'in', chunk).execute());
  return rows;
}

/** The live spaces directly inside the collection that the viewer sees, in their order there, with their role on each. */
export async function listSpacesInCollection(
  db: Db,
  collection: { id: string; organizationId: string },
  viewer: ContentViewer,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<VisibleSpace>> {
  return pageOfVisibleSpaces(db, { organizationId: collection.organizationId, collectionId: collection.id }, viewer, POSITION_ORDER, after, limit);
}

/** A space a member reaches, with their role on it and the role of the caller who asks. */
export interface MemberSpace {
  space: SpaceRow;
  memberRole: RoleOrGuest;
  callerRole: RoleOrGuest;
}

/**
 * The live spaces of the organization the member reaches and the caller sees too, in creation order (`desc`:
 * most recent first), so that asking about someone else never reveals content hidden from the caller.
 */
export async function listSpacesOfMember(
  db: Db,
  organizationId: string,
  viewers: { member: ContentViewer; caller: ContentViewer },
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
  direction: 'asc' | 'desc',
): Promise<KeysetPage<MemberSpace>> {
  const query = withContentAccess(liveSpacesIn(db, { organizationId }).selectAll('s'), {
    organizationId,
    content: { spaces: 's' },
    viewers: [{ viewer: viewers.member, roleAs: 'member_role' }, { viewer: viewers.caller, roleAs: 'caller_role' }],
  });
  const page = await keysetPage(query, { ...CREATED_ORDER, direction }, after, limit);
  return {
    ...page,
    rows: page.rows.map((row) => ({ space: row, memberRole: parseRole(row.member_role), callerRole: parseRole(row.caller_role) })),
  };
}

/**
 * How many live spaces of the organization each viewer sees (members' `spaces` counts), in one pass over
 * the spaces: a role column per viewer, null where they cannot see the space, counted.
 */
export async function countSpacesInOrganization(db: Db, organizationId: string, viewers: readonly ContentViewer[]): Promise<number[]> {
  if (viewers.length === 0) return [];
  const columns = viewers.map((_, index) => `role_${index}`);
  const roles = withContentAccess(liveSpacesIn(db, { organizationId }).select('s.id'), {
    organizationId, content: { spaces: 's' }, viewers: viewers.map((viewer, index) => ({ viewer, roleAs: columns[index]!, filter: false as const })),
  });
  const row = await db.selectFrom(roles.as('v')).select(columns.map((column) => sql<number>`count(${sql.ref(`v.${column}`)})`.as(column))).executeTakeFirst();
  return columns.map((column) => toCount((row as Record<string, unknown> | undefined)?.[column]));
}
