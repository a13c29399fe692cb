import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Database, Db, DialectName } from '../db/index.js';
import type { OrganizationMembersTable } from '../db/schema.js';
import { toCount } from '../db/dialect.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { userDetailColumns, userFrom } from './user-columns.js';
import { normalizeEmail, type UserRow } from './user-store.js';

/**
 * The members of an organization: rows of `organization_members` with their user and the number of teams
 * they are in. (The number of spaces they can reach depends on the content's default levels; the member
 * service adds it.)
 */

/** The membership row as stored, with its user and team count alongside. */
export interface MemberRecord extends Selectable<OrganizationMembersTable> {
  email: string;
  display_name: string;
  photo_url: string | null;
  user_created_at: string;
  teams: number;
}

/** A member with every number the API shows. */
export type MemberDetailRow = MemberRecord & { spaces: number };

type MemberScope = ExpressionBuilder<Database & { m: Database['organization_members'] }, 'm'>;

/** How many teams of the organization the member is in, for any query that has `organization_members as m`. */
function memberTeamCount(eb: MemberScope) {
  return eb.selectFrom('team_members as mtm')
    .innerJoin('teams as mt', 'mt.id', 'mtm.team_id')
    .select((inner) => inner.fn.countAll().as('count'))
    .whereRef('mtm.user_id', '=', 'm.user_id')
    .whereRef('mt.organization_id', '=', 'm.organization_id');
}

/** Selects every member of every organization with their user; callers narrow it down. */
export function selectMemberDetails(db: Db) {
  return db
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'm.organization_id', 'm.user_id', 'm.role', 'm.joined_at', 'm.last_seen_at', 'm.sso', 'm.disabled',
      'u.email', 'u.display_name', 'u.photo_url', 'u.created_at as user_created_at',
    ])
    .select((eb) => memberTeamCount(eb as unknown as MemberScope).as('teams'));
}

/** Every member and guest of the organization with their user and membership state, by user id. */
export async function listMembershipsWithUsers(db: Db, organizationId: string): Promise<Array<{ user: UserRow; role: string | null; disabled: number }>> {
  const rows = await db.selectFrom('organization_members as m').innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.role', 'm.disabled', ...userDetailColumns('u', 'user')])
    .where('m.organization_id', '=', organizationId).orderBy('m.user_id').execute();
  return rows.map((row) => ({ user: userFrom('user', row, row.user_id), role: row.role, disabled: row.disabled }));
}

/** PostgreSQL answers counts as bigint strings; the API wants numbers. */
export function withTeamCount<Row extends { teams: unknown }>(row: Row): Omit<Row, 'teams'> & { teams: number } {
  return { ...row, teams: toCount(row.teams) };
}

export async function findMemberRecord(db: Db, organizationId: string, userId: string): Promise<MemberRecord | undefined> {
  const row = await selectMemberDetails(db)
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
  return row ? withTeamCount(row) : undefined;
}

/** `%text%` for LIKE, with the wildcards of the text itself escaped (the queries say `escape '\'`). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

export interface MemberListFilter {
  /** A role, or `guest` for members without one. */
  role?: string;
  search?: string;
  /** Whether `search` also matches e-mail addresses. */
  searchEmails: boolean;
  sort: 'joinedAt' | 'lastSeenAt';
  order: 'asc' | 'desc';
}

function memberOrder(sort: MemberListFilter['sort'], direction: MemberListFilter['order']): KeysetOrder<{ joined_at: string; last_seen_at: string | null; user_id: string }> {
  return sort === 'lastSeenAt'
    ? { columns: ['m.last_seen_at', 'm.user_id'], keyOf: (row) => [row.last_seen_at ?? '', row.user_id], direction }
    : { columns: ['m.joined_at', 'm.user_id'], keyOf: (row) => [row.joined_at, row.user_id], direction };
}
export const MEMBER_ORDER_KEY_LENGTH = 2;

export async function listMembers(
  db: Db,
  organizationId: string,
  filter: MemberListFilter,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<MemberRecord>> {
  let query = selectMemberDetails(db).where('m.organization_id', '=', organizationId);
  if (filter.role === 'guest') query = query.where('m.role', 'is', null);
  else if (filter.role !== undefined) query = query.where('m.role', '=', filter.role);
  if (filter.sort === 'lastSeenAt') query = query.where('m.last_seen_at', 'is not', null);
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    query = filter.searchEmails
      ? query.where(sql<boolean>`(lower(u.display_name) like ${pattern} escape '\\' or u.email like ${pattern} escape '\\')`)
      : query.where(sql<boolean>`lower(u.display_name) like ${pattern} escape '\\'`);
  }
  const page = await keysetPage(query, memberOrder(filter.sort, filter.order), after, limit);
  return { ...page, rows: page.rows.map(withTeamCount) };
}

export async function updateMemberRole(db: Db, organizationId: string, userId: string, role: string | null): Promise<void> {
  await db.updateTable('organization_members').set({ role })
    .where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

export async function markMemberSso(db: Db, organizationId: string, userId: string): Promise<void> {
  await db.updateTable('organization_members').set({ sso: 1 })
    .where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

export async function recordMemberSeen(db: Db, organizationId: string, userId: string, at: string): Promise<void> {
  await db.updateTable('organization_members').set({ last_seen_at: at })
    .where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

export async function deleteMember(db: Db, organizationId: string, userId: string): Promise<void> {
  await db.deleteFrom('organization_members')
    .where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

/** Admins of the organization whose access is not suspended, leaving one user out. */
export async function countActiveAdminsExcept(db: Db, organizationId: string, userId: string): Promise<number> {
  const row = await db.selectFrom('organization_members')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'admin')
    .where('disabled', '=', 0)
    .where('user_id', '<>', userId)
    .executeTakeFirst();
  return toCount(row?.count);
}

/**
 * Serialises changes to an organization's members and team memberships for the rest of the transaction:
 * two admins demoting each other at the same time cannot both pass the last-admin check, and a member
 * being removed cannot be put in a team meanwhile. SQLite transactions already hold the only write lock
 * (they begin immediate).
 */
export async function lockOrganizationMembers(db: Db, dialect: DialectName, organizationId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('organizations').select('id').where('id', '=', organizationId).forUpdate().execute();
}

/** Which of these user ids are members of the organization. */
export async function findMemberIds(db: Db, organizationId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom('organization_members').select('user_id')
    .where('organization_id', '=', organizationId).where('user_id', 'in', [...userIds]).execute();
  return new Set(rows.map((row) => row.user_id));
}

/** Members of the organization with these e-mail addresses, by normalised address. */
export async function findMemberIdsByEmail(db: Db, organizationId: string, emails: readonly string[]): Promise<Map<string, string>> {
  if (emails.length === 0) return new Map();
  const rows = await db.selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.email', 'm.user_id'])
    .where('m.organization_id', '=', organizationId)
    .where('u.email', 'in', emails.map(normalizeEmail))
    .execute();
  return new Map(rows.map((row) => [row.email, row.user_id]));
}
