import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { collectionPermissions } from '../policies/collection-policy.js';
import type { OrganizationMembership } from '../policies/organization-policy.js';
import type { Role } from '../policies/roles.js';
import { deleteGrant, findTeamIdsIn, GRANT_ORDER_KEY_LENGTH, listGrants, updateGrant, upsertGrants, type GrantListing, type GrantTarget, type Principal } from '../stores/grant-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMemberIds } from '../stores/member-store.js';
import type { Caller } from './caller.js';
import { requireCollection } from './collection-service.js';
import type { ServiceContext } from './context.js';
import { assertSpacePermission, requireSpace } from './space-service.js';

/*
 * Roles granted on one space or one collection to users and teams (the `inviteToSpace` family and its
 * collection counterpart). Managing them needs the `admin` permission of the space or collection. What a
 * grant gives is decided in policies/visibility-policy.ts and stores/visibility.ts, read fresh on every
 * request: a change here applies at once.
 */

export interface GrantPage {
  page: KeysetPage<GrantListing>;
  viewer: { userId: string; membership: OrganizationMembership | undefined };
}

interface ManagedTarget {
  target: GrantTarget;
  organizationId: string;
  membership: OrganizationMembership | undefined;
}

async function manageSpace(context: ServiceContext, caller: Caller, spaceId: string): Promise<ManagedTarget> {
  const access = await requireSpace(context, caller, spaceId);
  assertSpacePermission(access, 'admin');
  return { target: { kind: 'space', id: access.space.id }, organizationId: access.space.organization_id, membership: access.membership };
}

async function manageCollection(context: ServiceContext, caller: Caller, collectionId: string): Promise<ManagedTarget> {
  const access = await requireCollection(context, caller, collectionId);
  if (!collectionPermissions(access.role).admin) throw new ForbiddenError('You need the admin permission of this collection');
  return { target: { kind: 'collection', id: access.collection.id }, organizationId: access.collection.organization_id, membership: access.membership };
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
  await context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const managed = await load(tx);
    await upsertGrants(trx, managed.target, await principalsOf(tx, managed.organizationId, body), body.role, nowIso());
  });
}

async function list(context: ServiceContext, caller: Caller, managed: ManagedTarget, query: { page?: string; limit?: number }): Promise<GrantPage> {
  const { after, limit } = pageRequest(query, GRANT_ORDER_KEY_LENGTH);
  return { page: await listGrants(context.db, managed.target, after, limit), viewer: { userId: caller.user.id, membership: managed.membership } };
}

/** A new role for one grant, or its removal (`null`); 404 when there is no grant to change. */
async function change(context: ServiceContext, load: (tx: ServiceContext) => Promise<ManagedTarget>, principal: Principal, role: Role | null): Promise<void> {
  await context.db.transaction().execute(async (trx) => {
    const managed = await load({ ...context, db: trx });
    const changed = role === null ? await deleteGrant(trx, managed.target, principal) : await updateGrant(trx, managed.target, principal, role);
    if (!changed) throw new NotFoundError(`This ${principal.kind} has no role granted here`);
  });
}

export async function inviteToSpace(context: ServiceContext, caller: Caller, spaceId: string, body: { role: Role; users?: string[]; teams?: string[] }): Promise<void> {
  await invite(context, caller, (tx) => manageSpace(tx, caller, spaceId), body);
}

export async function listPermissionsInSpace(context: ServiceContext, caller: Caller, spaceId: string, query: { page?: string; limit?: number }): Promise<GrantPage> {
  return list(context, caller, await manageSpace(context, caller, spaceId), query);
}

export async function updateUserPermissionInSpace(context: ServiceContext, caller: Caller, spaceId: string, userId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'user', id: userId }, role);
}

export async function removeUserPermissionInSpace(context: ServiceContext, caller: Caller, spaceId: string, userId: string): Promise<void> {
  await change(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'user', id: userId }, null);
}

export async function updateTeamPermissionInSpace(context: ServiceContext, caller: Caller, spaceId: string, teamId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'team', id: teamId }, role);
}

export async function removeTeamPermissionInSpace(context: ServiceContext, caller: Caller, spaceId: string, teamId: string): Promise<void> {
  await change(context, (tx) => manageSpace(tx, caller, spaceId), { kind: 'team', id: teamId }, null);
}

export async function inviteToCollection(context: ServiceContext, caller: Caller, collectionId: string, body: { role: Role; users?: string[]; teams?: string[] }): Promise<void> {
  await invite(context, caller, (tx) => manageCollection(tx, caller, collectionId), body);
}

export async function listPermissionsInCollection(context: ServiceContext, caller: Caller, collectionId: string, query: { page?: string; limit?: number }): Promise<GrantPage> {
  return list(context, caller, await manageCollection(context, caller, collectionId), query);
}

export async function updateUserPermissionInCollection(context: ServiceContext, caller: Caller, collectionId: string, userId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'user', id: userId }, role);
}

export async function removeUserPermissionInCollection(context: ServiceContext, caller: Caller, collectionId: string, userId: string): Promise<void> {
  await change(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'user', id: userId }, null);
}

export async function updateTeamPermissionInCollection(context: ServiceContext, caller: Caller, collectionId: string, teamId: string, role: Role | null): Promise<void> {
  await change(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'team', id: teamId }, role);
}

export async function removeTeamPermissionInCollection(context: ServiceContext, caller: Caller, collectionId: string, teamId: string): Promise<void> {
  await change(context, (tx) => manageCollection(tx, caller, collectionId), { kind: 'team', id: teamId }, null);
}
