import type { Kysely } from 'kysely';

/*
 * Sign-in (issue 24). `browser_sessions`: a browser's session, opened by a password, SAML or OpenID Connect
 * sign-in; the cookie holds a random secret, the table only its SHA-256 (`secret_hash`), so a copy of the
 * table opens no session. `organization_id` scopes a session opened through an organization's SSO to that
 * organization (as the SAML tokens it replaces were); null for a password session. The idle expiry is
 * `last_used_at` plus the configured idle time, the absolute one `expires_at`.
 *
 * `user_totp`: a user's second factor. The TOTP secret is sealed (services/sealed-values.ts), never in clear;
 * `confirmed_at` is null until the first code confirms an enrolment, and `last_used_step` is the 30-second
 * step of the last code accepted, so a code is taken once. `user_recovery_codes`: the SHA-256 of each
 * recovery code, `used_at` set when it is spent.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('browser_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('address', 'text')
    .execute();
  await db.schema.createIndex('browser_sessions_user').on('browser_sessions').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('user_totp')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('last_used_step', 'integer')
    .execute();

  await db.schema
    .createTable('user_recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('user_recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();
}
