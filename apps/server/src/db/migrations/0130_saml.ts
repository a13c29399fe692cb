import type { Kysely } from 'kysely';

/**
 * SAML single sign-on (services/saml-service.ts): the providers of each organization, the assertion ids
 * already accepted (replay protection), sessions as API tokens scoped to one organization, and the
 * one-time codes that hand a session over to the command line.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saml_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    // null until the identity provider's side is configured; the provider is `active` once all three are set.
    .addColumn('sso_url', 'text')
    .addColumn('entity_id', 'text')
    .addColumn('certificate', 'text')
    .addColumn('default_team_id', 'text', (c) => c.references('teams.id').onDelete('set null'))
    .addColumn('default_role', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saml_providers_list').on('saml_providers').columns(['organization_id', 'created_at', 'id']).execute();

  // An assertion id is accepted once per provider; rows are kept until the assertion could no longer be valid.
  await db.schema
    .createTable('saml_assertions')
    .addColumn('provider_id', 'text', (c) => c.notNull().references('saml_providers.id').onDelete('cascade'))
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_assertions_pk', ['provider_id', 'assertion_id'])
    .execute();
  await db.schema.createIndex('saml_assertions_expiry').on('saml_assertions').column('expires_at').execute();

  // Sessions started by a sign-in are API tokens that act in one organization only, for a limited time.
  await db.schema.alterTable('api_tokens').addColumn('organization_id', 'text', (c) => c.references('organizations.id').onDelete('cascade')).execute();
  await db.schema.alterTable('api_tokens').addColumn('expires_at', 'text').execute();

  await db.schema
    .createTable('cli_auth_codes')
    // SHA-256 of the one-time code; the code itself is only ever in the redirect to the loopback address.
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
