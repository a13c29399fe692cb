import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import { rank, type Role } from '../policies/roles.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { prepared } from './prepared.js';
import type { UserRow } from './user-store.js';

/*
 * Roles granted on spaces and collections to users and teams (0161). What a grant means for visibility is
 * in policies/visibility-policy.ts (`contentRole`) and stores/visibility.ts (`withContentAccess`).
 */

export type GrantTarget = { kind: 'space'; id: string } | { kind: 'collection'; id: string };
export type Principal = { kind: 'user'; id: string } | { kind: 'team'; id: string };

function tableOf(target: GrantTarget) {
  return target.kind === 'space' ? ({ table: 'space_grants', column: 'space_id' } as const) : ({ table: 'collection_grants', column: 'collection_id' } as const);
}

/** Grants `role` to each principal on the target; an existing grant takes the new role. */
export async function upsertGrants(db: Db, target: GrantTarget, principals: readonly Principal[], role: Role, at: string): Promise<void> {
  if (principals.length === 0) return;
  const { table, column } = tableOf(target);
  const rows = principals.map((principal) => ({
    [column]: target.id,
    principal: principal.kind,
    principal_id: principal.id,
    user_id: principal.kind === 'user' ? principal.id : null,
    team_id: principal.kind === 'team' ? principal.id : null,
    role,
    role_rank: rank(role),
    created_at: at,
  }));
  await (db.insertInto(table) as any).values(rows)
    .onConflict((conflict: any) => conflict.columns([column, 'principal', 'principal_id']).doUpdateSet({ role, role_rank: rank(role) }))
    .execute();
}

/** Changes one grant's role; answers whether there was one. */
export async function updateGrant(db: Db, target: GrantTarget, principal: Principal, role: Role): Promise<boolean> {
  const { table, column } = tableOf(target);
  const result = await (db.updateTable(table) as any).set({ role, role_rank: rank(role) })
    .where(column, '=', target.id).where('principal', '=', principal.kind).where('principal_id', '=', principal.id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes one grant; answers whether there was one. */
export async function deleteGrant(db: Db, target: GrantTarget, principal: Principal): Promise<boolean> {
  const { table, column } = tableOf(target);
  const result = await (db.deleteFrom(table) as any)
    .where(column, '=', target.id).where('principal', '=', principal.kind).where('principal_id', '=', principal.id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A member leaving the organization loses every grant they had on its content, at once. */
export async function deleteUserGrantsInOrganization(db: Db, organizationId: string, userId: string): Promise<void> {
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
export async function grantedRolesOnCollections(db: Db, userId: string, collectionIds: readonly string[]): Promise<Role[]> {
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
export async function grantedRolesOnSpace(db: Db, userId: string, spaceId: string): Promise<Role[]> {
  return (await rolesOnSpace(db, userId, spaceId)).map((row) => row.role as Role);
}

export interface GrantListing {
  role: Role;
  principal: 'user' | 'team';
  user?: UserRow;
  team?: { id: string; title: string };
}

type GrantRow = {
  principal: string; principal_id: string; role: string; created_at: string;
  email: string | null; display_name: string | null; photo_url: string | null; user_created_at: string | null; team_title: string | null;
};

/** Teams first, then users (`team` sorts before `user`); within each, oldest grant first. */
const GRANT_ORDER: KeysetOrder<GrantRow> = { columns: ['g.principal', 'g.created_at', 'g.principal_id'], keyOf: (row) => [row.principal, row.created_at, row.principal_id] };
export const GRANT_ORDER_KEY_LENGTH = 3;

export async function listGrants(db: Db, target: GrantTarget, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<GrantListing>> {
  const { table, column } = tableOf(target);
  const query = (db.selectFrom(`${table} as g` as 'space_grants as g') as any)
    .leftJoin('users as u', 'u.id', 'g.user_id')
    .leftJoin('teams as t', 't.id', 'g.team_id')
    .select(['g.principal', 'g.principal_id', 'g.role', 'g.created_at', 'u.email', 'u.display_name', 'u.photo_url', 'u.created_at as user_created_at', 't.title as team_title'])
    .where(`g.${column}`, '=', target.id);
  const page = await keysetPage(query, GRANT_ORDER, after, limit);
  return {
    ...page,
    rows: (page.rows as GrantRow[]).map((row) => ({
      role: row.role as Role,
      principal: row.principal as 'user' | 'team',
      ...(row.principal === 'user'
        ? { user: { id: row.principal_id, email: row.email!, display_name: row.display_name!, photo_url: row.photo_url, created_at: row.user_created_at! } }
        : { team: { id: row.principal_id, title: row.team_title ?? '' } }),
    })),
  };
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
