import { sql, type ExpressionBuilder, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { OrganizationMembersTable, OrganizationsTable } from '../db/schema.js';
import { prepared } from './prepared.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';

export type OrganizationRow = Selectable<OrganizationsTable>;
export type MembershipRow = Selectable<OrganizationMembersTable>;

/** An organization together with one user's membership in it. */
export interface OrganizationWithMembership {
  organization: OrganizationRow;
  membership: MembershipRow;
  /** Whether the user owns at least one team of the organization (the `ownTeam` permission). */
  ownsTeam: boolean;
}

/** 1 when the member of the joined row owns a team of the joined organization, else 0 (both dialects). */
const ownsTeamColumn = (eb: ExpressionBuilder<any, any>) => eb.case()
  .when(eb.exists(eb.selectFrom('team_members as tm')
    .innerJoin('teams as t', 't.id', 'tm.team_id')
    .select(sql<number>`1`.as('one'))
    .whereRef('t.organization_id', '=', 'o.id')
    .whereRef('tm.user_id', '=', 'm.user_id')
    .where('tm.role', '=', 'owner')))
  .then(1).else(0).end().as('owns_team');

export async function insertOrganization(db: Db, organization: Insertable<OrganizationsTable>): Promise<void> {
  await db.insertInto('organizations').values(organization).execute();
}

export async function findOrganizationById(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findMembership(db: Db, organizationId: string, userId: string): Promise<MembershipRow | undefined> {
  return db.selectFrom('organization_members').selectAll()
    .where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst();
}

/** The caller's memberships in the organizations `userId` also belongs to (as a member or a guest, in any state). */
export async function findSharedMemberships(db: Db, callerId: string, userId: string): Promise<MembershipRow[]> {
  return db.selectFrom('organization_members as mine').selectAll('mine')
    .where('mine.user_id', '=', callerId)
    .where('mine.organization_id', 'in', db.selectFrom('organization_members').select('organization_id').where('user_id', '=', userId))
    .execute();
}

/** Adds the member, or changes the role of an existing one (re-enabling a disabled membership). */
export async function upsertMembership(db: Db, membership: MembershipRow): Promise<void> {
  await db.insertInto('organization_members').values(membership)
    .onConflict((conflict) => conflict.columns(['organization_id', 'user_id']).doUpdateSet({ role: membership.role, disabled: 0 }))
    .execute();
}

/** Organizations joined with memberships in them, as `splitMembershipRow` reads them. */
function selectOrganizationsWithMembership(db: Db) {
  return db
    .selectFrom('organizations as o')
    .innerJoin('organization_members as m', 'm.organization_id', 'o.id')
    .selectAll('o')
    .select(['m.user_id', 'm.role', 'm.joined_at', 'm.last_seen_at', 'm.sso as member_sso', 'm.disabled'])
    .select(ownsTeamColumn);
}

const organizationForMember = prepared((db: Db, organizationId: string, userId: string) => selectOrganizationsWithMembership(db)
  .where('o.id', '=', organizationId)
  .where('m.user_id', '=', userId));

/** An organization with the user's membership in it; most requests start with this lookup. */
export async function findOrganizationForMember(db: Db, organizationId: string, userId: string): Promise<OrganizationWithMembership | undefined> {
  const [row] = await organizationForMember(db, organizationId, userId);
  return row ? splitMembershipRow(row) : undefined;
}

type JoinedRow = OrganizationRow & { user_id: string; role: string | null; joined_at: string; last_seen_at: string | null; member_sso: number; disabled: number; owns_team: number | string };

function splitMembershipRow(row: JoinedRow): OrganizationWithMembership {
  const { user_id, role, joined_at, last_seen_at, member_sso, disabled, owns_team, ...organization } = row;
  return {
    organization,
    membership: { organization_id: organization.id, user_id, role, joined_at, last_seen_at, sso: member_sso, disabled },
    ownsTeam: Number(owns_team) === 1,
  };
}

const MEMBER_ORGANIZATION_ORDER: KeysetOrder<JoinedRow> = {
  columns: ['o.created_at', 'o.id'],
  keyOf: (row) => [row.created_at, row.id],
};
export const MEMBER_ORGANIZATION_ORDER_KEY_LENGTH = MEMBER_ORGANIZATION_ORDER.columns.length;

/** The organizations a user belongs to (enabled memberships), oldest first. */
export async function listOrganizationsOfUser(
  db: Db,
  userId: string,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
  onlyOrganizationId?: string,
): Promise<KeysetPage<OrganizationWithMembership>> {
  let query = selectOrganizationsWithMembership(db)
    .where('m.user_id', '=', userId)
    .where('m.disabled', '=', 0);
  if (onlyOrganizationId !== undefined) query = query.where('o.id', '=', onlyOrganizationId);
  const page = await keysetPage(query, MEMBER_ORGANIZATION_ORDER, after, limit);
  return { ...page, rows: page.rows.map(splitMembershipRow) };
}

export async function updateOrganizationRow(db: Db, id: string, patch: Updateable<OrganizationsTable>): Promise<void> {
  await db.updateTable('organizations').set(patch).where('id', '=', id).execute();
}

/** At most this many organizations are answered for one e-mail domain: a bound on one answer, far above real use. */
export const MAX_ORGANIZATIONS_FOR_DOMAIN = 1000;

/**
 * The organizations a user belongs to (enabled memberships) whose `email_domains` holds `domain`, oldest
 * first. `domain` is lower case and made of letters, digits, dots and hyphens only (the contract's pattern),
 * so it cannot escape the JSON string it is looked for as, nor be a LIKE wildcard.
 */
export async function listOrganizationsOfUserDeclaringDomain(db: Db, userId: string, domain: string, onlyOrganizationId?: string): Promise<OrganizationWithMembership[]> {
  let query = selectOrganizationsWithMembership(db)
    .where('m.user_id', '=', userId)
    .where('m.disabled', '=', 0)
    .where('o.email_domains', 'like', `%${JSON.stringify(domain)}%`);
  if (onlyOrganizationId !== undefined) query = query.where('o.id', '=', onlyOrganizationId);
  const rows = await query.orderBy('o.created_at').orderBy('o.id').limit(MAX_ORGANIZATIONS_FOR_DOMAIN).execute();
  return rows.map(splitMembershipRow);
}
