import { hashToken, newApiToken, newId, nowIso } from '../ids.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import type { Db } from '../db/index.js';
import type { RoleOrGuest } from '../policies/roles.js';
import { insertToken } from '../stores/token-store.js';
import { findOrganizationById, insertOrganization, upsertMembership } from '../stores/organization-store.js';
import { findUserByEmail, insertUser, normalizeEmail, type UserRow } from '../stores/user-store.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/**
 * What the admin command line does (and what tests use to set up callers): create organizations, users,
 * memberships and tokens. Each call is one transaction, so a failure leaves nothing half-made.
 */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface IssuedToken {
  userId: string;
  /** The token in clear; shown once, never stored. */
  token: string;
}

export interface BootstrapResult extends IssuedToken {
  organizationId: string;
}

function checkEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized) || normalized.length > 320) throw new BadRequestError(`"${email}" is not an e-mail address`);
  return normalized;
}

function displayNameFrom(email: string): string {
  return email.split('@')[0] || email;
}

async function findOrCreateUser(db: Db, email: string, displayName: string | undefined): Promise<UserRow> {
  const existing = await findUserByEmail(db, email);
  if (existing) return existing;
  return insertUser(db, { id: newId(), email, display_name: displayName?.trim() || displayNameFrom(email), photo_url: null, created_at: nowIso() });
}

async function issueToken(db: Db, userId: string, label: string): Promise<string> {
  const token = newApiToken();
  await insertToken(db, { id: newId(), user_id: userId, token_hash: hashToken(token), label, created_at: nowIso(), last_used_at: null, organization_id: null, expires_at: null });
  return token;
}

/** A new organization with the given person (created if new) as its admin, and a token for them. */
export async function bootstrap(context: ServiceContext, input: { organizationTitle: string; email: string; displayName?: string }): Promise<BootstrapResult> {
  const title = input.organizationTitle.trim();
  if (!title) throw new BadRequestError('The organization title must not be empty');
  const email = checkEmail(input.email);
  return inTransaction(context, async (tx) => {
    const user = await findOrCreateUser(tx.db, email, input.displayName);
    const now = nowIso();
    const organizationId = newId();
    await insertOrganization(tx.db, {
      id: organizationId, title, created_at: now, email_domains: '[]', hostname: null, type: 'business', use_case: null,
      community_type: null, default_role: 'read', default_site_id: null, sso: 0, ai: 0, invite_links: 0,
      merge_rules: JSON.stringify({ type: 'none' }), custom_hostname: null, logo_url: null,
    });
    await upsertMembership(tx.db, { organization_id: organizationId, user_id: user.id, role: 'admin', joined_at: now, last_seen_at: null, sso: 0, disabled: 0 });
    const token = await issueToken(tx.db, user.id, 'bootstrap');
    return { organizationId, userId: user.id, token };
  });
}

/** Makes the person (created if new) a member with this role (null = guest) and gives them a new token. */
export async function addMember(context: ServiceContext, input: { organizationId: string; email: string; role: RoleOrGuest; displayName?: string }): Promise<IssuedToken> {
  const email = checkEmail(input.email);
  return inTransaction(context, async (tx) => {
    const organization = await findOrganizationById(tx.db, input.organizationId);
    if (!organization) throw new NotFoundError(`No organization has the id ${input.organizationId}`);
    const user = await findOrCreateUser(tx.db, email, input.displayName);
    await upsertMembership(tx.db, { organization_id: organization.id, user_id: user.id, role: input.role, joined_at: nowIso(), last_seen_at: null, sso: 0, disabled: 0 });
    const token = await issueToken(tx.db, user.id, `member of ${organization.id}`);
    return { userId: user.id, token };
  });
}

/** A new token for an existing user. */
export async function createToken(context: ServiceContext, input: { email: string; label?: string }): Promise<IssuedToken> {
  const email = checkEmail(input.email);
  return inTransaction(context, async (tx) => {
    const user = await findUserByEmail(tx.db, email);
    if (!user) throw new NotFoundError(`No user has the e-mail address ${email}`);
    const token = await issueToken(tx.db, user.id, input.label ?? 'admin command line');
    return { userId: user.id, token };
  });
}
