import { evaluateCondition, parseCondition } from '../content/site-conditions.js';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.js';
import { lazyModule } from '../lazy-module.js';
import type { SiteVisibilityName } from '../policies/site-policy.js';
import { membershipFromRow } from '../policies/organization-policy.js';
import { memberReadsSite, siteOpensToVisitor } from '../policies/visitor-policy.js';
import { findMembership } from '../stores/organization-store.js';
import { siteSections, type SiteSectionRow } from '../stores/site-section-store.js';
import { allSiteSpaces, type SiteSpaceRecord } from '../stores/site-space-store.js';
import { findSitesForAddress, type SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import { absoluteHttpUrl } from './http-url.js';
import type { ServiceContext } from './context.js';
import { movedPagePath } from './moved-pages.js';
import type { ResolvedDestination } from './site-redirect-destination.js';
import { siteRedirectFrom } from './site-redirect-service.js';
import { activeShareLinkOf } from './site-share-link-service.js';
import { siteVisitorAuth, type VisitorAuthRecord } from './site-publishing-auth-service.js';
import { issueVisitorToken } from './visitor-token-service.js';

const jose = lazyModule<typeof import('jose')>('jose');

/*
 * Resolving an address a reader opened to the published content it shows, for readers that are not members
 * (the reader app acts for each visitor with no more rights than theirs), and for members who send their own
 * token (the reader forwards their SSO session): membership opens any published site of their organization. Addresses are those the site
 * presenter builds (http/presenters/site-presenter.ts, the one statement of the rule, read here in
 * reverse): `{QUIRE_PUBLIC_URL}/sites/{basename, else id}[/{section path}][/{site-space path}]/{page path}`,
 * or `{scheme}://{hostname}/...` for a site with a hostname. A section or site space the path does not name
 * is the level's default. Every refusal of the address itself is the same 404, so that the answer tells
 * nothing about unpublished sites or share keys.
 */

/** Query parameters of the address that carry secrets: never in `canonicalUrl` or a redirect's `location`. */
const SECRET_PARAMS = ['shareKey', 'jwt_token', 'visitorAuthToken'];
/** Unsigned claims come from `visitor.<name>` parameters of the address (as GitBook's adaptive content reads them). */
const UNSIGNED_PREFIX = 'visitor.';
const MAX_UNSIGNED_CLAIMS = 50;
const UNSAFE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
/** Clock difference tolerated between the visitor-auth backend and this server. */
const JWT_CLOCK_TOLERANCE_SECONDS = 30;

export interface PublishedLookupInput {
  url: string;
  /** Where `url` came from, for the 400 that names it (`query.url` by default). */
  field?: string;
  shareKey?: string;
  visitorAuthToken?: string;
  /** Unsigned claims given beside the address's `visitor.<name>` parameters (resolvePublishedContentByUrl); these win. */
  unsignedClaims?: Record<string, unknown>;
  /** A JWT that does not verify: redirect to the backend (true) or 401 (false, the public API's default). */
  redirectOnError?: boolean;
  /** The user whose own bearer token came with the lookup (optional; a member reads restricted sites). */
  reader?: Caller;
}

export interface PublishedContentLookup {
  kind: 'lookup';
  site: SiteWithCount;
  section?: SiteSectionRow;
  record: SiteSpaceRecord;
  siteBasePath: string;
  basePath: string;
  pathname: string;
  complete: boolean;
  canonicalUrl: string;
  apiToken: string;
  apiTokenExpiresAt: string;
}

/** Where to send the visitor instead: the visitor-auth backend, or another address of the same site. */
export type PublishedContentRedirect =
  | { kind: 'redirect'; redirect: string }
  | { kind: 'site-redirect'; site: SiteWithCount; destination: ResolvedDestination }
  /** A moved page, at its path now under the same section and site space the visitor's address named (or not). */
  | { kind: 'moved-page'; redirect: string };

function noContent(): NotFoundError {
  return new NotFoundError('No published content is at this address');
}

/** The path's segments as written (percent-encoded) and decoded; a segment that does not decode is a 400. */
function segmentsOf(pathname: string): { raw: string[]; decoded: string[] } {
  const raw = pathname.split('/').filter((segment) => segment !== '');
  try {
    return { raw, decoded: raw.map((segment) => decodeURIComponent(segment)) };
  } catch {
    throw new BadRequestError('query.url has a path that is not valid percent-encoded text');
  }
}

/** The site an address names, with the path of the site on that host and the segments after it. */
async function siteAt(context: ServiceContext, url: URL, publicUrl: string): Promise<{ site: SiteWithCount; siteBasePath: string; rest: { raw: string[]; decoded: string[] } } | undefined> {
  const hosts = [...new Set([url.host, url.hostname])];
  // Where a `/sites/{basename, else id}` address of the public URL puts its segments; a path that does not
  // decode is a 400 only once no site has the address's host (as when the host was asked first).
  const base = new URL(publicUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const underSites = url.origin === base.origin && url.pathname.startsWith(`${basePath}/sites/`);
  let rest: { raw: string[]; decoded: string[] } | undefined;
  let undecodable: unknown;
  if (underSites) {
    try {
      rest = segmentsOf(url.pathname.slice(basePath.length + '/sites/'.length));
    } catch (error) {
      undecodable = error;
    }
  }
  // One read for both ways an address names a site (a round trip less per page view on PostgreSQL).
  const candidates = await findSitesForAddress(context.db, hosts, rest?.decoded[0]);
  // A request whose Host is a site's hostname is that site (hostnames are unique across the installation).
  for (const host of hosts) {
    const site = candidates.find((candidate) => candidate.hostname === host);
    if (site) return site.published === 1 ? { site, siteBasePath: '', rest: segmentsOf(url.pathname) } : undefined;
  }
  if (!underSites) return undefined;
  if (undecodable !== undefined) throw undecodable;
  const rawSegment = rest!.raw[0];
  const segment = rest!.decoded[0];
  if (rawSegment === undefined || segment === undefined) return undefined;
  // The address of a site is `/sites/{basename, else id}` and only while it has no hostname; a basename is
  // unique across the installation and never another site's id (updateSiteById), so one site answers.
  const site = candidates.find((candidate) => candidate.published === 1 && !candidate.hostname && (candidate.basename ?? candidate.id) === segment);
  if (!site) return undefined;
  return { site, siteBasePath: `${basePath}/sites/${rawSegment}`, rest: { raw: rest!.raw.slice(1), decoded: rest!.decoded.slice(1) } };
}

function withoutSecrets(url: URL): URL {
  const copy = new URL(url.href);
  copy.hash = '';
  for (const name of SECRET_PARAMS) copy.searchParams.delete(name);
  return copy;
}

function claimValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/** `?visitor.plan=pro&visitor.beta=true` -> `{plan: 'pro', beta: true}`; dots nest. */
function unsignedClaims(url: URL): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  let count = 0;
  for (const [name, value] of url.searchParams) {
    if (!name.startsWith(UNSIGNED_PREFIX)) continue;
    if (++count > MAX_UNSIGNED_CLAIMS) break;
    const path = name.slice(UNSIGNED_PREFIX.length).split('.');
    if (path.some((part) => part === '' || UNSAFE_NAMES.has(part))) continue;
    let target = claims;
    for (const part of path.slice(0, -1)) {
      const next = target[part];
      if (typeof next !== 'object' || next === null) target[part] = {};
      target = target[part] as Record<string, unknown>;
    }
    target[path.at(-1)!] = claimValue(value);
  }
  return claims;
}

/** Claims a request body states, without the names that would reach an object's prototype. */
function safeClaims(claims: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims ?? {}).filter(([name]) => !UNSAFE_NAMES.has(name)));
}

/** The claims of a JWT signed with the site's key (HS256, `exp` required); undefined when it does not verify. */
async function verifiedClaims(jwt: string | undefined, auth: VisitorAuthRecord | undefined): Promise<Record<string, unknown> | undefined> {
  if (jwt === undefined || auth === undefined) return undefined;
  try {
    const { payload } = await jose().jwtVerify(jwt, new TextEncoder().encode(auth.signingKey), {
      algorithms: ['HS256'], requiredClaims: ['exp'], clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS,
    });
    return { ...payload };
  } catch {
    return undefined;
  }
}

/** A condition the visitor's claims satisfy; no condition shows to all, a condition that fails to parse to none. */
function holds(condition: string | null, claims: Record<string, unknown>): boolean {
  if (condition === null || condition.trim() === '') return true;
  try {
    return evaluateCondition(parseCondition(condition), claims);
  } catch {
    return false;
  }
}

async function membershipOf(context: ServiceContext, organizationId: string, userId: string) {
  const row = await findMembership(context.db, organizationId, userId);
  return row ? membershipFromRow(row) : undefined;
}

export async function getPublishedContentByUrl(context: ServiceContext, input: PublishedLookupInput, options: { publicUrl: string }): Promise<PublishedContentLookup | PublishedContentRedirect> {
  const url = absoluteHttpUrl(input.url, input.field ?? 'query.url');
  const found = await siteAt(context, url, options.publicUrl);
  if (!found) throw noContent();
  const { site, siteBasePath, rest } = found;
  const visibility = site.visibility as SiteVisibilityName;

  const shareKey = input.shareKey ?? url.searchParams.get('shareKey') ?? undefined;
  const jwt = input.visitorAuthToken ?? url.searchParams.get('jwt_token') ?? undefined;
  // Read together (independent reads: one round trip on PostgreSQL). The visitor-auth settings matter only to
  // verify a JWT, or to a visitor-auth site (its backend, its key id): not read for an open site's plain visit.
  const [shareLink, auth] = await Promise.all([
    visibility === 'share-link' && shareKey !== undefined ? activeShareLinkOf(context, site.id, shareKey) : undefined,
    jwt !== undefined || visibility === 'visitor-auth' ? siteVisitorAuth(context, site.id) : undefined,
  ]);
  const signed = await verifiedClaims(jwt, auth);
  const access = { published: site.published === 1, visibility, activeShareLink: shareLink !== undefined, verifiedVisitor: signed !== undefined };
  // Membership is asked only when the site would not open anyway, so a member's visitor token names them only
  // when membership is what let them in (open sites' tokens stay anonymous, whoever asked).
  const opensToAnyone = siteOpensToVisitor(access);
  const reader = input.reader;
  const member = !opensToAnyone && reader !== undefined && access.published
    && memberReadsSite({ sessionOrganizationId: reader.organizationId }, site.organization_id, await membershipOf(context, site.organization_id, reader.user.id));
  const opens = opensToAnyone || siteOpensToVisitor({ ...access, member });
  if (!opens) {
    if (visibility !== 'visitor-auth') throw noContent();
    if (!auth?.backendUrl) throw new UnauthorizedError('This site needs visitor authentication, and no fallbackURL is configured for it');
    if (jwt !== undefined && input.redirectOnError !== true) throw new UnauthorizedError('The visitor JWT does not verify (expired, another key, or malformed): sign in again, or ask with redirectOnError');
    const redirect = new URL(auth.backendUrl);
    redirect.searchParams.set('location', withoutSecrets(url).href);
    return { kind: 'redirect', redirect: redirect.href };
  }

  // The site's redirect from this very path, its sections and its site spaces: independent reads, made
  // together (one round trip on PostgreSQL instead of three in a row).
  const [redirected, sections, records] = await Promise.all([
    rest.raw.length > 0 ? siteRedirectFrom(context, site.id, `/${rest.raw.join('/')}`) : undefined,
    siteSections.all(context.db, site.id),
    allSiteSpaces(context.db, site.organization_id, site.id, undefined),
  ]);
  // A redirect comes before what the path would show: admins made it to send visitors on (one indexed read; the
  // reader answers it with a permanent redirect).
  if (redirected) return { kind: 'site-redirect', site, destination: redirected.destination };

  // What this visitor sees: sections and site spaces whose conditions hold for their claims.
  const claims = { ...signed, unsigned: { ...unsignedClaims(url), ...safeClaims(input.unsignedClaims) } };
  const visibleSections = sections.filter((section) => holds(section.condition, claims));
  const visibleRecords = records.filter((record) => holds(record.siteSpace.condition, claims)
    && (record.siteSpace.section_id === null || visibleSections.some((section) => section.id === record.siteSpace.section_id)));

  // The section, then the site space, the path names; a named one the visitor may not see is the same 404.
  let used = 0;
  let complete = true;
  let section: SiteSectionRow | undefined;
  if (sections.length > 0) {
    const named = sections.find((row) => row.path === rest.decoded[used]);
    if (named) {
      if (!visibleSections.includes(named)) throw noContent();
      section = named;
      used++;
    } else {
      section = visibleSections.find((row) => row.is_default === 1) ?? visibleSections[0];
      complete = false;
    }
    if (!section) throw noContent();
  }
  const levelOf = (record: SiteSpaceRecord) => record.siteSpace.section_id === (section?.id ?? null);
  const namedSpace = records.find((record) => levelOf(record) && record.siteSpace.path === rest.decoded[used]);
  let record: SiteSpaceRecord | undefined;
  if (namedSpace) {
    if (!visibleRecords.includes(namedSpace)) throw noContent();
    record = namedSpace;
    used++;
  } else {
    const level = visibleRecords.filter(levelOf);
    record = level.find((row) => row.siteSpace.is_default === 1) ?? level[0];
    complete = false;
  }
  if (!record) throw noContent();
  const pathname = rest.decoded.slice(used).join('/');
  const basePath = siteBasePath + rest.raw.slice(0, used).map((segment) => `/${segment}`).join('');
  const movedTo = await movedPagePath(context.db, record.space, pathname);
  if (movedTo !== undefined) {
    return { kind: 'moved-page', redirect: new URL(`${basePath}/${movedTo.split('/').map(encodeURIComponent).join('/')}`, url.origin).href };
  }

  const issued = await issueVisitorToken(context, {
    organizationId: site.organization_id,
    siteId: site.id,
    visibility,
    ...(shareLink ? { shareLinkId: shareLink.id } : {}),
    ...(visibility === 'visitor-auth' && auth && signed !== undefined ? { visitorAuthKeyId: auth.keyId } : {}),
    ...(member && reader ? { member: { userId: reader.user.id, ...(reader.sessionId !== undefined ? { sessionId: reader.sessionId } : { tokenId: reader.tokenId! }) } } : {}),
    siteSpaceIds: visibleRecords.map((row) => row.siteSpace.id),
    sectionIds: visibleSections.map((row) => row.id),
  });
  const canonical = withoutSecrets(url);
  canonical.search = '';
  return {
    kind: 'lookup',
    site,
    ...(section ? { section } : {}),
    record,
    siteBasePath,
    basePath,
    pathname,
    complete,
    canonicalUrl: canonical.href,
    apiToken: issued.token,
    apiTokenExpiresAt: new Date(issued.expiresAt * 1000).toISOString(),
  };
}
