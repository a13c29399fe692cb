import type { Kysely } from 'kysely';

/**
 * The service provider's signing key of each SAML provider (services/saml-sp-keys.ts): AuthnRequests are
 * signed with it, and its certificate is published in the provider's metadata for the identity provider to
 * check them. The private key is kept sealed (services/sealed-values.ts). Both null until first needed:
 * providers made before this migration get theirs on their next sign-in or metadata request.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('saml_providers').addColumn('sp_certificate', 'text').execute();
  await db.schema.alterTable('saml_providers').addColumn('sp_private_key', 'text').execute();
}
