import type { Db } from '../db/index.js';
import type { TeamMemberRole } from '../db/schema.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import type { MemberViewer } from '../policies/member-policy.js';
import { newId, nowIso } from '../ids.js';
import { canViewOrganization, membershipFromRow } from '../policies/organization-policy.js';
import { canCreateTeam, canListTeams, canListTeamsOfMember, canManageEveryTeam, isUnseenTeamGone, teamPermissions, type TeamPermissions } from '../policies/team-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMemberIds, findMemberIdsByEmail, lockOrganizationMembers } from '../stores/member-store.js';
import { findMembership } from '../stores/organization-store.js';
import { normalizeEmail } from '../stores/user-store.js';
import {
  deleteTeam,
  deleteTeamMembers,
  findTeam,
  findTeamDetails,
  findTeamRole,
  insertTeam,
  insertTeamMemberIfAbsent,
  listTeamMembers,
  listTeams,
  listTeamsOfMember,
  TEAM_MEMBER_ORDER_KEY_LENGTH,
  TEAM_ORDER_KEY_LENGTH,
  touchTeam,
  updateTeamTitle,
  upsertTeamMember,
  type TeamDetailRow,
  type TeamMemberDetailRow,
  type TeamRow,
} from '../stores/team-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { memberNotFound, organizationAccess, withSpaceCounts, type OrganizationAccess } from './member-service.js';

export interface TeamView {
  viewer: MemberViewer;
  team: TeamDetailRow;
}

function teamNotFound(): NotFoundError {
  return new NotFoundError('No team of this organization has this id');
}

/** Titles are shown as names: surrounding spaces are dropped and a title of spaces alone is refused. */
function cleanTitle(title: string): string {
  const trimmed = title.trim();
  if (!trimmed) throw new BadRequestError('body.title must not be blank');
  return trimmed;
}

async function teamView(db: Db, access: OrganizationAccess, teamId: string): Promise<TeamView> {
  const team = await findTeamDetails(db, access.organizationId, teamId, access.userId);
  if (!team) throw teamNotFound();
  return { viewer: access, team };
}

/** The team and what the caller may do with it; undefined when it does not exist or the caller cannot see it. */
async function loadTeam(db: Db, access: OrganizationAccess, teamId: string): Promise<{ team: TeamRow; permissions: TeamPermissions; callerRole: TeamMemberRole | null } | undefined> {
  const team = await findTeam(db, access.organizationId, teamId);
  if (!team) return undefined;
  const callerRole = await findTeamRole(db, team.id, access.userId);
  const permissions = teamPermissions(access.membership, callerRole);
  if (!permissions.view) return undefined;
  return { team, permissions, callerRole };
}

async function requireTeamAdmin(db: Db, access: OrganizationAccess, teamId: string): Promise<TeamRow> {
  const loaded = await loadTeam(db, access, teamId);
  if (!loaded) throw teamNotFound();
  if (!loaded.permissions.admin) throw new ForbiddenError('Only organization admins and owners of the team can change it');
  return loaded.team;
}

/** Runs a change to a team in one transaction, with the caller's access checked inside it. */
async function asTeamAdmin<T>(context: ServiceContext, caller: Caller, organizationId: string, teamId: string, work: (trx: Db, access: OrganizationAccess, team: TeamRow) => Promise<T>): Promise<T> {
  return inTransaction(context, async (tx) => {
    await lockOrganizationMembers(tx.db, context.dialect, organizationId);
    const access = await organizationAccess(tx.db, caller, organizationId);
    const team = await requireTeamAdmin(tx.db, access, teamId);
    return work(tx.db, access, team);
  });
}

export async function listTeamsInOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: { page?: string; limit?: number; owner?: string; title?: string },
): Promise<{ viewer: MemberViewer; page: KeysetPage<TeamDetailRow> }> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canListTeams(access.membership)) throw new ForbiddenError('Guests cannot list the teams of the organization');
  const { after, limit } = pageRequest(query, TEAM_ORDER_KEY_LENGTH);
  const filter: { title?: string; ownedBy?: string } = query.title ? { title: query.title } : {};
  if (query.owner !== undefined) {
    // `owner` keeps the teams that member can manage, by the same rule as the teams' `admin` permission:
    // an organization admin manages every team, anyone else the teams they own. A user who is not an
    // active member manages none.
    const row = await findMembership(context.db, organizationId, query.owner);
    const ownerMembership = row ? membershipFromRow(row) : undefined;
    if (!canViewOrganization(ownerMembership)) return { viewer: access, page: { rows: [], count: 0 } };
    if (!canManageEveryTeam(ownerMembership)) filter.ownedBy = query.owner;
  }
  return { viewer: access, page: await listTeams(context.db, organizationId, access.userId, filter, after, limit) };
}

export async function listTeamsForOrganizationMember(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  userId: string,
  query: { page?: string; limit?: number; title?: string },
): Promise<{ viewer: MemberViewer; page: KeysetPage<TeamDetailRow & { member_role: TeamMemberRole }> }> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canListTeamsOfMember(access.membership, caller.user.id, userId)) throw new ForbiddenError('Guests can list only their own teams');
  const { after, limit } = pageRequest(query, TEAM_ORDER_KEY_LENGTH);
  if (!(await findMembership(context.db, organizationId, userId))) throw memberNotFound();
  const page = await listTeamsOfMember(context.db, organizationId, userId, access.userId, query.title ? { title: query.title } : {}, after, limit);
  return { viewer: access, page };
}

/**
 * Resolves user references (ids, or e-mail addresses when they hold an `@`) to members of the
 * organization. The first reference that names no member answers 400 naming the field.
 */
async function resolveMembers(db: Db, organizationId: string, field: string, references: readonly string[]): Promise<string[]> {
  const emails = references.filter((reference) => reference.includes('@'));
  const ids = references.filter((reference) => !reference.includes('@'));
  const [byEmail, memberIds] = await Promise.all([findMemberIdsByEmail(db, organizationId, emails), findMemberIds(db, organizationId, ids)]);
  return references.map((reference, index) => {
    const userId = reference.includes('@') ? byEmail.get(normalizeEmail(reference)) : memberIds.has(reference) ? reference : undefined;
    if (!userId) throw new BadRequestError(`${field}[${index}] "${reference}" is not a member of the organization`);
    return userId;
  });
}

export async function createOrganizationTeam(context: ServiceContext, caller: Caller, organizationId: string, body: { title: string; members?: string[] }): Promise<TeamView> {
  const title = cleanTitle(body.title);
  return inTransaction(context, async (tx) => {
    await lockOrganizationMembers(tx.db, context.dialect, organizationId);
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canCreateTeam(access.membership)) throw new ForbiddenError('Only organization admins can create teams');
    const references = body.members ?? [];
    const memberIds = await findMemberIds(tx.db, organizationId, references);
    const missing = references.findIndex((id) => !memberIds.has(id));
    if (missing !== -1) throw new BadRequestError(`body.members[${missing}] "${references[missing]}" is not a member of the organization`);
    const now = nowIso();
    const team: TeamRow = { id: newId(), organization_id: organizationId, title, created_at: now, updated_at: now };
    await insertTeam(tx.db, team);
    for (const userId of new Set(references)) await insertTeamMemberIfAbsent(tx.db, { team_id: team.id, user_id: userId, role: 'member', added_at: now });
    return teamView(tx.db, access, team.id);
  });
}

export async function getTeamInOrganizationById(context: ServiceContext, caller: Caller, organizationId: string, teamId: string): Promise<TeamView> {
  const access = await organizationAccess(context.db, caller, organizationId);
  const view = await teamView(context.db, access, teamId);
  if (!teamPermissions(access.membership, view.team.caller_role).view) throw teamNotFound();
  return view;
}

export async function updateTeamInOrganizationById(context: ServiceContext, caller: Caller, organizationId: string, teamId: string, body: { title: string }): Promise<TeamView> {
  const title = cleanTitle(body.title);
  return asTeamAdmin(context, caller, organizationId, teamId, async (trx, access, team) => {
    await updateTeamTitle(trx, team.id, title, nowIso());
    return teamView(trx, access, team.id);
  });
}

/** Deletes the team; a team that does not exist is already gone for whoever sees the team directory (isUnseenTeamGone). */
export async function removeTeamFromOrganizationById(context: ServiceContext, caller: Caller, organizationId: string, teamId: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    await lockOrganizationMembers(tx.db, context.dialect, organizationId);
    const access = await organizationAccess(tx.db, caller, organizationId);
    const loaded = await loadTeam(tx.db, access, teamId);
    if (!loaded) {
      if (isUnseenTeamGone(access.membership)) return;
      throw teamNotFound();
    }
    if (!loaded.permissions.admin) throw new ForbiddenError('Only organization admins and owners of the team can delete it');
    await deleteTeam(tx.db, loaded.team.id);
  });
}

export async function listTeamMembersInOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  teamId: string,
  query: { page?: string; limit?: number },
): Promise<{ viewer: MemberViewer; callerRole: TeamMemberRole | null; page: KeysetPage<TeamMemberDetailRow> }> {
  const access = await organizationAccess(context.db, caller, organizationId);
  const { after, limit } = pageRequest(query, TEAM_MEMBER_ORDER_KEY_LENGTH);
  const loaded = await loadTeam(context.db, access, teamId);
  if (!loaded) throw teamNotFound();
  const page = await listTeamMembers(context.db, organizationId, loaded.team.id, after, limit);
  return { viewer: access, callerRole: loaded.callerRole, page: { ...page, rows: await withSpaceCounts(context.db, organizationId, page.rows) } };
}

export interface TeamMembersChange {
  add?: string[];
  remove?: string[];
  memberships?: Record<string, { role: TeamMemberRole }>;
}

/**
 * Applies `add`, `remove` and `memberships` at once. Every reference is resolved before anything is
 * written, so one unknown user leaves the team as it was. `remove` wins over `add` and `memberships`;
 * `memberships` sets the role of the users it names, putting them in the team when they are not in it.
 */
export async function updateMembersInOrganizationTeam(context: ServiceContext, caller: Caller, organizationId: string, teamId: string, change: TeamMembersChange): Promise<void> {
  await asTeamAdmin(context, caller, organizationId, teamId, async (trx, _access, team) => {
    const added = await resolveMembers(trx, organizationId, 'body.add', change.add ?? []);
    const removed = new Set(await resolveMembers(trx, organizationId, 'body.remove', change.remove ?? []));
    const roleEntries = Object.entries(change.memberships ?? {});
    const roleMembers = await findMemberIds(trx, organizationId, roleEntries.map(([userId]) => userId));
    for (const [userId] of roleEntries) {
      if (!roleMembers.has(userId)) throw new BadRequestError(`body.memberships.${userId} is not a member of the organization`);
    }

    const now = nowIso();
    const roles = new Map(roleEntries.map(([userId, { role }]) => [userId, role]));
    for (const userId of new Set(added)) {
      if (removed.has(userId) || roles.has(userId)) continue;
      await insertTeamMemberIfAbsent(trx, { team_id: team.id, user_id: userId, role: 'member', added_at: now });
    }
    for (const [userId, role] of roles) {
      if (!removed.has(userId)) await upsertTeamMember(trx, { team_id: team.id, user_id: userId, role, added_at: now });
    }
    await deleteTeamMembers(trx, team.id, [...removed]);
    await touchTeam(trx, team.id, now);
  });
}

/** Puts the member in the team; without a role a new team member is a `member` and an existing one keeps theirs. */
export async function addMemberToOrganizationTeamById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  teamId: string,
  userId: string,
  role: TeamMemberRole | undefined,
): Promise<void> {
  await asTeamAdmin(context, caller, organizationId, teamId, async (trx, _access, team) => {
    if (!(await findMembership(trx, organizationId, userId))) throw memberNotFound();
    const now = nowIso();
    if (role) await upsertTeamMember(trx, { team_id: team.id, user_id: userId, role, added_at: now });
    else await insertTeamMemberIfAbsent(trx, { team_id: team.id, user_id: userId, role: 'member', added_at: now });
    await touchTeam(trx, team.id, now);
  });
}

/** Takes the user out of the team; nothing to do when they are not in it. */
export async function deleteMemberFromOrganizationTeamById(context: ServiceContext, caller: Caller, organizationId: string, teamId: string, userId: string): Promise<void> {
  await asTeamAdmin(context, caller, organizationId, teamId, async (trx, _access, team) => {
    await deleteTeamMembers(trx, team.id, [userId]);
  });
}
