import type { Kysely } from 'kysely';

/*
 * Sign-in through the installation's OpenID Connect provider (services/oidc-login-service.ts).
 *
 * `oidc_pending_logins`: a sign-in between its start and the provider's answer, kept in the database so that
 * any node of a deployment can receive the callback. Keyed by the SHA-256 of its `state`; the PKCE code
 * verifier is not stored at all (it lives in the starting browser's cookie, and `binding_hash` is its SHA-256,
 * which ties the callback to that browser). A row is deleted by the callback that uses it, so it works once.
 *
 * `user_oidc_identities`: which user a provider's subject is. A person is found by the subject on later
 * sign-ins (an e-mail address can change at the provider, or be given to someone else); one identity per
 * user and issuer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_pending_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('binding_hash', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('return_path', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_pending_logins_expires').on('oidc_pending_logins').column('expires_at').execute();

  await db.schema
    .createTable('user_oidc_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_oidc_identities_pk', ['issuer', 'subject'])
    .addUniqueConstraint('user_oidc_identities_user', ['issuer', 'user_id'])
    .execute();
}
