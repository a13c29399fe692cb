import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { enqueueJob } from '../jobs/queue.js';
import { pageRequest } from '../pagination.js';
import { canManageInvites, inviteLinksAllowed } from '../policies/organization-invite-policy.js';
import { canViewOrganization, membershipFromRow } from '../policies/organization-policy.js';
import { parseRole, type Role, type RoleOrGuest } from '../policies/roles.js';
import type { PermissionTarget } from '../stores/content-permission-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMemberIdsByEmail } from '../stores/member-store.js';
import {
  contentTargetOf,
  findInvite,
  insertInvite,
  INVITE_ORDER_KEY_LENGTH,
  listInvitesPage,
  listPendingEmailInvitesPage,
  revokeInvite,
  revokePendingEmailInvites,
  updateInvite,
  type InviteRow,
} from '../stores/organization-invite-store.js';
import { findOrganizationById, findOrganizationForMember, type OrganizationRow, type OrganizationWithMembership } from '../stores/organization-store.js';
import { normalizeEmail } from '../stores/user-store.js';
import type { Caller } from './caller.js';
import { manageCollection, manageSpace, type ManagedContent, type ManagedTarget } from './content-permission-service.js';
import type { ServiceContext } from './context.js';
import { joinPath, newInviteSecret, type NewInviteSecret } from './invite-secrets.js';
import { inTransaction } from './transaction.js';

/*
 * What an organization's admins do with invitations: invite people by e-mail, make, read, change and revoke
 * invite links, to the organization or to one of its spaces or collections (which that content's admins may
 * also do). Joining with them is in invite-join-service.ts; mailing them in invite-mail.ts.
 */

export const INVITE_MAIL_JOB = 'invite.mail';
const DAY_MS = 24 * 60 * 60 * 1000;
/** An e-mail invitation waits a week: long enough for a holiday, short enough that a stale mailbox is no key. */
const EMAIL_INVITE_TTL_MS = 7 * DAY_MS;
const LINK_INVITE_TTL_MS = 30 * DAY_MS;
const LONGEST_INVITE_MS = 365 * DAY_MS;

/**
 * An invite with the caller's role (for `redundant`: in the organization, or on the invite's space or
 * collection), that content for a link to one, and, in the answer that made it, its join path.
 */
export interface InviteRecord {
  invite: InviteRow;
  callerRole: RoleOrGuest;
  content?: ManagedContent;
  joinPath?: string;
}

/** The organization, when the caller may manage its invitations: 404 when they cannot see it, 403 when not an admin. */
async function managedOrganization(context: ServiceContext, caller: Caller, organizationId: string): Promise<OrganizationWithMembership> {
  const found = await findOrganizationForMember(context.db, organizationId, caller.user.id);
  const membership = found ? membershipFromRow(found.membership) : undefined;
  if (!found || !canViewOrganization(membership)) throw new NotFoundError('No organization matches this id');
  if (!canManageInvites(membership)) throw new ForbiddenError('Only organization admins can manage invitations');
  return found;
}

function expiryFrom(expiresAt: string | undefined, fallbackMs: number, now: number): string {
  if (expiresAt === undefined) return new Date(now + fallbackMs).toISOString();
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) throw new BadRequestError('expiresAt must be a date-time');
  if (at <= now) throw new BadRequestError('expiresAt must be in the future');
  if (at > now + LONGEST_INVITE_MS) throw new BadRequestError('expiresAt must be at most a year ahead');
  return new Date(at).toISOString();
}

type EmailEntry = string | { email: string; role: RoleOrGuest };

/**
 * One e-mail invitation per address not already in the organization, replacing any still waiting for it.
 * With a mail server, a job per invitation sends it (queued in this transaction, so it exists exactly when the
 * invitation does); without one, the answer carries each join path.
 */
export async function inviteUsersToOrganization(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  body: { emails: EmailEntry[]; role?: RoleOrGuest; sso?: boolean },
): Promise<InviteRecord[]> {
  const organization = await managedOrganization(context, caller, organizationId);
  const orgDefault = organization.organization.default_role === null ? 'read' : parseRole(organization.organization.default_role);
  const fallbackRole: RoleOrGuest = body.role !== undefined ? body.role : orgDefault;
  // One invitation per address; an address given twice keeps its last role.
  const wanted = new Map<string, RoleOrGuest>();
  for (const entry of body.emails) {
    if (typeof entry === 'string') wanted.set(normalizeEmail(entry), fallbackRole);
    else wanted.set(normalizeEmail(entry.email), entry.role);
  }
  const prepared: Array<{ id: string; email: string; role: RoleOrGuest; secret: NewInviteSecret }> = [];
  for (const [email, role] of wanted) {
    const id = newId();
    prepared.push({ id, email, role, secret: await newInviteSecret(context.db, id) });
  }
  const now = Date.now();
  const createdAt = new Date(now).toISOString();
  const expiresAt = new Date(now + EMAIL_INVITE_TTL_MS).toISOString();
  return inTransaction(context, async (tx) => {
    const current = await managedOrganization(tx, caller, organizationId);
    const members = await findMemberIdsByEmail(tx.db, organizationId, [...wanted.keys()]);
    const made: InviteRecord[] = [];
    for (const item of prepared) {
      if (members.has(item.email)) continue;
      await revokePendingEmailInvites(tx.db, organizationId, item.email, createdAt);
      await insertInvite(tx.db, {
        id: item.id, organization_id: organizationId, kind: 'email', email: item.email, role: item.role, sso: body.sso ? 1 : 0,
        secret_hash: item.secret.hash, sealed_secret: item.secret.sealed, expires_at: expiresAt, max_uses: 1, uses: 0,
        created_by: caller.user.id, created_at: createdAt, revoked_at: null,
      });
      if (context.mailer) await enqueueJob(tx.db, INVITE_MAIL_JOB, { inviteId: item.id }, { maxAttempts: 10 });
      const invite = (await findInvite(tx.db, organizationId, item.id))!;
      made.push({ invite, callerRole: parseRole(current.membership.role), ...(context.mailer ? {} : { joinPath: joinPath(item.secret.secret) }) });
    }
    return made;
  });
}

export async function listOrganizationInviteLinks(context: ServiceContext, caller: Caller, organizationId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<InviteRecord>> {
  const { after, limit } = pageRequest(query, INVITE_ORDER_KEY_LENGTH);
  const organization = await managedOrganization(context, caller, organizationId);
  const page = await listInvitesPage(context.db, organizationId, 'link', after, limit);
  const callerRole = parseRole(organization.membership.role);
  return { ...page, rows: page.rows.map((invite) => ({ invite, callerRole })) };
}

/** The body of `createOrganizationInvite`: a link to the organization, or to one of its spaces or collections. */
export type CreateInviteBody =
  | { role: RoleOrGuest; expiresAt?: string; maxUses?: number }
  | { level: Role; space: string; expiresAt?: string; maxUses?: number }
  | { level: Role; collection: string; expiresAt?: string; maxUses?: number };

function requestedTarget(body: CreateInviteBody): PermissionTarget | undefined {
  if ('space' in body) return { kind: 'space', id: body.space };
  if ('collection' in body) return { kind: 'collection', id: body.collection };
  return undefined;
}

/**
 * The space or collection named for an invite, when the caller may invite people to it: the `admin`
 * permission there (the rule `inviteToSpace` and `inviteToCollection` apply, in content-permission-service.ts).
 * Content of another organization answers 404 as a missing one, so no id of it leaks.
 */
async function invitableContent(context: ServiceContext, caller: Caller, organizationId: string, target: PermissionTarget): Promise<ManagedTarget> {
  const managed = target.kind === 'space' ? await manageSpace(context, caller, target.id) : await manageCollection(context, caller, target.id);
  if (managed.organizationId !== organizationId) throw new NotFoundError(`No ${target.kind} of this organization matches body.${target.kind}`);
  return managed;
}

/** The e-mail invitations still waiting for their person, for an admin to see and revoke. */
export async function listPendingOrganizationInvites(context: ServiceContext, caller: Caller, organizationId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<InviteRecord>> {
  const { after, limit } = pageRequest(query, INVITE_ORDER_KEY_LENGTH);
  const organization = await managedOrganization(context, caller, organizationId);
  const page = await listPendingEmailInvitesPage(context.db, organizationId, after, limit);
  const callerRole = parseRole(organization.membership.role);
  return { ...page, rows: page.rows.map((invite) => ({ invite, callerRole })) };
}

export async function createOrganizationInvite(context: ServiceContext, caller: Caller, organizationId: string, body: CreateInviteBody): Promise<InviteRecord> {
  const now = Date.now();
  const expiresAt = expiryFrom(body.expiresAt, LINK_INVITE_TTL_MS, now);
  const target = requestedTarget(body);
  // Refused callers are answered before a secret is made (its sealing costs a key derivation).
  if (target) await invitableContent(context, caller, organizationId, target);
  else await managedOrganization(context, caller, organizationId);
  const id = newId();
  const secret = await newInviteSecret(context.db, id);
  return inTransaction(context, async (tx) => {
    let record: Omit<InviteRecord, 'invite'>;
    let organization: OrganizationRow;
    if (target) {
      const managed = await invitableContent(tx, caller, organizationId, target);
      organization = (await findOrganizationById(tx.db, organizationId))!;
      record = { callerRole: managed.content.role, content: managed.content };
    } else {
      const found = await managedOrganization(tx, caller, organizationId);
      organization = found.organization;
      record = { callerRole: parseRole(found.membership.role) };
    }
    if (!inviteLinksAllowed(organization)) throw new ForbiddenError('Invite links are turned off for this organization (its inviteLinks setting)');
    await insertInvite(tx.db, {
      id, organization_id: organizationId, kind: 'link', email: null, role: 'role' in body ? body.role : null, sso: 0,
      secret_hash: secret.hash, sealed_secret: secret.sealed, expires_at: expiresAt, max_uses: body.maxUses ?? null, uses: 0,
      created_by: caller.user.id, created_at: new Date(now).toISOString(), revoked_at: null,
      space_id: target?.kind === 'space' ? target.id : null,
      collection_id: target?.kind === 'collection' ? target.id : null,
      level: 'level' in body ? body.level : null,
    });
    return { ...record, invite: (await findInvite(tx.db, organizationId, id))!, joinPath: joinPath(secret.secret) };
  });
}

/**
 * An invite link of the organization as the caller may manage it. Links to the organization are for its admins;
 * a link to one space or collection also for that content's admins (who may invite there anyway). Anyone else
 * in the organization is refused with 403 whether the link exists or not; a link whose content was deleted or
 * has left the organization is gone (404).
 */
async function manageableLink(context: ServiceContext, caller: Caller, organizationId: string, inviteId: string): Promise<InviteRecord> {
  const found = await findOrganizationForMember(context.db, organizationId, caller.user.id);
  const membership = found ? membershipFromRow(found.membership) : undefined;
  if (!found || !canViewOrganization(membership)) throw new NotFoundError('No organization matches this id');
  const orgAdmin = canManageInvites(membership);
  const invite = await findInvite(context.db, organizationId, inviteId);
  const target = invite && invite.kind === 'link' ? contentTargetOf(invite) : undefined;
  if (!target) {
    if (!orgAdmin) throw new ForbiddenError('Only organization admins can manage invitations');
    if (!invite || invite.kind !== 'link') throw linkNotFound();
    return { invite, callerRole: parseRole(found.membership.role) };
  }
  let managed: ManagedTarget;
  try {
    managed = await invitableContent(context, caller, organizationId, target);
  } catch (error) {
    if (!orgAdmin) throw new ForbiddenError(`Only organization admins and admins of the invite's ${target.kind} can manage it`);
    if (error instanceof NotFoundError) throw linkNotFound();
    throw error;
  }
  return { invite: invite!, callerRole: managed.content.role, content: managed.content };
}

function linkNotFound(): NotFoundError {
  return new NotFoundError('The organization has no invite link with this id');
}

export async function getOrganizationInviteLink(context: ServiceContext, caller: Caller, organizationId: string, inviteId: string): Promise<InviteRecord> {
  return manageableLink(context, caller, organizationId, inviteId);
}

export async function updateOrganizationInviteById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  inviteId: string,
  body: { role?: RoleOrGuest; level?: Role; expiresAt?: string; maxUses?: number | null },
): Promise<InviteRecord> {
  return inTransaction(context, async (tx) => {
    const { invite, content } = await manageableLink(tx, caller, organizationId, inviteId);
    if (content && body.role !== undefined) {
      throw new BadRequestError(`role is for invite links to the organization; this link is to a ${content.kind}: change its level`);
    }
    if (!content && body.level !== undefined) {
      throw new BadRequestError('level is for invite links to a space or collection; this link is to the organization: change its role');
    }
    if (body.maxUses !== undefined && body.maxUses !== null && body.maxUses < invite.uses) {
      throw new BadRequestError(`maxUses cannot be below the ${invite.uses} uses already made`);
    }
    await updateInvite(tx.db, inviteId, {
      ...(body.role !== undefined ? { role: body.role } : {}),
      ...(body.level !== undefined ? { level: body.level } : {}),
      ...(body.expiresAt !== undefined ? { expires_at: expiryFrom(body.expiresAt, LINK_INVITE_TTL_MS, Date.now()) } : {}),
      ...(body.maxUses !== undefined ? { max_uses: body.maxUses } : {}),
    });
    return manageableLink(tx, caller, organizationId, inviteId);
  });
}

/** Revokes a link or an e-mail invitation; answers whether there was one. */
export async function deleteOrganizationInviteById(context: ServiceContext, caller: Caller, organizationId: string, inviteId: string): Promise<boolean> {
  return inTransaction(context, async (tx) => {
    const found = await findOrganizationForMember(tx.db, organizationId, caller.user.id);
    const membership = found ? membershipFromRow(found.membership) : undefined;
    // An organization admin revokes any invite (even one whose space was deleted since); others only the links
    // to content they administer, which manageableLink decides.
    if (!canViewOrganization(membership) || !canManageInvites(membership)) await manageableLink(tx, caller, organizationId, inviteId);
    return revokeInvite(tx.db, organizationId, inviteId, nowIso());
  });
}
