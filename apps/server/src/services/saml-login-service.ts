import type { CacheProvider, SAML as SamlClass } from '@node-saml/node-saml';
import { isUniqueViolation } from '../db/dialect.js';
import type { Db } from '../db/index.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { lazyModule } from '../lazy-module.js';
import { isSamlProviderActive } from '../policies/saml-policy.js';
import { markMemberSso } from '../stores/member-store.js';
import { findMembership, upsertMembership } from '../stores/organization-store.js';
import { deleteExpiredSamlAssertions, deleteSamlRequest, hasSamlAssertion, findSamlProviderById, findSamlRequestTime, insertSamlAssertion, insertSamlRequest, type SamlProviderRow } from '../stores/saml-store.js';
import { findTeam, insertTeamMemberIfAbsent } from '../stores/team-store.js';
import { findUserByEmail, insertUser, normalizeEmail } from '../stores/user-store.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { openBrowserSession } from './browser-session-service.js';
import { samlSpSigningKey, type SpSigningKey } from './saml-sp-keys.js';

/*
 * Signing in through an organization's SAML provider (SP-initiated or IdP-initiated, HTTP-POST binding).
 * @node-saml/node-saml checks the XML signature against the provider's certificate, the audience and the
 * time window; this module adds what it leaves to its callers: the assertion's Issuer (the provider's
 * entity id), the response's Destination and the assertion's Recipient (this provider's ACS URL), replay
 * (an assertion id is accepted once) and what a sign-in does in Quire (user, membership, default team,
 * session).
 */

// Loaded on the first sign-in only: the XML signature stack is not needed to start the server.
const nodeSaml = lazyModule<typeof import('@node-saml/node-saml')>('@node-saml/node-saml', { warm: false });
const xmldom = lazyModule<typeof import('@xmldom/xmldom')>('@xmldom/xmldom', { warm: false });

/** The service-provider side of one provider, under the installation's public URL. */
export interface SamlServiceUrls {
  acsURL: string;
  startURL: string;
  entityID: string;
}

/** Clocks of the identity provider and this server may differ by this much. */
const CLOCK_SKEW_MS = 60_000;
/** An assertion is not taken later than this after it was issued, whatever its own validity says. */
const MAX_ASSERTION_AGE_MS = 10 * 60 * 1000;
/** How long a person may take at the identity provider between the start of a sign-in and its answer. */
const REQUEST_TTL_MS = 60 * 60 * 1000;

/**
 * node-saml keeps the ids of the AuthnRequests it sends in a cache provider and checks a response's
 * InResponseTo against it. Kept in the database so that any node of a deployment can receive the answer to
 * a request another node sent; an answered request is removed, so it is answered once.
 */
function requestCache(db: Db, providerId: string): CacheProvider {
  return {
    async saveAsync(key, value) {
      const now = Date.now();
      await insertSamlRequest(db, providerId, key, new Date(now).toISOString(), new Date(now - REQUEST_TTL_MS).toISOString());
      return { value, createdAt: now };
    },
    // node-saml reads the answer as the time the request was sent.
    async getAsync(key) {
      return (await findSamlRequestTime(db, providerId, key, new Date(Date.now() - REQUEST_TTL_MS).toISOString())) ?? null;
    },
    async removeAsync(key) {
      if (key !== null) await deleteSamlRequest(db, key);
      return key;
    },
  };
}

function providerNotFound(): NotFoundError {
  return new NotFoundError('No active SAML provider has this id');
}

async function activeProvider(db: Db, providerId: string): Promise<SamlProviderRow> {
  const provider = await findSamlProviderById(db, providerId);
  if (!provider || !isSamlProviderActive(provider)) throw providerNotFound();
  return provider;
}

function samlFor(db: Db, provider: SamlProviderRow, service: SamlServiceUrls, signing?: SpSigningKey): SamlClass {
  const { SAML, ValidateInResponseTo } = nodeSaml();
  return new SAML({
    // AuthnRequests are signed (HTTP-Redirect binding: Signature and SigAlg in the query) with the
    // provider's own service-provider key, whose certificate the metadata publishes.
    ...(signing ? { privateKey: signing.privateKey, signatureAlgorithm: 'sha256' as const } : {}),
    idpCert: provider.certificate!,
    idpIssuer: provider.entity_id!,
    entryPoint: provider.sso_url!,
    issuer: service.entityID,
    audience: service.entityID,
    callbackUrl: service.acsURL,
    // The assertion itself must carry the signature: a signed response around an unsigned assertion is
    // what signature-wrapping attacks rely on.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
    // A response to a request Quire sent must name it; identity-provider-initiated sign-ins carry no
    // InResponseTo and are taken too (replay is stopped by assertion ids in both cases).
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: requestCache(db, provider.id),
  });
}

/** Only paths of this installation are followed after a sign-in, so RelayState cannot make an open redirect. */
export function safeReturnPath(relayState: string | undefined): string | undefined {
  if (!relayState || relayState.length > 2048) return undefined;
  if (!relayState.startsWith('/') || relayState.startsWith('//') || relayState.includes('\\')) return undefined;
  return relayState;
}

/** Where to send the browser to sign in through the provider: its SSO URL with an AuthnRequest. */
export async function startSamlLogin(context: ServiceContext, providerId: string, service: SamlServiceUrls, returnPath: string | undefined): Promise<string> {
  const provider = await activeProvider(context.db, providerId);
  const signing = await samlSpSigningKey(context.db, provider);
  return samlFor(context.db, provider, service, signing).getAuthorizeUrlAsync(safeReturnPath(returnPath) ?? '', undefined, {});
}

export interface SamlLoginResult {
  /** The browser session's secret, to be set as its cookie; the session acts in `organizationId` only. */
  secret: string;
  expiresAt: string;
  organizationId: string;
  userId: string;
  email: string;
  /** The member did not exist before this sign-in. */
  joined: boolean;
}

interface ValidatedAssertion {
  assertionId: string;
  notOnOrAfter: number;
  email: string;
  displayName: string | undefined;
}

type XmlNode = Record<string, unknown> & { $?: Record<string, string>; _?: string };

function first(value: unknown): XmlNode | undefined {
  return Array.isArray(value) ? (value[0] as XmlNode | undefined) : undefined;
}

function stringAttribute(profile: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = profile[name];
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string' && text.trim()) return text.trim();
  }
  return undefined;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EMAIL_ATTRIBUTES = ['email', 'mail', 'urn:oid:0.9.2342.19200300.100.1.3', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'];
const NAME_ATTRIBUTES = ['displayName', 'urn:oid:2.16.840.1.113730.3.1.241', 'http://schemas.microsoft.com/identity/claims/displayname', 'name'];

function refused(reason: string): UnauthorizedError {
  return new UnauthorizedError(`The SAML response was refused: ${reason}`);
}

/** Checks the response and answers what the sign-in needs from its (signed) assertion. */
async function validateResponse(db: Db, provider: SamlProviderRow, service: SamlServiceUrls, samlResponse: string): Promise<ValidatedAssertion> {
  let profile: Awaited<ReturnType<SamlClass['validatePostResponseAsync']>>['profile'];
  try {
    ({ profile } = await samlFor(db, provider, service).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    throw refused((error as Error).message);
  }
  if (!profile) throw refused('it holds no assertion');
  // node-saml compares `idpIssuer` on logout messages only; the signed assertion's Issuer is checked here.
  if (profile.issuer !== provider.entity_id) throw refused(`its assertion was issued by ${String(profile.issuer)}, not by this provider's entity id`);

  // The Response's Destination is optional in SAML but, when present, must name this provider's ACS URL.
  const responseXml = profile.getSamlResponseXml?.() ?? '';
  const { DOMParser } = xmldom();
  const root = new DOMParser().parseFromString(responseXml, 'text/xml').documentElement;
  const destination = root?.getAttribute('Destination');
  if (destination && destination !== service.acsURL) throw refused(`its Destination is ${destination}, not this provider's ACS URL`);

  const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
  const assertionId = assertion?.$?.ID;
  if (!assertion || !assertionId) throw refused('its assertion has no ID');
  // The bearer confirmation of the signed assertion must be meant for this ACS URL (Web Browser SSO profile).
  const confirmations = ((first(assertion.Subject)?.SubjectConfirmation as XmlNode[] | undefined) ?? []);
  const recipients = confirmations.map((confirmation) => first(confirmation.SubjectConfirmationData)?.$?.Recipient);
  if (!recipients.includes(service.acsURL)) throw refused(`its assertion's Recipient is not this provider's ACS URL`);

  const conditions = first(assertion.Conditions)?.$;
  const issuedAt = Date.parse(assertion.$?.IssueInstant ?? '');
  const ends = [conditions?.NotOnOrAfter, ...confirmations.map((confirmation) => first(confirmation.SubjectConfirmationData)?.$?.NotOnOrAfter)]
    .map((value) => (value ? Date.parse(value) : Number.NaN)).filter((value) => !Number.isNaN(value));
  const notOnOrAfter = Math.min(...ends, (Number.isNaN(issuedAt) ? Date.now() : issuedAt) + MAX_ASSERTION_AGE_MS) + CLOCK_SKEW_MS;

  const nameId = typeof profile.nameID === 'string' ? profile.nameID.trim() : '';
  const email = stringAttribute(profile, EMAIL_ATTRIBUTES) ?? (EMAIL.test(nameId) ? nameId : undefined);
  if (!email || !EMAIL.test(email) || email.length > 320) throw refused('it gives no e-mail address (an `email` attribute or an e-mail NameID)');
  return { assertionId, notOnOrAfter, email: normalizeEmail(email), displayName: stringAttribute(profile, NAME_ATTRIBUTES)?.slice(0, 64) };
}

/**
 * Completes a sign-in from the provider's POST to the ACS URL: validates the response, then in one
 * transaction records the assertion id (a replay fails here), finds or creates the user, makes them a
 * member (with the provider's default role and team) or marks the existing member as SSO, and opens a
 * browser session scoped to the organization. Nothing is written unless all of it succeeds.
 */
export async function completeSamlLogin(
  context: ServiceContext, providerId: string, service: SamlServiceUrls, samlResponse: string | undefined,
  client: { userAgent?: string | undefined; address?: string | undefined } = {},
): Promise<SamlLoginResult> {
  if (!samlResponse) throw new BadRequestError('SAMLResponse is required: the identity provider posts it as a form field');
  const provider = await activeProvider(context.db, providerId);
  const assertion = await validateResponse(context.db, provider, service, samlResponse);
  const now = nowIso();
  try {
    return await inTransaction(context, async (tx) => {
      // The provider may have been deleted or changed since the response was checked.
      const current = await findSamlProviderById(tx.db, provider.id);
      if (!current || !isSamlProviderActive(current) || current.certificate !== provider.certificate) throw providerNotFound();
      await deleteExpiredSamlAssertions(tx.db, now);
      if (await hasSamlAssertion(tx.db, provider.id, assertion.assertionId)) throw refused('this assertion was already used to sign in');
      // Two posts of one assertion at the same moment: the primary key lets one of them through.
      await insertSamlAssertion(tx.db, provider.id, assertion.assertionId, new Date(assertion.notOnOrAfter).toISOString());

      let user = await findUserByEmail(tx.db, assertion.email);
      user ??= await insertUser(tx.db, { id: newId(), email: assertion.email, display_name: assertion.displayName ?? assertion.email.split('@')[0]!, photo_url: null, created_at: now });
      const membership = await findMembership(tx.db, provider.organization_id, user.id);
      if (membership?.disabled) throw new ForbiddenError('This member is suspended from the organization');
      if (membership) {
        await markMemberSso(tx.db, provider.organization_id, user.id);
      } else {
        await upsertMembership(tx.db, { organization_id: provider.organization_id, user_id: user.id, role: current.default_role, joined_at: now, last_seen_at: null, sso: 1, disabled: 0 });
        const team = current.default_team_id ? await findTeam(tx.db, provider.organization_id, current.default_team_id) : undefined;
        if (team) await insertTeamMemberIfAbsent(tx.db, { team_id: team.id, user_id: user.id, role: 'member', added_at: now });
      }

      // The same kind of browser session as a password sign-in opens, scoped to this organization.
      const opened = await openBrowserSession(tx, { userId: user.id, method: 'saml', organizationId: provider.organization_id, userAgent: client.userAgent, address: client.address });
      return { secret: opened.secret, expiresAt: opened.session.expires_at, organizationId: provider.organization_id, userId: user.id, email: user.email, joined: !membership };
    });
  } catch (error) {
    // The same assertion posted twice at once, or the same new person signing in twice at once: the one
    // that lost writes nothing.
    if (isUniqueViolation(error)) throw new ConflictError('Another sign-in with this assertion or for this person happened at the same moment: sign in again');
    throw error;
  }
}

/** The service provider's metadata, for identity providers that are configured from it. */
export async function samlServiceMetadata(context: ServiceContext, providerId: string, service: SamlServiceUrls): Promise<string> {
  const provider = await findSamlProviderById(context.db, providerId);
  if (!provider) throw new NotFoundError('No SAML provider has this id');
  const { SAML } = nodeSaml();
  const signing = await samlSpSigningKey(context.db, provider);
  // Metadata needs no identity-provider settings; a placeholder certificate keeps node-saml's constructor
  // satisfied. With the private key given, node-saml marks AuthnRequestsSigned and publishes the certificate
  // as the signing KeyDescriptor.
  return new SAML({ idpCert: provider.certificate ?? 'unset', issuer: service.entityID, callbackUrl: service.acsURL, privateKey: signing.privateKey, signatureAlgorithm: 'sha256' })
    .generateServiceProviderMetadata(null, signing.certificate);
}
