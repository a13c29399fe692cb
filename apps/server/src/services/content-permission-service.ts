import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { collectionPermissions } from '../policies/collection-policy.js';
import type { MemberViewer } from '../policies/member-policy.js';
import type { OrganizationMembership } from '../policies/organization-policy.js';
import type { Role, RoleOrGuest } from '../policies/roles.js';
import type { CollectionRow } from '../stores/collection-store.js';
import type { SpaceRow } from '../stores/space-store.js';
import { deletePermission, findTeamIdsIn, listTeamPermissions, listUserPermissions, PERMISSION_ORDER_KEY_LENGTH, updatePermission, upsertPermissions, type PermissionTarget, type Principal, type UserPermissionListing } from '../stores/content-permission-store.js';
import { findTeamDetailsByIds, type TeamDetailRow } from '../stores/team-store.js';
import type { UserRow } from '../stores/user-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMemberIds } from '../stores/member-store.js';
import type { Caller } from './caller.js';
import { requireCollection } from './collection-service.js';
import type { ServiceContext } from './context.js';
import { assertSpacePermission, requireSpace } from './space-access.js';
import { memberRolesOn, pageByUserId, spaceScope, type ContentRoleScope } from './effective-roles.js';
import { inTransaction } from './transaction.js';

/*
 * Content permissions: roles granted on one space or one collection to users and teams (the contract's
 * `.../permissions` paths, as the public API names them).
 * Managing them needs the `admin` permission of the space or collection. What a permission gives is decided
 * in policies/visibility-policy.ts and stores/visibility.ts, read fresh on every request: a change here
 * applies at once.
 */

export interface PermissionViewer {
  userId: string;
  membership: OrganizationMembership | undefined;
}

export interface UserPermissionPage {
  page: KeysetPage<UserPermissionListing>;
  viewer: PermissionViewer;
}

export interface TeamPermissionPage {
  page: KeysetPage<{ role: Role; team: TeamDetailRow }>;
  viewer: MemberViewer;
}

/** The space or collection itself, with the caller's role on it (for answers that show it). */
export type ManagedContent =
  | { kind: 'space'; space: SpaceRow; role: RoleOrGuest }
  | { kind: 'collection'; collection: CollectionRow; role: RoleOrGuest };

export interface ManagedTarget {
  target: PermissionTarget;
  content: ManagedContent;
  /** How roles on the target are decided, for the aggregate list. */
  scope: ContentRoleScope;
  organizationId: string;
  membership: OrganizationMembership | undefined;
}

export async function manageSpace(context: ServiceContext, caller: Caller, spaceId: string): Promise<ManagedTarget> {
  const access = await requireSpace(context, caller, spaceId);
  assertSpacePermission(access, 'admin');
  return { target: { kind: 'space', id: access.space.id }, content: { kind: 'space', space: access.space, role: access.role }, scope: spaceScope(access.space, access.collectionChain, access.collectionIds), organizationId: access.space.organization_id, membership: access.membership };
}

export async function manageCollection(context: ServiceContext, caller: Caller, collectionId: string): Promise<ManagedTarget> {
  const access = await requireCollection(context, caller, collectionId);
  if (!collectionPermissions(access.role).admin) throw new ForbiddenError('You need the admin permission of this collection');
  return { target: { kind: 'collection', id: access.collection.id }, content: { kind: 'collection', collection: access.collection, role: access.role }, scope: { defaultLevels: access.chain, spaceIds: [], collectionIds: access.ancestry.map((row) => row.id) }, organizationId: access.collection.organization_id, membership: access.membership };
}

/** Users must be members (or guests) of the organization, teams its teams: 400 naming the first that is not. */
async function principalsOf(context: ServiceContext, organizationId: string, body: { users?: string[]; teams?: string[] }): Promise<Principal[]> {
  const users = body.users ?? [];
  const teams = body.teams ?? [];
  const members = await findMemberIds(context.db, organizationId, users);
  for (const [index, id] of users.entries()) if (!members.has(id)) throw new BadRequestError(`body.users.${index} is not a member of the organization`);
  const known = await findTeamIdsIn(context.db, organizationId, teams);
  for (const [index, id] of teams.entries()) if (!known.has(id)) throw new BadRequestError(`body.teams.${index} is not a team of the organization`);
  return [...new Set(users)].map((id): Principal => ({ kind: 'user', id })).concat([...new Set(teams)].map((id): Principal => ({ kind: 'team', id })));
}

async function invite(context: ServiceContext, caller: Caller, load: (tx: ServiceContext) => Promise<ManagedTarget>, body: { role: Role; users?: string[]; teams?: string[] }): Promise<void> {
  await inTransaction(context, async (tx) => {
    const managed = await load(tx);
    await upsertPermissions(tx.db, managed.target, await principalsOf(tx, managed.organizationId, body), body.role, nowIso());
  });
}

type ListQuery = { page?: string; limit?: number };

async function listUsers(context: ServiceContext, caller: Caller, managed: ManagedTarget, query: ListQuery): Promise<UserPermissionPage> {
  const { after, limit } = pageRequest(query, PERMISSION_ORDER_KEY_LENGTH);
  return { page: await listUserPermissions(context.db, managed.target, after, limit), viewer: { userId: caller.user.id, membership: managed.membership } };
}

async function listTeams(context: ServiceContext, caller: Caller, managed: ManagedTarget, query: ListQuery): Promise<TeamPermissionPage> {
  const { after, limit } = pageRequest(query, PERMISSION_ORDER_KEY_LENGTH);
  const page = await listTeamPermissions(context.db, managed.target, after, limit);
  const teams = await findTeamDetailsByIds(context.db, managed.organizationId, page.rows.map((row) => row.teamId), caller.user.id);
  // A team's grants go with the team (a foreign key), so every granted team is there.
  // Whoever administers content is a member of its organization (`manage*` refused everyone else).
  const viewer = { userId: caller.user.id, membership: managed.membership! };
  return { page: { ...page, rows: page.rows.map((row) => ({ role: row.role, team: teams.get(row.teamId)! })) }, viewer };
}

export interface AggregatePage {
  page: KeysetPage<{ user: UserRow; role: Role }>;
  viewer: PermissionViewer;
}

/** Every user who can see the target, with the role `contentRole` gives them there (only `role`, when asked). */
async function aggregate(context: ServiceContext, caller: Caller, managed: ManagedTarget, query: ListQuery & { role?: Role }): Promise<AggregatePage> {
  const { after, limit } = pageRequest(query, 1);
  const rows = (await memberRolesOn(context, managed.organizationId, [managed.scope]))
    .flatMap(({ user, roles: [role] }) => (role && (query.role === undefined || role === query.role) ? [{ user, role }] : []));
  return { page: pageByUserId(rows, after, limit), viewer: { userId: caller.user.id, membership: managed.membership } };
}

/** A new role for one permission, or its removal (`null`); 404 when there is none to change. */
async function change(context: ServiceContext, load: (tx: ServiceContext) => Promise<ManagedTarget>, principal: Principal, role: Role | null): Promise<void> {
  await inTransaction(context, async (tx) => {
    const managed = await load(tx);
    const changed = role === null ? await deletePermission(tx.db, managed.target, principal) : await updatePermission(tx.db, managed.target, principal, role);
    if (!changed) throw new NotFoundError(`This ${principal.kind} has no role granted here`);
  });
}

/**
 * Removes one permission (the public API's removals): answers whether there was one, which the contract
 * tells apart (205 removed, 204 nothing to remove) instead of refusing a removal already done.
 */
async function remove(context: ServiceContext, load: (tx: ServiceContext) => Promise<ManagedTarget>, principal: Principal): Promise<boolean> {
  return inTransaction(context, async (tx) => deletePermission(tx.db, (await load(tx)).target, principal));
}

export async function inviteToSpace(context: ServiceContext, caller: Caller, spaceId: string, body: { role: Role; users?: string[]; teams?: string[] }): Promise<void> {
  await invite(context, caller, (tx) => manageSpace(tx, caller, spaceId), body);
}

export async function listUserPermissionsInSpace(context: ServiceContext, caller: Caller, spaceId: string, query: ListQuery): Promise<UserPermissionPage> {
  return listUsers(context, caller, await manageSpace(context, caller, spaceId), query);
}

export async function listPermissionsAggregateInSpace(context: ServiceContext, caller: Caller, spaceId: string, query: ListQuery & { role?: Role }): Promise<AggregatePage> {
  return aggregate(context, caller, await manageSpace(context, caller, spaceId), query);
}

export async function listTeamPermissionsInSpace(context: ServiceContext, caller: Caller, spaceId: string, query: ListQuery): Promise<TeamPermissionPage> {
  return listTeams(context, caller, await manageSpace(context, caller, spaceId), query);
}

export async function updateUserPermissionInSpace(context: ServiceContext, caller: Caller, spaceId: string, userId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'user', id: userId }, role);
}

export async function removeUserFromSpace(context: ServiceContext, caller: Caller, spaceId: string, userId: string): Promise<boolean> {
  return remove(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'user', id: userId });
}

export async function updateTeamPermissionInSpace(context: ServiceContext, caller: Caller, spaceId: string, teamId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'team', id: teamId }, role);
}

export async function removeTeamFromSpace(context: ServiceContext, caller: Caller, spaceId: string, teamId: string): Promise<boolean> {
  return remove(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'team', id: teamId });
}

export async function inviteToCollection(context: ServiceContext, caller: Caller, collectionId: string, body: { role: Role; users?: string[]; teams?: string[] }): Promise<void> {
  await invite(context, caller, (tx) => manageCollection(tx, caller, collectionId), body);
}

export async function listUserPermissionsInCollection(context: ServiceContext, caller: Caller, collectionId: string, query: ListQuery): Promise<UserPermissionPage> {
  return listUsers(context, caller, await manageCollection(context, caller, collectionId), query);
}

export async function listPermissionsAggregateInCollection(context: ServiceContext, caller: Caller, collectionId: string, query: ListQuery & { role?: Role }): Promise<AggregatePage> {
  return aggregate(context, caller, await manageCollection(context, caller, collectionId), query);
}

export async function listTeamPermissionsInCollection(context: ServiceContext, caller: Caller, collectionId: string, query: ListQuery): Promise<TeamPermissionPage> {
  return listTeams(context, caller, await manageCollection(context, caller, collectionId), query);
}

export async function updateUserPermissionInCollection(context: ServiceContext, caller: Caller, collectionId: string, userId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'user', id: userId }, role);
}

export async function removeUserFromCollection(context: ServiceContext, caller: Caller, collectionId: string, userId: string): Promise<boolean> {
  return remove(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'user', id: userId });
}

export async function updateTeamPermissionInCollection(context: ServiceContext, caller: Caller, collectionId: string, teamId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'team', id: teamId }, role);
}

export async function removeTeamFromCollection(context: ServiceContext, caller: Caller, collectionId: string, teamId: string): Promise<boolean> {
  return remove(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'team', id: teamId });
}
