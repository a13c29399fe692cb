import type { Kysely } from 'kysely';

/**
 * The ids of the AuthnRequests Quire sent to identity providers (services/saml-login-service.ts): a
 * response that says which request it answers (InResponseTo) must name one of them, once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saml_requests')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('saml_providers.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saml_requests_age').on('saml_requests').column('created_at').execute();
}
