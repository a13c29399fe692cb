import { sql, type RawBuilder, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import type { SpacesTable } from '../db/schema.js';
import type { ContentVisibilityFilter } from '../policies/collection-policy.js';
import { ROLES } from '../policies/roles.js';
import { chunks, type MembershipState } from './collection-store.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { prepared } from './prepared.js';

export type SpaceRow = Selectable<SpacesTable>;

export async function insertSpace(db: Db, row: SpaceRow): Promise<void> {
  await db.insertInto('spaces').values(row).execute();
}

export async function findSpaceById(db: Db, id: string): Promise<SpaceRow | undefined> {
  return db.selectFrom('spaces').selectAll().where('id', '=', id).executeTakeFirst();
}

const spaceForMember = prepared((db: Db, spaceId: string, userId: string) => db
  .selectFrom('spaces as s')
  .leftJoin('organization_members as m', (join) => join.onRef('m.organization_id', '=', 's.organization_id').on('m.user_id', '=', userId))
  .selectAll('s')
  .select(['m.role as member_role', 'm.disabled as member_disabled', 'm.user_id as member_user_id'])
  .where('s.id', '=', spaceId));

/** A space (deleted or not) with the user's membership in its organization, in one lookup: every space request starts here. */
export async function findSpaceForMember(db: Db, spaceId: string, userId: string): Promise<{ space: SpaceRow; membership: MembershipState | undefined } | undefined> {
  const [row] = await spaceForMember(db, spaceId, userId);
  if (!row) return undefined;
  const { member_role, member_disabled, member_user_id, ...space } = row;
  return { space, membership: member_user_id === null ? undefined : { role: member_role, disabled: member_disabled ?? 0 } };
}

export async function updateSpace(db: Db, id: string, patch: Updateable<SpacesTable>): Promise<void> {
  await db.updateTable('spaces').set(patch).where('id', '=', id).execute();
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
}

/** Removes the space for good, its revisions with it (foreign key cascade). */
export async function deleteSpaceRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('spaces').where('id', '=', id).execute();
}

/** Spaces listed across the organization come in creation order; those of a collection in their order there. */
const CREATED_ORDER: KeysetOrder<SpaceRow> = { columns: ['created_at', 'id'], keyOf: (row) => [row.created_at, row.id] };
const POSITION_ORDER: KeysetOrder<SpaceRow> = { columns: ['position', 'id'], keyOf: (row) => [row.position, row.id] };
export const SPACE_ORDER_KEY_LENGTH = 2;

/** The rule of `passesVisibilityFilter` (collection-policy) as a condition on the spaces table; undefined lets everything through. */
function visibleSpaces(filter: ContentVisibilityFilter): RawBuilder<boolean> | undefined {
  if (filter.kind !== 'members') return undefined;
  const roles = sql.join(ROLES.map((role) => sql.lit(role)));
  const hidden = filter.hiddenCollections;
  const inheritsVisibly = hidden.length > 0
    ? sql`(collection_id is null or collection_id not in (${sql.join(hidden.map((id) => sql.val(id)))}))`
    : sql`1 = 1`;
  return sql<boolean>`(default_level in (${roles}) or (default_level = 'inherit' and ${inheritsVisibly}))`;
}

export async function listSpacesInOrganization(
  db: Db,
  organizationId: string,
  filter: ContentVisibilityFilter,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
  /** `desc`: most recently created first (the member's space list). */
  direction: 'asc' | 'desc' = 'asc',
): Promise<KeysetPage<SpaceRow>> {
  if (filter.kind === 'none') return { rows: [], count: 0 };
  let query = db.selectFrom('spaces').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
  const visible = visibleSpaces(filter);
  if (visible) query = query.where(visible);
  return keysetPage(query, { ...CREATED_ORDER, direction }, after, limit);
}

/** How many live spaces of the organization pass the filter (a member's `spaces` count). */
export async function countSpacesInOrganization(db: Db, organizationId: string, filter: ContentVisibilityFilter): Promise<number> {
  if (filter.kind === 'none') return 0;
  let query = db.selectFrom('spaces').select((eb) => eb.fn.countAll().as('count')).where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
  const visible = visibleSpaces(filter);
  if (visible) query = query.where(visible);
  const row = await query.executeTakeFirst();
  return toCount(row?.count);
}

export async function listSpacesInCollection(
  db: Db,
  collectionId: string,
  filter: ContentVisibilityFilter,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<SpaceRow>> {
  if (filter.kind === 'none') return { rows: [], count: 0 };
  let query = db.selectFrom('spaces').selectAll().where('collection_id', '=', collectionId).where('deleted_at', 'is', null);
  const visible = visibleSpaces(filter);
  if (visible) query = query.where(visible);
  return keysetPage(query, POSITION_ORDER, after, limit);
}
