import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { OrganizationInvitesTable } from '../db/schema.js';
import type { PermissionTarget } from './content-permission-store.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { setsSomething } from './patch.js';

/** Invitations to organizations (or one of their spaces or collections) and who joined with them (migrations 0250, 0310). */

export type InviteRow = Selectable<OrganizationInvitesTable>;

/** The space or collection an invite link is to; undefined for an invitation to the organization itself. */
export function contentTargetOf(invite: Pick<InviteRow, 'space_id' | 'collection_id'>): PermissionTarget | undefined {
  if (invite.space_id !== null) return { kind: 'space', id: invite.space_id };
  if (invite.collection_id !== null) return { kind: 'collection', id: invite.collection_id };
  return undefined;
}
export type InviteKind = 'email' | 'link';

const INVITE_ORDER: KeysetOrder<InviteRow> = { columns: ['created_at', 'id'], keyOf: (row) => [row.created_at, row.id] };
export const INVITE_ORDER_KEY_LENGTH = INVITE_ORDER.columns.length;

/**
 * The organization's invites of one kind to the organization itself (not to one space or collection) that an
 * admin has not revoked, oldest first (expired ones too).
 */
export async function listInvitesPage(db: Db, organizationId: string, kind: InviteKind, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<InviteRow>> {
  const query = db.selectFrom('organization_invites').selectAll()
    .where('organization_id', '=', organizationId).where('kind', '=', kind).where('revoked_at', 'is', null)
    .where('space_id', 'is', null).where('collection_id', 'is', null);
  return keysetPage(query, INVITE_ORDER, after, limit);
}

/** The organization's e-mail invitations nobody has used and no admin has revoked, oldest first (expired ones too). */
export async function listPendingEmailInvitesPage(db: Db, organizationId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<InviteRow>> {
  const query = db.selectFrom('organization_invites').selectAll()
    .where('organization_id', '=', organizationId).where('kind', '=', 'email').where('revoked_at', 'is', null).where('uses', '=', 0);
  return keysetPage(query, INVITE_ORDER, after, limit);
}

/** An invite of the organization that has not been revoked. */
export async function findInvite(db: Db, organizationId: string, inviteId: string): Promise<InviteRow | undefined> {
  return db.selectFrom('organization_invites').selectAll()
    .where('organization_id', '=', organizationId).where('id', '=', inviteId).where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Any invite by id, revoked or not (the mail job decides what to do with a revoked one). */
export async function findInviteById(db: Db, inviteId: string): Promise<InviteRow | undefined> {
  return db.selectFrom('organization_invites').selectAll().where('id', '=', inviteId).executeTakeFirst();
}

export async function findInviteBySecretHash(db: Db, secretHash: string): Promise<InviteRow | undefined> {
  return db.selectFrom('organization_invites').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst();
}

export async function insertInvite(db: Db, row: Insertable<OrganizationInvitesTable>): Promise<void> {
  await db.insertInto('organization_invites').values(row).execute();
}

export async function updateInvite(db: Db, inviteId: string, patch: Updateable<OrganizationInvitesTable>): Promise<void> {
  if (!setsSomething(patch)) return;
  await db.updateTable('organization_invites').set(patch).where('id', '=', inviteId).execute();
}

/** Revokes the invite; answers whether there was one to revoke. */
export async function revokeInvite(db: Db, organizationId: string, inviteId: string, at: string): Promise<boolean> {
  const result = await db.updateTable('organization_invites').set({ revoked_at: at })
    .where('organization_id', '=', organizationId).where('id', '=', inviteId).where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes the e-mail invites of this address still waiting in the organization: a new one replaces them. */
export async function revokePendingEmailInvites(db: Db, organizationId: string, email: string, at: string): Promise<void> {
  await db.updateTable('organization_invites').set({ revoked_at: at })
    .where('organization_id', '=', organizationId).where('kind', '=', 'email').where('email', '=', email)
    .where('revoked_at', 'is', null).where('uses', '=', 0)
    .execute();
}

/**
 * Takes one use of the invite if it has one left, is not revoked and has not expired, in a single guarded
 * update: of two requests taking the last use at once, the database lets one change the row and the other
 * finds the condition false. Answers whether this one got it.
 */
export async function takeInviteUse(db: Db, inviteId: string, now: string): Promise<boolean> {
  const result = await db.updateTable('organization_invites')
    .set((eb) => ({ uses: eb('uses', '+', 1) }))
    .where('id', '=', inviteId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertInviteUse(db: Db, inviteId: string, userId: string, usedAt: string): Promise<void> {
  await db.insertInto('organization_invite_uses').values({ invite_id: inviteId, user_id: userId, used_at: usedAt }).execute();
}

export async function hasUsedInvite(db: Db, inviteId: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('organization_invite_uses').select('user_id').where('invite_id', '=', inviteId).where('user_id', '=', userId).executeTakeFirst();
  return row !== undefined;
}
