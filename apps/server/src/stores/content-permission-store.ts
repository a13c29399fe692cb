import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import { rank, type Role } from '../policies/roles.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { prepared } from './prepared.js';
import { userDetailColumns, userFrom } from './user-columns.js';
import type { UserRow } from './user-store.js';

/*
 * Content permissions: roles granted on spaces and collections to users and teams (0161). What one means for
 * visibility is in policies/visibility-policy.ts (`contentRole`) and stores/visibility.ts (`withContentAccess`).
 * The tables keep the names migration 0161 gave them, `space_grants` and `collection_grants`: migrations
 * already run are never rewritten, and renaming tables would cost a migration for a word.
 */

export type PermissionTarget = { kind: 'space'; id: string } | { kind: 'collection'; id: string };
export type Principal = { kind: 'user'; id: string } | { kind: 'team'; id: string };

function tableOf(target: PermissionTarget) {
  return target.kind === 'space' ? ({ table: 'space_grants', column: 'space_id' } as const) : ({ table: 'collection_grants', column: 'collection_id' } as const);
}

/** The row that grants `role` on `target` to one principal. */
function permissionRow(column: string, target: PermissionTarget, principal: Principal, role: Role, at: string) {
  return {
    [column]: target.id,
    principal: principal.kind,
    principal_id: principal.id,
    user_id: principal.kind === 'user' ? principal.id : null,
    team_id: principal.kind === 'team' ? principal.id : null,
    role,
    role_rank: rank(role),
    created_at: at,
  };
}

/** Grants `role` to each principal on the target; an existing permission takes the new role. */
export async function upsertPermissions(db: Db, target: PermissionTarget, principals: readonly Principal[], role: Role, at: string): Promise<void> {
  if (principals.length === 0) return;
  const { table, column } = tableOf(target);
  const rows = principals.map((principal) => permissionRow(column, target, principal, role, at));
  await (db.insertInto(table) as any).values(rows)
    .onConflict((conflict: any) => conflict.columns([column, 'principal', 'principal_id']).doUpdateSet({ role, role_rank: rank(role) }))
    .execute();
}

/**
 * Grants `role` to one principal unless they hold a higher one there already (joining with an invite link
 * never lowers what someone had): the conflict's update applies only over a lower rank.
 */
export async function raisePermission(db: Db, target: PermissionTarget, principal: Principal, role: Role, at: string): Promise<void> {
  const { table, column } = tableOf(target);
  await (db.insertInto(table) as any).values(permissionRow(column, target, principal, role, at))
    .onConflict((conflict: any) => conflict.columns([column, 'principal', 'principal_id']).doUpdateSet({ role, role_rank: rank(role) }).where(`${table}.role_rank`, '<', rank(role)))
    .execute();
}

/** Changes the role of one permission; answers whether there was one. */
export async function updatePermission(db: Db, target: PermissionTarget, principal: Principal, role: Role): Promise<boolean> {
  const { table, column } = tableOf(target);
  const result = await (db.updateTable(table) as any).set({ role, role_rank: rank(role) })
    .where(column, '=', target.id).where('principal', '=', principal.kind).where('principal_id', '=', principal.id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes one permission; answers whether there was one. */
export async function deletePermission(db: Db, target: PermissionTarget, principal: Principal): Promise<boolean> {
  const { table, column } = tableOf(target);
  const result = await (db.deleteFrom(table) as any)
    .where(column, '=', target.id).where('principal', '=', principal.kind).where('principal_id', '=', principal.id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A member leaving the organization loses every grant they had on its content, at once. */
export async function deleteUserPermissionsInOrganization(db: Db, organizationId: string, userId: string): Promise<void> {
  await db.deleteFrom('space_grants').where('user_id', '=', userId)
    .where('space_id', 'in', db.selectFrom('spaces').select('id').where('organization_id', '=', organizationId)).execute();
  await db.deleteFrom('collection_grants').where('user_id', '=', userId)
    .where('collection_id', 'in', db.selectFrom('collections').select('id').where('organization_id', '=', organizationId)).execute();
}

/** The teams of the user, as a subquery: a grant to one of them is a grant to the user. */
function teamsOf(db: Db, userId: string) {
  return db.selectFrom('team_members').select('team_id').where('user_id', '=', userId);
}

/** The roles granted to the user or to their teams on any of the collections given (those above an object, for a read of it). */
export async function permittedRolesOnCollections(db: Db, userId: string, collectionIds: readonly string[]): Promise<Role[]> {
  if (collectionIds.length === 0) return [];
  const rows = await db.selectFrom('collection_grants').select('role').where('collection_id', 'in', [...collectionIds])
    .where((eb) => eb.or([eb('user_id', '=', userId), eb('team_id', 'in', teamsOf(db, userId))])).execute();
  return rows.map((row) => row.role as Role);
}

// Prepared: every request about one space reads its grants (for members and guests).
const rolesOnSpace = prepared((db: Db, userId: string, spaceId: string) => db
  .selectFrom('space_grants')
  .select('role')
  .where('space_id', '=', spaceId)
  .where((eb) => eb.or([eb('user_id', '=', userId), eb('team_id', 'in', teamsOf(db, userId))])));

/** The roles granted to the user or to their teams on one space. */
export async function permittedRolesOnSpace(db: Db, userId: string, spaceId: string): Promise<Role[]> {
  return (await rolesOnSpace(db, userId, spaceId)).map((row) => row.role as Role);
}

export interface UserPermissionListing {
  role: Role;
  user: UserRow;
}

type PermissionRow = { principal: string; principal_id: string; role: string; created_at: string };

/** Oldest grant first (the principal is fixed by each list, so it only completes the key). */
const PERMISSION_ORDER: KeysetOrder<PermissionRow> = { columns: ['g.principal', 'g.created_at', 'g.principal_id'], keyOf: (row) => [row.principal, row.created_at, row.principal_id] };
export const PERMISSION_ORDER_KEY_LENGTH = 3;

function grantsOfKind(db: Db, target: PermissionTarget, principal: Principal['kind']) {
  const { table, column } = tableOf(target);
  return (db.selectFrom(`${table} as g` as 'space_grants as g') as any)
    .where(`g.${column}`, '=', target.id).where('g.principal', '=', principal);
}

/** One page of the roles granted on the target to users, with the users. */
export async function listUserPermissions(db: Db, target: PermissionTarget, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<UserPermissionListing>> {
  const query = grantsOfKind(db, target, 'user').innerJoin('users as u', 'u.id', 'g.user_id')
    .select(['g.principal', 'g.principal_id', 'g.role', 'g.created_at', ...userDetailColumns('u', 'user')]);
  const page = await keysetPage(query, PERMISSION_ORDER, after, limit);
  return { ...page, rows: (page.rows as PermissionRow[]).map((row) => ({ role: row.role as Role, user: userFrom('user', row, row.principal_id) })) };
}

/** One page of the roles granted on the target to teams, as team ids (the team store details them). */
export async function listTeamPermissions(db: Db, target: PermissionTarget, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<{ role: Role; teamId: string }>> {
  const query = grantsOfKind(db, target, 'team').select(['g.principal', 'g.principal_id', 'g.role', 'g.created_at']);
  const page = await keysetPage(query, PERMISSION_ORDER, after, limit);
  return { ...page, rows: (page.rows as PermissionRow[]).map((row) => ({ role: row.role as Role, teamId: row.principal_id })) };
}

export interface GrantRecord {
  principal: Principal;
  role: Role;
}

/** Every grant on these spaces and collections (an object and the collections above it), to users and teams. */
export async function grantsOnContent(db: Db, spaceIds: readonly string[], collectionIds: readonly string[]): Promise<GrantRecord[]> {
  const rows: Array<{ principal: string; principal_id: string; role: string }> = [];
  if (spaceIds.length > 0) rows.push(...await db.selectFrom('space_grants').select(['principal', 'principal_id', 'role']).where('space_id', 'in', [...spaceIds]).execute());
  if (collectionIds.length > 0) rows.push(...await db.selectFrom('collection_grants').select(['principal', 'principal_id', 'role']).where('collection_id', 'in', [...collectionIds]).execute());
  return rows.map((row) => ({ principal: { kind: row.principal as Principal['kind'], id: row.principal_id }, role: row.role as Role }));
}

/** Ids among `teamIds` that are teams of the organization. */
export async function findTeamIdsIn(db: Db, organizationId: string, teamIds: readonly string[]): Promise<Set<string>> {
  if (teamIds.length === 0) return new Set();
  const rows = await db.selectFrom('teams').select('id').where('organization_id', '=', organizationId).where('id', 'in', [...teamIds]).execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * How many spaces (not deleted) each team has access to through grants: granted on the space, or on its
 * collection or any collection above it.
 */
export async function countTeamSpaces(db: Db, teamIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (teamIds.length === 0) return counts;
  const result = await sql<{ team_id: string; spaces: unknown }>`
    with recursive granted(team_id, collection_id) as (
      select team_id, collection_id from collection_grants where team_id in (${sql.join(teamIds)})
      union
      select granted.team_id, c.id from collections c inner join granted on c.parent_id = granted.collection_id
    ),
    reached(team_id, space_id) as (
      select team_id, space_id from space_grants where team_id in (${sql.join(teamIds)})
      union
      select granted.team_id, s.id from granted inner join spaces s on s.collection_id = granted.collection_id
    )
    select reached.team_id, count(*) as spaces from reached inner join spaces s on s.id = reached.space_id
    where s.deleted_at is null group by reached.team_id`.execute(db);
  for (const row of result.rows) counts.set(row.team_id, toCount(row.spaces));
  return counts;
}
