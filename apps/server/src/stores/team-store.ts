import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import type { TeamMemberRole, TeamMembersTable, TeamsTable } from '../db/schema.js';
import { countTeamSpaces } from './content-permission-store.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { containsPattern, selectMemberDetails, withTeamCount, type MemberRecord } from './member-store.js';

/** Teams of an organization and their memberships. */

export type TeamRow = Selectable<TeamsTable>;
export type TeamMemberRow = Selectable<TeamMembersTable>;

/** A team with the numbers the API shows and the role of the caller in it (null when not in it). */
export interface TeamDetailRow extends TeamRow {
  members: number;
  spaces: number;
  caller_role: TeamMemberRole | null;
}

function selectTeamDetails(db: Db, callerId: string) {
  return db
    .selectFrom('teams as t')
    .selectAll('t')
    .select((eb) => [
      eb.selectFrom('team_members as ctm').select((inner) => inner.fn.countAll().as('count'))
        .whereRef('ctm.team_id', '=', 't.id').as('members'),
      // Filled in by `withSpaceCounts` below, from the grants of the team (one query per page).
      sql<number>`0`.as('spaces'),
      eb.selectFrom('team_members as rtm').select('rtm.role')
        .whereRef('rtm.team_id', '=', 't.id').where('rtm.user_id', '=', callerId).as('caller_role'),
    ]);
}

function toTeamDetail<Row extends TeamRow & { members: unknown; spaces: unknown; caller_role: TeamMemberRole | null }>(row: Row): Row & TeamDetailRow {
  return { ...row, members: toCount(row.members), spaces: toCount(row.spaces), caller_role: row.caller_role ?? null };
}

/** The teams with their real `spaces`: spaces (not deleted) granted to the team, directly or through a collection above them. */
async function withSpaceCounts<Row extends TeamDetailRow>(db: Db, rows: Row[]): Promise<Row[]> {
  const counts = await countTeamSpaces(db, rows.map((row) => row.id));
  return rows.map((row) => ({ ...row, spaces: counts.get(row.id) ?? 0 }));
}

const TEAM_ORDER: KeysetOrder<TeamRow> = {
  columns: ['t.created_at', 't.id'],
  keyOf: (row) => [row.created_at, row.id],
};
export const TEAM_ORDER_KEY_LENGTH = TEAM_ORDER.columns.length;

export async function insertTeam(db: Db, team: TeamRow): Promise<void> {
  await db.insertInto('teams').values(team).execute();
}

export async function findTeam(db: Db, organizationId: string, teamId: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('organization_id', '=', organizationId).where('id', '=', teamId).executeTakeFirst();
}

export async function findTeamDetails(db: Db, organizationId: string, teamId: string, callerId: string): Promise<TeamDetailRow | undefined> {
  const row = await selectTeamDetails(db, callerId)
    .where('t.organization_id', '=', organizationId)
    .where('t.id', '=', teamId)
    .executeTakeFirst();
  return row ? (await withSpaceCounts(db, [toTeamDetail(row)]))[0] : undefined;
}

/** The teams of the organization among `teamIds`, detailed as `findTeamDetails` does, by id. */
export async function findTeamDetailsByIds(db: Db, organizationId: string, teamIds: readonly string[], callerId: string): Promise<Map<string, TeamDetailRow>> {
  if (teamIds.length === 0) return new Map();
  const rows = await selectTeamDetails(db, callerId).where('t.organization_id', '=', organizationId).where('t.id', 'in', [...teamIds]).execute();
  return new Map((await withSpaceCounts(db, rows.map(toTeamDetail))).map((row) => [row.id, row]));
}

/** The members of each of these teams, by team id. */
export async function findTeamMemberIds(db: Db, teamIds: readonly string[]): Promise<Map<string, string[]>> {
  const members = new Map<string, string[]>();
  if (teamIds.length === 0) return members;
  const rows = await db.selectFrom('team_members').select(['team_id', 'user_id']).where('team_id', 'in', [...teamIds]).execute();
  for (const row of rows) members.set(row.team_id, [...(members.get(row.team_id) ?? []), row.user_id]);
  return members;
}

export interface TeamListFilter {
  title?: string;
  /** Only the teams this user is an owner of. */
  ownedBy?: string;
}

export async function listTeams(
  db: Db,
  organizationId: string,
  callerId: string,
  filter: TeamListFilter,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<TeamDetailRow>> {
  let query = selectTeamDetails(db, callerId).where('t.organization_id', '=', organizationId);
  if (filter.title) query = query.where(sql<boolean>`lower(t.title) like ${containsPattern(filter.title)} escape '\\'`);
  if (filter.ownedBy !== undefined) {
    const ownerId = filter.ownedBy;
    query = query.where((eb) => eb.exists(
      eb.selectFrom('team_members as otm').select('otm.user_id')
        .whereRef('otm.team_id', '=', 't.id').where('otm.user_id', '=', ownerId).where('otm.role', '=', 'owner'),
    ));
  }
  const page = await keysetPage(query, TEAM_ORDER, after, limit);
  return { ...page, rows: await withSpaceCounts(db, page.rows.map(toTeamDetail)) };
}

/** The teams a user is in, with their role in each. */
export async function listTeamsOfMember(
  db: Db,
  organizationId: string,
  userId: string,
  callerId: string,
  filter: { title?: string },
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<TeamDetailRow & { member_role: TeamMemberRole }>> {
  let query = selectTeamDetails(db, callerId)
    .innerJoin('team_members as mtm', 'mtm.team_id', 't.id')
    .select('mtm.role as member_role')
    .where('t.organization_id', '=', organizationId)
    .where('mtm.user_id', '=', userId);
  if (filter.title) query = query.where(sql<boolean>`lower(t.title) like ${containsPattern(filter.title)} escape '\\'`);
  const page = await keysetPage(query, TEAM_ORDER, after, limit);
  return { ...page, rows: await withSpaceCounts(db, page.rows.map(toTeamDetail)) };
}

export async function updateTeamTitle(db: Db, teamId: string, title: string, at: string): Promise<void> {
  await db.updateTable('teams').set({ title, updated_at: at }).where('id', '=', teamId).execute();
}

export async function touchTeam(db: Db, teamId: string, at: string): Promise<void> {
  await db.updateTable('teams').set({ updated_at: at }).where('id', '=', teamId).execute();
}

/** Deletes the team; its memberships go with it (foreign key cascade). */
export async function deleteTeam(db: Db, teamId: string): Promise<void> {
  await db.deleteFrom('team_members').where('team_id', '=', teamId).execute();
  await db.deleteFrom('teams').where('id', '=', teamId).execute();
}

export async function findTeamRole(db: Db, teamId: string, userId: string): Promise<TeamMemberRole | null> {
  const row = await db.selectFrom('team_members').select('role').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role ?? null;
}

/** The team roles of these users, for those in the team. */
export async function findTeamRoles(db: Db, teamId: string, userIds: readonly string[]): Promise<Map<string, TeamMemberRole>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom('team_members').select(['user_id', 'role'])
    .where('team_id', '=', teamId).where('user_id', 'in', [...userIds]).execute();
  return new Map(rows.map((row) => [row.user_id, row.role]));
}

/** Puts the user in the team with this role, or changes their role when they are in it already. */
export async function upsertTeamMember(db: Db, member: TeamMemberRow): Promise<void> {
  await db.insertInto('team_members').values(member)
    .onConflict((conflict) => conflict.columns(['team_id', 'user_id']).doUpdateSet({ role: member.role }))
    .execute();
}

/** Puts the user in the team unless they are in it already, in which case their role stays. */
export async function insertTeamMemberIfAbsent(db: Db, member: TeamMemberRow): Promise<void> {
  await db.insertInto('team_members').values(member)
    .onConflict((conflict) => conflict.columns(['team_id', 'user_id']).doNothing())
    .execute();
}

export async function deleteTeamMembers(db: Db, teamId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', 'in', [...userIds]).execute();
}

/** Takes the user out of every team of the organization. */
export async function deleteTeamMembershipsInOrganization(db: Db, organizationId: string, userId: string): Promise<void> {
  await db.deleteFrom('team_members')
    .where('user_id', '=', userId)
    .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('organization_id', '=', organizationId))
    .execute();
}

/** Ids of the teams of the organization the user is in, oldest team first. */
export async function listTeamIdsOfMember(db: Db, organizationId: string, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('teams as t')
    .innerJoin('team_members as tm', 'tm.team_id', 't.id')
    .select('t.id')
    .where('t.organization_id', '=', organizationId)
    .where('tm.user_id', '=', userId)
    .orderBy('t.created_at').orderBy('t.id')
    .execute();
  return rows.map((row) => row.id);
}

export type TeamMemberRecord = MemberRecord & { team_role: TeamMemberRole; added_at: string };
/** A team member with every number the API shows. */
export type TeamMemberDetailRow = TeamMemberRecord & { spaces: number };

const TEAM_MEMBER_ORDER: KeysetOrder<{ added_at: string; user_id: string }> = {
  columns: ['tm.added_at', 'm.user_id'],
  keyOf: (row) => [row.added_at, row.user_id],
};
export const TEAM_MEMBER_ORDER_KEY_LENGTH = TEAM_MEMBER_ORDER.columns.length;

/** The members of a team as organization members, with their team role, in the order they were added. */
export async function listTeamMembers(
  db: Db,
  organizationId: string,
  teamId: string,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<TeamMemberRecord>> {
  const query = selectMemberDetails(db)
    .innerJoin('team_members as tm', 'tm.user_id', 'm.user_id')
    .select(['tm.role as team_role', 'tm.added_at'])
    .where('m.organization_id', '=', organizationId)
    .where('tm.team_id', '=', teamId);
  const page = await keysetPage(query, TEAM_MEMBER_ORDER, after, limit);
  return { ...page, rows: page.rows.map(withTeamCount) };
}
