import { X509Certificate } from 'node:crypto';
import type { Db } from '../db/index.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import type { MemberViewer } from '../policies/member-policy.js';
import { parseRole, type RoleOrGuest } from '../policies/roles.js';
import { canListSsoLogins, canManageSamlProviders } from '../policies/saml-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findOrganizationById } from '../stores/organization-store.js';
import {
  deleteSamlProvider,
  findSamlProvider,
  insertSamlProvider,
  listActiveSamlProviders,
  listSamlProviders,
  SAML_PROVIDER_ORDER_KEY_LENGTH,
  updateSamlProvider,
  type SamlProviderChanges,
  type SamlProviderRow,
} from '../stores/saml-store.js';
import { findTeam, findTeamDetails, type TeamDetailRow } from '../stores/team-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { organizationAccess, type OrganizationAccess } from './member-service.js';

/*
 * The SAML identity providers of an organization. The sign-in through them is in saml-login-service.ts.
 */

/** A provider as the API shows it: the row, its default team as the caller sees it, and who is looking. */
export interface SamlProviderView {
  viewer: MemberViewer;
  provider: SamlProviderRow;
  defaultTeam: TeamDetailRow | undefined;
}

export interface SamlProviderInput {
  label?: string;
  entityID?: string;
  certificate?: string;
  ssoURL?: string;
  defaultTeam?: string;
  defaultRole?: RoleOrGuest;
}

function providerNotFound(): NotFoundError {
  return new NotFoundError('No SAML provider of this organization has this id');
}

async function adminAccess(db: Db, caller: Caller, organizationId: string): Promise<OrganizationAccess> {
  const access = await organizationAccess(db, caller, organizationId);
  if (!canManageSamlProviders(access.membership)) throw new ForbiddenError('Only admins of the organization can manage its SAML providers');
  return access;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/**
 * The identity provider's signing certificate as PEM, checked now rather than at the first sign-in: a
 * certificate that does not parse or is outside its validity period would make every sign-in fail. Bare
 * base64 (what many identity providers show in their metadata) is accepted and wrapped as PEM.
 */
export function checkedCertificate(text: string, now = new Date()): string {
  const trimmed = text.trim();
  let pem: string;
  if (trimmed.includes('-----BEGIN')) {
    const block = PEM_BLOCK.exec(trimmed);
    if (!block) throw new BadRequestError('body.certificate is not a PEM certificate: it needs a "-----BEGIN CERTIFICATE-----" block');
    pem = block[0];
  } else {
    const base64 = trimmed.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new BadRequestError('body.certificate is neither PEM nor base64 DER');
    pem = `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch (error) {
    throw new BadRequestError(`body.certificate does not parse as an X.509 certificate (${(error as Error).message})`);
  }
  if (Date.parse(certificate.validTo) <= now.getTime()) throw new BadRequestError(`body.certificate expired on ${new Date(certificate.validTo).toISOString()}`);
  if (Date.parse(certificate.validFrom) > now.getTime()) throw new BadRequestError(`body.certificate is not valid before ${new Date(certificate.validFrom).toISOString()}`);
  return pem;
}

/** Browsers are sent to this URL to sign in, so only web addresses are taken. */
function checkedSsoUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) throw new BadRequestError('body.ssoURL must be an http(s) URL');
  return url;
}

function checkedLabel(label: string): string {
  const trimmed = label.trim();
  if (!trimmed) throw new BadRequestError('body.label must not be blank');
  return trimmed;
}

/** The changes a body asks for, checked. An empty `entityID` or `certificate` clears it. */
async function changesOf(db: Db, organizationId: string, body: SamlProviderInput): Promise<SamlProviderChanges> {
  const changes: SamlProviderChanges = {};
  if (body.label !== undefined) changes.label = checkedLabel(body.label);
  if (body.entityID !== undefined) changes.entity_id = body.entityID.trim() || null;
  if (body.certificate !== undefined) changes.certificate = body.certificate.trim() ? checkedCertificate(body.certificate) : null;
  if (body.ssoURL !== undefined) changes.sso_url = checkedSsoUrl(body.ssoURL);
  if (body.defaultRole !== undefined) changes.default_role = body.defaultRole;
  if (body.defaultTeam !== undefined) {
    const team = await findTeam(db, organizationId, body.defaultTeam);
    if (!team) throw new BadRequestError(`body.defaultTeam "${body.defaultTeam}" is not a team of the organization`);
    changes.default_team_id = team.id;
  }
  return changes;
}

async function providerView(db: Db, access: OrganizationAccess, provider: SamlProviderRow): Promise<SamlProviderView> {
  const defaultTeam = provider.default_team_id ? await findTeamDetails(db, provider.organization_id, provider.default_team_id, access.userId) : undefined;
  return { viewer: access, provider, defaultTeam };
}

export async function listSAMLProvidersInOrganizationById(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: { page?: string; limit?: number },
): Promise<KeysetPage<SamlProviderView>> {
  const access = await adminAccess(context.db, caller, organizationId);
  const { after, limit } = pageRequest(query, SAML_PROVIDER_ORDER_KEY_LENGTH);
  const page = await listSamlProviders(context.db, organizationId, after, limit);
  return { ...page, rows: await Promise.all(page.rows.map((row) => providerView(context.db, access, row))) };
}

export async function createOrganizationSAMLProvider(context: ServiceContext, caller: Caller, organizationId: string, body: SamlProviderInput & { label: string; ssoURL: string }): Promise<SamlProviderView> {
  return inTransaction(context, async (tx) => {
    const access = await adminAccess(tx.db, caller, organizationId);
    const changes = await changesOf(tx.db, organizationId, body);
    // Without a `defaultRole`, people joining through the provider get the organization's own default role.
    const defaultRole = body.defaultRole !== undefined ? body.defaultRole : parseRole((await findOrganizationById(tx.db, organizationId))?.default_role);
    const at = nowIso();
    const provider: SamlProviderRow = {
      id: newId(),
      organization_id: organizationId,
      label: changes.label as string,
      sso_url: changes.sso_url as string,
      entity_id: (changes.entity_id as string | null | undefined) ?? null,
      certificate: (changes.certificate as string | null | undefined) ?? null,
      default_team_id: (changes.default_team_id as string | null | undefined) ?? null,
      default_role: defaultRole,
      created_at: at,
      updated_at: at,
      // Made on first use (services/saml-sp-keys.ts): sealing needs the root database, outside this transaction.
      sp_certificate: null,
      sp_private_key: null,
    };
    await insertSamlProvider(tx.db, provider);
    return providerView(tx.db, access, provider);
  });
}

export async function getOrganizationSAMLProviderById(context: ServiceContext, caller: Caller, organizationId: string, providerId: string): Promise<SamlProviderView> {
  const access = await adminAccess(context.db, caller, organizationId);
  const provider = await findSamlProvider(context.db, organizationId, providerId);
  if (!provider) throw providerNotFound();
  return providerView(context.db, access, provider);
}

export async function updateOrganizationSAMLProvider(context: ServiceContext, caller: Caller, organizationId: string, providerId: string, body: SamlProviderInput): Promise<SamlProviderView> {
  return inTransaction(context, async (tx) => {
    const access = await adminAccess(tx.db, caller, organizationId);
    const provider = await findSamlProvider(tx.db, organizationId, providerId);
    if (!provider) throw providerNotFound();
    const changes = { ...(await changesOf(tx.db, organizationId, body)), updated_at: nowIso() };
    await updateSamlProvider(tx.db, provider.id, changes);
    return providerView(tx.db, access, { ...provider, ...changes } as SamlProviderRow);
  });
}

export async function deleteOrganizationSAMLProvider(context: ServiceContext, caller: Caller, organizationId: string, providerId: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    await adminAccess(tx.db, caller, organizationId);
    await deleteSamlProvider(tx.db, organizationId, providerId);
  });
}

/** The providers a person can sign in through, for a login page. */
export async function listSSOProviderLoginsInOrganization(context: ServiceContext, caller: Caller, organizationId: string): Promise<SamlProviderRow[]> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canListSsoLogins(access.membership)) throw new NotFoundError('No organization matches this id');
  return listActiveSamlProviders(context.db, organizationId);
}
