import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SamlProvidersTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';

/** SAML identity providers of organizations and the assertion ids they have had accepted. */

export type SamlProviderRow = Selectable<SamlProvidersTable>;
export type SamlProviderChanges = Omit<Updateable<SamlProvidersTable>, 'id' | 'organization_id' | 'created_at'>;

const PROVIDER_ORDER: KeysetOrder<SamlProviderRow> = {
  columns: ['created_at', 'id'],
  keyOf: (row) => [row.created_at, row.id],
};
export const SAML_PROVIDER_ORDER_KEY_LENGTH = PROVIDER_ORDER.columns.length;

export async function listSamlProviders(db: Db, organizationId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<SamlProviderRow>> {
  return keysetPage(db.selectFrom('saml_providers').selectAll().where('organization_id', '=', organizationId), PROVIDER_ORDER, after, limit);
}

/** The providers people can sign in through: those whose identity-provider side is complete. */
export async function listActiveSamlProviders(db: Db, organizationId: string): Promise<SamlProviderRow[]> {
  return db.selectFrom('saml_providers').selectAll()
    .where('organization_id', '=', organizationId)
    .where('sso_url', 'is not', null).where('entity_id', 'is not', null).where('certificate', 'is not', null)
    .orderBy('created_at').orderBy('id')
    .execute();
}

export async function findSamlProvider(db: Db, organizationId: string, id: string): Promise<SamlProviderRow | undefined> {
  return db.selectFrom('saml_providers').selectAll().where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

/** A provider by id alone: sign-in URLs carry only the provider's id. */
export async function findSamlProviderById(db: Db, id: string): Promise<SamlProviderRow | undefined> {
  return db.selectFrom('saml_providers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertSamlProvider(db: Db, row: SamlProviderRow): Promise<void> {
  await db.insertInto('saml_providers').values(row).execute();
}

export async function updateSamlProvider(db: Db, id: string, changes: SamlProviderChanges): Promise<void> {
  await db.updateTable('saml_providers').set(changes).where('id', '=', id).execute();
}

/**
 * Stores a provider's service-provider signing key unless one is there already (two nodes making one at once
 * keep the first); the caller reads the row back.
 */
export async function setSamlSpSigningKey(db: Db, id: string, certificate: string, sealedPrivateKey: string): Promise<void> {
  await db.updateTable('saml_providers').set({ sp_certificate: certificate, sp_private_key: sealedPrivateKey })
    .where('id', '=', id).where('sp_certificate', 'is', null).execute();
}

export async function deleteSamlProvider(db: Db, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('saml_providers').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

/**
 * Records that the provider's assertion with this id was accepted. A second acceptance of the same id is a
 * unique violation (the caller treats it as a replay), in the sign-in's own transaction.
 */
export async function insertSamlAssertion(db: Db, providerId: string, assertionId: string, expiresAt: string): Promise<void> {
  await db.insertInto('saml_assertions').values({ provider_id: providerId, assertion_id: assertionId, expires_at: expiresAt }).execute();
}

export async function hasSamlAssertion(db: Db, providerId: string, assertionId: string): Promise<boolean> {
  const row = await db.selectFrom('saml_assertions').select('assertion_id').where('provider_id', '=', providerId).where('assertion_id', '=', assertionId).executeTakeFirst();
  return row !== undefined;
}

/** Forgets assertion ids whose assertions could no longer be accepted anyway. */
export async function deleteExpiredSamlAssertions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('saml_assertions').where('expires_at', '<', now).execute();
}

/** Remembers an AuthnRequest sent for the provider, and forgets those sent before `staleBefore`. */
export async function insertSamlRequest(db: Db, providerId: string, requestId: string, at: string, staleBefore: string): Promise<void> {
  await db.deleteFrom('saml_requests').where('created_at', '<', staleBefore).execute();
  await db.insertInto('saml_requests').values({ request_id: requestId, provider_id: providerId, created_at: at }).execute();
}

/** When the provider was sent this request, if at or after `since` and not answered yet. */
export async function findSamlRequestTime(db: Db, providerId: string, requestId: string, since: string): Promise<string | undefined> {
  const row = await db.selectFrom('saml_requests').select('created_at')
    .where('request_id', '=', requestId).where('provider_id', '=', providerId).where('created_at', '>=', since).executeTakeFirst();
  return row?.created_at;
}

export async function deleteSamlRequest(db: Db, requestId: string): Promise<void> {
  await db.deleteFrom('saml_requests').where('request_id', '=', requestId).execute();
}

/**
 * The providers people with an address at `domain` can sign in through: the active providers of the
 * organizations that declare the domain (`email_domains`), oldest first. `domain` is lower case and made of
 * letters, digits, dots and hyphens only (checked by the caller), so it cannot escape the JSON string it is
 * looked for as, nor be a LIKE wildcard.
 */
export async function listActiveSamlProvidersForEmailDomain(db: Db, domain: string, limit: number): Promise<SamlProviderRow[]> {
  return db.selectFrom('saml_providers as p')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .selectAll('p')
    .where('o.email_domains', 'like', `%${JSON.stringify(domain)}%`)
    .where('p.sso_url', 'is not', null).where('p.entity_id', 'is not', null).where('p.certificate', 'is not', null)
    .orderBy('p.created_at').orderBy('p.id')
    .limit(limit)
    .execute();
}
