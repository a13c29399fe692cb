import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { inviteLinksAllowed } from '../policies/organization-invite-policy.js';
import { parseRole, type RoleOrGuest } from '../policies/roles.js';
import { findCollectionById } from '../stores/collection-store.js';
import { raisePermission, type PermissionTarget } from '../stores/content-permission-store.js';
import { contentTargetOf, findInviteBySecretHash, hasUsedInvite, insertInviteUse, takeInviteUse, type InviteRow } from '../stores/organization-invite-store.js';
import { findMembership, findOrganizationById, upsertMembership, type OrganizationRow } from '../stores/organization-store.js';
import { findSpaceById } from '../stores/space-store.js';
import { upsertUserPasswordHash } from '../stores/user-password-store.js';
import { findUserByEmail, insertUser, normalizeEmail, type UserRow } from '../stores/user-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inviteSecretHash } from './invite-secrets.js';
import { hashPassword } from './password-hashing.js';
import { checkPasswordRules } from './password-rules.js';
import { emailDomainsOf } from './organization-service.js';
import { inTransaction } from './transaction.js';

/*
 * Joining an organization: with an invitation's secret (a new person accepting one mailed to them, or someone
 * signed in), or by the e-mail domain the organization declares. An invitation gives its role once per person;
 * its uses are taken by a guarded update (stores/organization-invite-store.ts `takeInviteUse`), so of two
 * people taking the last use of a link, one joins and the other is told it is used up.
 */

/** The space or collection a link to one gives access to, as the join page names it. */
export interface InvitedContent {
  target: PermissionTarget;
  title: string;
}

export interface UsableInvite {
  invite: InviteRow;
  organization: OrganizationRow;
  content?: InvitedContent;
}

/** The live content of a link to a space or collection; undefined once it is deleted or has left the organization. */
async function invitedContent(context: ServiceContext, invite: InviteRow, target: PermissionTarget): Promise<InvitedContent | undefined> {
  const row = target.kind === 'space' ? await findSpaceById(context.db, target.id) : await findCollectionById(context.db, target.id);
  if (!row || row.organization_id !== invite.organization_id) return undefined;
  if ('deleted_at' in row && row.deleted_at !== null) return undefined;
  return { target, title: row.title };
}

/** The invitation of this secret while it still lets someone join; 404 otherwise, saying why when the secret is real. */
async function usableInvite(context: ServiceContext, secret: string): Promise<UsableInvite> {
  const invite = await findInviteBySecretHash(context.db, inviteSecretHash(secret));
  const organization = invite ? await findOrganizationById(context.db, invite.organization_id) : undefined;
  if (!invite || !organization) throw new NotFoundError('No invitation has this secret');
  if (invite.revoked_at !== null) throw new NotFoundError('This invitation was revoked');
  if (invite.expires_at <= nowIso()) throw new NotFoundError('This invitation has expired');
  if (invite.max_uses !== null && invite.uses >= invite.max_uses) throw new NotFoundError('This invitation has been used');
  if (invite.kind === 'link' && !inviteLinksAllowed(organization)) throw new NotFoundError('Invite links are turned off for this organization');
  const target = contentTargetOf(invite);
  if (!target) return { invite, organization };
  const content = await invitedContent(context, invite, target);
  if (!content) throw new NotFoundError(`The ${target.kind} of this invitation was deleted or moved out of the organization`);
  return { invite, organization, content };
}

/**
 * Takes a use of the invitation for `userId` and makes them a member with its role; with a link to a space or
 * collection, someone not yet in the organization joins as a guest (a member keeps their membership as it is)
 * and is granted the link's level there, or keeps a higher role granted before.
 */
async function joinWith(tx: ServiceContext, invite: InviteRow, userId: string, member: boolean): Promise<RoleOrGuest> {
  const now = nowIso();
  // Two joins racing for the last use: the loser's update changes no row.
  if (!(await takeInviteUse(tx.db, invite.id, now))) throw new NotFoundError('This invitation has been used');
  await insertInviteUse(tx.db, invite.id, userId, now);
  const target = contentTargetOf(invite);
  if (!member) await upsertMembership(tx.db, { organization_id: invite.organization_id, user_id: userId, role: target ? null : invite.role, joined_at: now, last_seen_at: null, sso: invite.sso, disabled: 0 });
  const level = parseRole(invite.level);
  if (target && level !== null) await raisePermission(tx.db, target, { kind: 'user', id: userId }, level, now);
  return target ? null : parseRole(invite.role);
}

export async function previewOrganizationInvite(context: ServiceContext, body: { invite: string }): Promise<UsableInvite> {
  return usableInvite(context, body.invite);
}

/**
 * A new person accepts the invitation mailed to them: the account of that address, with their password, and
 * its membership, all in one transaction. The password is checked and hashed first, outside it (argon2id
 * takes tens of milliseconds of CPU that no transaction should hold).
 */
export async function acceptOrganizationInvite(
  context: ServiceContext,
  body: { invite: string; displayName: string; password: string },
): Promise<{ user: UserRow; organizationId: string; role: RoleOrGuest }> {
  const displayName = body.displayName.trim();
  if (displayName === '') throw new BadRequestError('displayName must not be blank');
  const first = await usableInvite(context, body.invite);
  if (first.invite.kind !== 'email') throw new ConflictError('An invite link is for people with an account: sign in, then join with it');
  checkPasswordRules(body.password, 'password');
  const passwordHash = await hashPassword(body.password);
  return inTransaction(context, async (tx) => {
    const { invite } = await usableInvite(tx, body.invite);
    const email = invite.email!;
    if (await findUserByEmail(tx.db, email)) throw new ConflictError('This address has an account already: sign in, then join with the invitation');
    const now = nowIso();
    const user = await insertUser(tx.db, { id: newId(), email, display_name: displayName, photo_url: null, created_at: now });
    await upsertUserPasswordHash(tx.db, user.id, passwordHash, now);
    const role = await joinWith(tx, invite, user.id, false);
    return { user, organizationId: invite.organization_id, role };
  });
}

/**
 * Someone signed in joins with an invitation: theirs (by e-mail), or a link. A link to a space or collection
 * also serves members of the organization, whom it gives that access.
 */
export async function joinOrganizationWithInvite(context: ServiceContext, caller: Caller, organizationId: string, secret: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    const { invite, content } = await usableInvite(tx, secret);
    // Another organization's invitation answers like an unknown one: the path names the organization joined.
    if (invite.organization_id !== organizationId) throw new NotFoundError('No invitation has this secret');
    if (invite.kind === 'email' && invite.email !== normalizeEmail(caller.user.email)) throw new ForbiddenError('This invitation is for another e-mail address');
    const membership = await findMembership(tx.db, organizationId, caller.user.id);
    if (membership?.disabled) throw new ForbiddenError('This member is suspended from the organization');
    if (membership && !content) throw new ConflictError('You are in this organization already');
    if (await hasUsedInvite(tx.db, invite.id, caller.user.id)) throw new ConflictError('You have joined with this invitation before');
    await joinWith(tx, invite, caller.user.id, membership !== undefined);
  });
}

/**
 * Joining by e-mail domain. Every account's address is vouched for (Quire has no sign-up: the operator gave
 * it, an invitation mailed to it was accepted, or an identity provider asserted it), so its domain is trusted.
 */
export async function joinOrganization(context: ServiceContext, caller: Caller, organizationId: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    const organization = await findOrganizationById(tx.db, organizationId);
    if (!organization) throw new NotFoundError('No organization matches this id');
    const membership = await findMembership(tx.db, organizationId, caller.user.id);
    if (membership?.disabled) throw new ForbiddenError('This member is suspended from the organization');
    if (membership) return;
    const domain = normalizeEmail(caller.user.email).split('@').pop() ?? '';
    if (!emailDomainsOf(organization).includes(domain)) throw new BadRequestError("Your e-mail address's domain is not one of the organization's e-mail domains");
    const role = organization.default_role === null ? 'read' : parseRole(organization.default_role);
    await upsertMembership(tx.db, { organization_id: organizationId, user_id: caller.user.id, role, joined_at: nowIso(), last_seen_at: null, sso: 0, disabled: 0 });
  });
}
