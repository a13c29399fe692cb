import { lazyModule } from '../lazy-module.js';
import { deleteBrowserSessionsReaching } from '../stores/browser-session-store.js';
import type { Db } from '../db/index.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import {
  canListMembers,
  canManageMembers,
  canSearchMemberEmails,
  canViewMember,
  wouldRemoveLastAdmin,
  type MemberViewer,
} from '../policies/member-policy.js';
import { canViewOrganization, membershipFromRow } from '../policies/organization-policy.js';
import { parseRole, type Role, type RoleOrGuest } from '../policies/roles.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import {
  countActiveAdminsExcept,
  deleteMember,
  findMemberRecord,
  listMembers,
  lockOrganizationMembers,
  markMemberSso,
  MEMBER_ORDER_KEY_LENGTH,
  recordMemberSeen,
  updateMemberRole,
  type MemberDetailRow,
} from '../stores/member-store.js';
import { findMembership, type MembershipRow } from '../stores/organization-store.js';
import { countSpacesInOrganization, listSpacesOfMember, SPACE_ORDER_KEY_LENGTH } from '../stores/space-store.js';
import { deleteTeamMembershipsInOrganization, listTeamIdsOfMember } from '../stores/team-store.js';
import { deleteUserPermissionsInOrganization } from '../stores/content-permission-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { visitorClaimsSecret } from './server-secret-service.js';
import type { SpaceWithRole } from './space-service.js';

/** JWT signing, loaded on the first member ping. */
const jose = lazyModule<typeof import('jose')>('jose');

/** The caller's standing in an organization they can see. */
export interface OrganizationAccess extends MemberViewer {
  organizationId: string;
}

/**
 * Loads the caller's membership; an organization they are not in (or are suspended from) answers 404
 * exactly like one that does not exist.
 */
export async function organizationAccess(db: Db, caller: Caller, organizationId: string): Promise<OrganizationAccess> {
  // A session started through another organization's SSO does not reach this one (services/session-scope.ts).
  if (caller.organizationId !== undefined && caller.organizationId !== organizationId) throw new NotFoundError('No organization matches this id');
  const row = await findMembership(db, organizationId, caller.user.id);
  const membership = row ? membershipFromRow(row) : undefined;
  if (!canViewOrganization(membership)) throw new NotFoundError('No organization matches this id');
  return { organizationId, userId: caller.user.id, membership };
}

export function memberNotFound(): NotFoundError {
  return new NotFoundError('No member of this organization has this id');
}

async function requireMembership(db: Db, organizationId: string, userId: string): Promise<MembershipRow> {
  const row = await findMembership(db, organizationId, userId);
  if (!row) throw memberNotFound();
  return row;
}

/** A member as the API shows them, with who is looking (what they may see depends on it). */
export interface MemberView {
  viewer: MemberViewer;
  member: MemberDetailRow;
}

/**
 * Adds to each member the number of live spaces they can reach. Nothing is granted to people or teams
 * directly (yet), so what a member reaches depends on their membership alone: one count per distinct role
 * and suspension is enough. Grants on content will make the count each member's own.
 */
export async function withSpaceCounts<Row extends { user_id: string; role: string | null; disabled: number }>(db: Db, organizationId: string, rows: readonly Row[]): Promise<Array<Row & { spaces: number }>> {
  const classOf = (row: Row) => `${row.disabled !== 0 ? 'disabled' : 'active'}:${row.role ?? 'guest'}`;
  const representatives = new Map<string, ContentViewer>();
  for (const row of rows) {
    const key = classOf(row);
    if (!representatives.has(key)) representatives.set(key, { userId: row.user_id, membership: membershipFromRow(row) });
  }
  const counts = await countSpacesInOrganization(db, organizationId, [...representatives.values()]);
  const countOf = new Map([...representatives.keys()].map((key, index) => [key, counts[index]!]));
  return rows.map((row) => ({ ...row, spaces: countOf.get(classOf(row))! }));
}

async function memberView(db: Db, access: OrganizationAccess, userId: string): Promise<MemberView> {
  const record = await findMemberRecord(db, access.organizationId, userId);
  if (!record) throw memberNotFound();
  const [member] = await withSpaceCounts(db, access.organizationId, [record]);
  return { viewer: access, member: member! };
}

export interface MemberListQuery {
  page?: string;
  limit?: number;
  order?: 'asc' | 'desc';
  role?: string;
  search?: string;
  sort?: 'joinedAt' | 'lastSeenAt';
}

export async function listMembersInOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: MemberListQuery,
): Promise<{ viewer: MemberViewer; page: KeysetPage<MemberDetailRow> }> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canListMembers(access.membership)) throw new ForbiddenError('Guests cannot list the members of the organization');
  const { after, limit } = pageRequest(query, MEMBER_ORDER_KEY_LENGTH);
  const page = await listMembers(context.db, organizationId, {
    ...(query.role !== undefined ? { role: query.role } : {}),
    ...(query.search !== undefined ? { search: query.search } : {}),
    searchEmails: canSearchMemberEmails(access.membership),
    sort: query.sort ?? 'joinedAt',
    order: query.order ?? 'desc',
  }, after, limit);
  return { viewer: access, page: { ...page, rows: await withSpaceCounts(context.db, organizationId, page.rows) } };
}

export async function getMemberInOrganizationById(context: ServiceContext, caller: Caller, organizationId: string, userId: string): Promise<MemberView> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canViewMember(access.membership, caller.user.id, userId)) throw new ForbiddenError('Guests can see only their own membership');
  return memberView(context.db, access, userId);
}

/** Admin-only changes to a member run here: one transaction holding the members lock, the caller checked inside it. */
async function asMemberManager<T>(context: ServiceContext, caller: Caller, organizationId: string, work: (trx: Db, access: OrganizationAccess) => Promise<T>): Promise<T> {
  return inTransaction(context, async (tx) => {
    await lockOrganizationMembers(tx.db, context.dialect, organizationId);
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canManageMembers(access.membership)) throw new ForbiddenError('Only organization admins can change members');
    return work(tx.db, access);
  });
}

/** The role that counts for the last-admin rule: a suspended admin administrates nothing. */
function activeRole(row: MembershipRow): RoleOrGuest {
  return row.disabled !== 0 ? null : parseRole(row.role);
}

export async function updateMemberInOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  userId: string,
  role: RoleOrGuest,
): Promise<MemberView> {
  return asMemberManager(context, caller, organizationId, async (trx, access) => {
    const target = await requireMembership(trx, organizationId, userId);
    const current = activeRole(target);
    if (current === 'admin' && wouldRemoveLastAdmin(current, role, await countActiveAdminsExcept(trx, organizationId, userId))) {
      throw new ConflictError('The last admin of the organization cannot lose the admin role; make another member admin first');
    }
    await updateMemberRole(trx, organizationId, userId, role);
    return memberView(trx, access, userId);
  });
}

/** Removes the member with their team memberships; nothing to do when they are not a member. */
export async function removeMemberFromOrganizationById(context: ServiceContext, caller: Caller, organizationId: string, userId: string): Promise<void> {
  await asMemberManager(context, caller, organizationId, async (trx) => {
    const target = await findMembership(trx, organizationId, userId);
    if (!target) return;
    const current = activeRole(target);
    if (current === 'admin' && wouldRemoveLastAdmin(current, undefined, await countActiveAdminsExcept(trx, organizationId, userId))) {
      throw new ConflictError('The last admin of the organization cannot be removed; make another member admin first');
    }
    await deleteTeamMembershipsInOrganization(trx, organizationId, userId);
    // What was granted to them goes with them: were they invited again, they would start from nothing.
    await deleteUserPermissionsInOrganization(trx, organizationId, userId);
    await deleteMember(trx, organizationId, userId);
    // Their browser sessions that reach this organization end with the membership, not at their expiry.
    await deleteBrowserSessionsReaching(trx, userId, organizationId);
  });
}

export async function setUserAsSSOMemberForOrganization(context: ServiceContext, caller: Caller, organizationId: string, userId: string): Promise<MemberView> {
  return asMemberManager(context, caller, organizationId, async (trx, access) => {
    await requireMembership(trx, organizationId, userId);
    await markMemberSso(trx, organizationId, userId);
    return memberView(trx, access, userId);
  });
}

/** How long the claims `ping` hands out stay valid; a client pings far more often than this. */
const VISITOR_CLAIMS_TTL_SECONDS = 60 * 60;

/**
 * Records that the caller is active now and answers their visitor claims, signed with HS256: `sub` (user
 * id), `organization`, `role` (null for a guest), `teams` (ids of their teams in the organization), `iat`
 * and `exp`.
 */
export async function updateOrganizationMemberLastSeenAt(context: ServiceContext, caller: Caller, organizationId: string): Promise<{ serviceVisitorClaims: string }> {
  const access = await organizationAccess(context.db, caller, organizationId);
  const now = new Date();
  await recordMemberSeen(context.db, organizationId, caller.user.id, now.toISOString());
  const teams = await listTeamIdsOfMember(context.db, organizationId, caller.user.id);
  const secret = await visitorClaimsSecret(context);
  const issuedAt = Math.floor(now.getTime() / 1000);
  const token = await new (jose().SignJWT)({ organization: organizationId, role: access.membership.role, teams })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(caller.user.id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + VISITOR_CLAIMS_TTL_SECONDS)
    .sign(new TextEncoder().encode(secret));
  return { serviceVisitorClaims: token };
}

/** A space a member can reach, with the member's role on it; the space itself is shown as the caller sees it. */
export interface MemberSpaceView {
  permission: Role;
  space: SpaceWithRole;
}

/**
 * The live spaces the member can reach, newest first by default. Only spaces the caller can see as well
 * are listed, so asking about someone else never reveals content hidden from the caller.
 */
export async function listSpacesForOrganizationMember(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  userId: string,
  query: { page?: string; limit?: number; order?: 'asc' | 'desc' },
): Promise<KeysetPage<MemberSpaceView>> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canViewMember(access.membership, caller.user.id, userId)) throw new ForbiddenError('Guests can list only their own spaces');
  const { after, limit } = pageRequest(query, SPACE_ORDER_KEY_LENGTH);
  const member = { userId, membership: membershipFromRow(await requireMembership(context.db, organizationId, userId)) };
  const page = await listSpacesOfMember(context.db, organizationId, { member, caller: access }, after, limit, query.order ?? 'desc');
  return {
    ...page,
    rows: page.rows.map(({ space, memberRole, callerRole }) => {
      // Only spaces the member reaches are listed: every one comes with their role on it.
      if (memberRole === null) throw new Error(`space ${space.id} was listed for a member who has no role on it`);
      return { permission: memberRole, space: { space, role: callerRole } };
    }),
  };
}
