import type { OidcConfig } from '../config.js';
import { isUniqueViolation } from '../db/dialect.js';
import { ConflictError, ForbiddenError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { findOrganizationById, listOrganizationsOfUser, upsertMembership } from '../stores/organization-store.js';
import { findOidcIdentity, findOidcIdentityOfUser, insertOidcIdentity } from '../stores/oidc-store.js';
import { findUserByEmail, findUserById, insertUser, type UserRow } from '../stores/user-store.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/*
 * Who a person signing in through the installation's OpenID Connect provider is in Quire. The provider's
 * subject is the key: found by it, the person is that user whatever their address is today. A subject seen
 * for the first time is linked to the user with the same (verified) address, or to a new user, who joins the
 * configured organization. Only people new to Quire join it: someone who already had an account and was
 * removed from every organization does not get back in by signing in.
 */

/** What the sign-in learned from the provider, checked already (signature, audience, verified address). */
export interface OidcIdentityClaims {
  issuer: string;
  subject: string;
  email: string;
  displayName: string | undefined;
}

export interface OidcAccount {
  user: UserRow;
  /** The person was new to Quire and joined the configured organization. */
  joined: boolean;
}

function noActiveMembership(): ForbiddenError {
  return new ForbiddenError('This account is not an active member of any organization: ask an administrator to add or re-enable you');
}

async function hasActiveMembership(context: ServiceContext, userId: string): Promise<boolean> {
  return (await listOrganizationsOfUser(context.db, userId, undefined, 1)).rows.length > 0;
}

async function newPerson(context: ServiceContext, config: OidcConfig, claims: OidcIdentityClaims, now: string): Promise<UserRow> {
  if (!config.organizationId) {
    throw new ForbiddenError('No account has this address, and this installation adds nobody on sign-in: ask an administrator for an invitation');
  }
  if (!(await findOrganizationById(context.db, config.organizationId))) {
    context.logger.warn({ organizationId: config.organizationId }, 'QUIRE_OIDC_ORGANIZATION names no organization: new people cannot join');
    throw new ForbiddenError('No account has this address, and the organization new people join does not exist: tell an administrator');
  }
  const user = await insertUser(context.db, { id: newId(), email: claims.email, display_name: claims.displayName ?? claims.email.split('@')[0]!, photo_url: null, created_at: now });
  await upsertMembership(context.db, { organization_id: config.organizationId, user_id: user.id, role: config.defaultRole, joined_at: now, last_seen_at: null, sso: 1, disabled: 0 });
  return user;
}

/** Finds or makes the user, in one transaction: nothing is written unless the person may sign in. */
export async function resolveOidcAccount(context: ServiceContext, config: OidcConfig, claims: OidcIdentityClaims): Promise<OidcAccount> {
  const now = nowIso();
  try {
    return await inTransaction(context, async (tx) => {
      const identity = await findOidcIdentity(tx.db, claims.issuer, claims.subject);
      if (identity) {
        const user = await findUserById(tx.db, identity.user_id);
        if (!user || !(await hasActiveMembership(tx, user.id))) throw noActiveMembership();
        return { user, joined: false };
      }
      const existing = await findUserByEmail(tx.db, claims.email);
      if (existing && (await findOidcIdentityOfUser(tx.db, claims.issuer, existing.id))) {
        // Another subject of this provider already is this user: the address moved to someone else there.
        throw new ForbiddenError('This address belongs to an account linked to another identity at this provider');
      }
      const user = existing ?? (await newPerson(tx, config, claims, now));
      await insertOidcIdentity(tx.db, { issuer: claims.issuer, subject: claims.subject, user_id: user.id, created_at: now });
      if (existing && !(await hasActiveMembership(tx, user.id))) throw noActiveMembership();
      return { user, joined: !existing };
    });
  } catch (error) {
    // The same new person signing in twice at the same moment: the one that lost writes nothing.
    if (isUniqueViolation(error)) throw new ConflictError('Another sign-in for this person happened at the same moment: sign in again');
    throw error;
  }
}
