import { sql, type Selectable, type Updateable } from 'kysely';
import type { Db, DialectName } from '../db/index.js';
import type { CollectionsTable } from '../db/schema.js';
import { parseRole, type RoleOrGuest } from '../policies/roles.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { contentWithMembership, type MembershipState } from './content-membership.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { withContentAccess } from './visibility.js';

export type CollectionRow = Selectable<CollectionsTable>;

/** Collections nest; no chain is deeper than this (a guard against a corrupt cycle, which moves prevent). */
const MAX_DEPTH = 64;

export async function insertCollection(db: Db, row: CollectionRow): Promise<void> {
  await db.insertInto('collections').values(row).execute();
}

export async function findCollectionById(db: Db, id: string): Promise<CollectionRow | undefined> {
  return db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirst();
}

const collectionWithMembership = contentWithMembership('collections');

/** A collection with the user's membership in its organization (undefined when they are not a member). */
export async function findCollectionForMember(db: Db, collectionId: string, userId: string): Promise<{ collection: CollectionRow; membership: MembershipState | undefined } | undefined> {
  const found = await collectionWithMembership(db, collectionId, userId);
  return found && { collection: found.row, membership: found.membership };
}

/** The collection and its ancestors, nearest first (empty when it does not exist). */
export async function findCollectionAncestry(db: Db, collectionId: string): Promise<CollectionRow[]> {
  const result = await sql<CollectionRow & { depth: number }>`
    with recursive chain as (
      select c.*, 0 as depth from collections c where c.id = ${collectionId}
      union all
      select p.*, chain.depth + 1 from collections p inner join chain on p.id = chain.parent_id where chain.depth < ${MAX_DEPTH}
    )
    select * from chain order by depth`.execute(db);
  return result.rows.map(({ depth: _depth, ...row }) => row);
}

/** The ids of the collection and of every collection inside it, at any depth. */
export async function findCollectionSubtreeIds(db: Db, collectionId: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    with recursive subtree(id) as (
      select id from collections where id = ${collectionId}
      union
      select c.id from collections c inner join subtree on c.parent_id = subtree.id
    )
    select id from subtree`.execute(db);
  return result.rows.map((row) => row.id);
}

/** Collections listed across the whole organization come in creation order. */
const CREATED_ORDER: KeysetOrder<CollectionRow> = { columns: ['c.created_at', 'c.id'], keyOf: (row) => [row.created_at, row.id] };
/** Siblings come in their order under their parent. */
const POSITION_ORDER: KeysetOrder<CollectionRow> = { columns: ['c.position', 'c.id'], keyOf: (row) => [row.position, row.id] };
export const COLLECTION_ORDER_KEY_LENGTH = 2;

/** A collection of a list, with the role on it of the viewer the list is for. */
export interface VisibleCollection {
  collection: CollectionRow;
  role: RoleOrGuest;
}

/** The collections of the organization the viewer sees (only the top level ones with `topLevelOnly`), with their role on each. */
export async function listCollectionsInOrganization(
  db: Db,
  organizationId: string,
  options: { topLevelOnly: boolean; viewer: ContentViewer },
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<VisibleCollection>> {
  let query = db.selectFrom('collections as c').selectAll('c').where('c.organization_id', '=', organizationId);
  if (options.topLevelOnly) query = query.where('c.parent_id', 'is', null);
  const visible = withContentAccess(query, { organizationId, content: { collections: 'c' }, viewers: [{ viewer: options.viewer, roleAs: 'access_role' }] });
  const page = await keysetPage(visible, options.topLevelOnly ? POSITION_ORDER : CREATED_ORDER, after, limit);
  // The row keeps its role column (CollectionRow does not name it), as lists of spaces do.
  return { ...page, rows: page.rows.map((row) => ({ collection: row, role: parseRole(row.access_role) })) };
}

export async function updateCollection(db: Db, id: string, patch: Updateable<CollectionsTable>): Promise<void> {
  await db.updateTable('collections').set(patch).where('id', '=', id).execute();
}

/** Deletes the collection; the collections inside it go with it (foreign key cascade). */
export async function deleteCollection(db: Db, id: string): Promise<void> {
  await db.deleteFrom('collections').where('id', '=', id).execute();
}

export async function setCollectionsOrganization(db: Db, ids: readonly string[], organizationId: string): Promise<void> {
  for (const chunk of chunks(ids)) await db.updateTable('collections').set({ organization_id: organizationId }).where('id', 'in', chunk).execute();
}

/**
 * Serialises changes to the structure (sibling positions, parents, deletions, transfers) of these
 * organizations until the transaction ends, so that two concurrent writers never make the same position
 * key or put content into a collection being deleted. Locks are taken in id order to avoid deadlocks.
 * SQLite transactions begin immediate and are already exclusive.
 */
export async function lockOrganizationStructure(db: Db, dialect: DialectName, organizationIds: readonly string[]): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const id of [...new Set(organizationIds)].sort()) {
    await db.selectFrom('organizations').select('id').where('id', '=', id).forUpdate().execute();
  }
}

/** An item among siblings: a collection or a (live) space under the same parent. */
export interface Sibling {
  type: 'collection' | 'space';
  id: string;
  position: string;
}

interface SiblingScope {
  organizationId: string;
  /** null for the top level of the organization. */
  parentId: string | null;
  /** The item being placed, which is not its own neighbour. */
  excludeId?: string;
}

function siblingsQuery(db: Db, scope: SiblingScope) {
  const parentMatches = (column: string) => (scope.parentId === null ? sql`${sql.ref(column)} is null` : sql`${sql.ref(column)} = ${scope.parentId}`);
  const exclude = scope.excludeId ?? '';
  return sql`
    select 'collection' as type, id, position from collections
      where organization_id = ${scope.organizationId} and ${parentMatches('parent_id')} and id <> ${exclude}
    union all
    select 'space' as type, id, position from spaces
      where organization_id = ${scope.organizationId} and ${parentMatches('collection_id')} and deleted_at is null and id <> ${exclude}`;
}

/** The last sibling under the parent, if any. */
export async function findLastSibling(db: Db, scope: SiblingScope): Promise<Sibling | undefined> {
  const result = await sql<Sibling>`select type, id, position from (${siblingsQuery(db, scope)}) siblings order by position desc, id desc limit 1`.execute(db);
  return result.rows[0];
}

/** The sibling just before (`direction` before) or just after a position under the parent, if any. */
export async function findNeighbourSibling(db: Db, scope: SiblingScope, position: string, direction: 'before' | 'after'): Promise<Sibling | undefined> {
  const result = direction === 'before'
    ? await sql<Sibling>`select type, id, position from (${siblingsQuery(db, scope)}) siblings where position < ${position} order by position desc, id desc limit 1`.execute(db)
    : await sql<Sibling>`select type, id, position from (${siblingsQuery(db, scope)}) siblings where position > ${position} order by position asc, id asc limit 1`.execute(db);
  return result.rows[0];
}

/** Lists for `in` clauses stay well under the bound-parameter limits of both databases. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}
