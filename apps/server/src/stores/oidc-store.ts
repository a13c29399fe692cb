import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { OidcPendingLoginsTable, UserOidcIdentitiesTable } from '../db/schema.js';

export type OidcPendingLoginRow = Selectable<OidcPendingLoginsTable>;
export type UserOidcIdentityRow = Selectable<UserOidcIdentitiesTable>;

/** Records a started sign-in, and forgets those that can no longer be completed. */
export async function insertOidcPendingLogin(db: Db, row: Insertable<OidcPendingLoginsTable>, now: string): Promise<void> {
  await db.deleteFrom('oidc_pending_logins').where('expires_at', '<', now).execute();
  await db.insertInto('oidc_pending_logins').values(row).execute();
}

/**
 * Takes the pending sign-in with this state out of the table and answers it (expired or not: the caller
 * decides). Deleting and reading in one statement makes it one use: of two callbacks bringing the same state,
 * only one gets the row.
 */
export async function takeOidcPendingLogin(db: Db, stateHash: string): Promise<OidcPendingLoginRow | undefined> {
  return db.deleteFrom('oidc_pending_logins').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
}

export async function findOidcIdentity(db: Db, issuer: string, subject: string): Promise<UserOidcIdentityRow | undefined> {
  return db.selectFrom('user_oidc_identities').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
}

export async function findOidcIdentityOfUser(db: Db, issuer: string, userId: string): Promise<UserOidcIdentityRow | undefined> {
  return db.selectFrom('user_oidc_identities').selectAll().where('issuer', '=', issuer).where('user_id', '=', userId).executeTakeFirst();
}

/** Links a subject to a user; a second link of either is a unique violation. */
export async function insertOidcIdentity(db: Db, row: UserOidcIdentityRow): Promise<void> {
  await db.insertInto('user_oidc_identities').values(row).execute();
}
