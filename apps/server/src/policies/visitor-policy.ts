import type { Role } from './roles.js';
import type { SiteVisibilityName } from './site-policy.js';

/*
 * What a visitor of a published site may do with the visitor token (`apiToken`) that
 * `getPublishedContentByUrl` issues: the one statement of that rule. A visitor is not a user and holds no
 * role in the organization; they read the published content of one site, and only the site spaces the
 * lookup found visible to them (share link, signed and unsigned claims against the site spaces'
 * conditions). Everything else is refused: other operations with 403, ids outside the site with 404.
 */

/** The reads of a site's published content; nothing that writes, and nothing about the organization. */
export const VISITOR_OPERATIONS: ReadonlySet<string> = new Set([
  'getPublishedContentSite',
  'getSpaceById',
  'getCurrentRevision',
  'listPages',
  'getPageById',
  'listFiles',
  'getFileById',
  'searchSpaceContent',
]);

export function visitorMayCall(operationId: string): boolean {
  return VISITOR_OPERATIONS.has(operationId);
}

/** What a visitor token grants, as signed into it when it was issued. */
export interface VisitorGrant {
  organizationId: string;
  siteId: string;
  /** The site's visibility when the token was issued: a change of visibility closes the token. */
  visibility: SiteVisibilityName;
  /** The share link the visitor came through (share-link sites). */
  shareLinkId?: string;
  /** The visitor-auth key whose JWT the visitor showed (visitor-auth sites). */
  visitorAuthKeyId?: string;
  /** Site spaces and sections this visitor sees (their conditions hold for the visitor's claims). */
  siteSpaceIds: readonly string[];
  sectionIds: readonly string[];
  /** Seconds since the epoch. */
  expiresAt: number;
}

/** The site as it is now, read on every request made with a token. */
export interface VisitorSiteState {
  site: { organization_id: string; published: number; visibility: string } | undefined;
  /** Whether the token's share link still exists and is active (undefined when the token names none). */
  shareLinkActive?: boolean;
  /** The site's current visitor-auth key id (undefined when the site has none). */
  visitorAuthKeyId?: string;
}

/**
 * Whether a site opens to an anonymous visitor: `public` and `unlisted` to anyone with the address,
 * `share-link` with the key of an active link, `visitor-auth` with a JWT verified with the site's key. An
 * unpublished site opens to no visitor (members read it through their own tokens).
 */
export function siteOpensToVisitor(access: { published: boolean; visibility: SiteVisibilityName; activeShareLink: boolean; verifiedVisitor: boolean }): boolean {
  if (!access.published) return false;
  switch (access.visibility) {
    case 'public':
    case 'unlisted':
      return true;
    case 'share-link':
      return access.activeShareLink;
    case 'visitor-auth':
      return access.verifiedVisitor;
  }
}

/**
 * Whether an issued token still holds: the site is still published with the same visibility in the same
 * organization, the share link used is still active, and the visitor-auth key that verified the JWT is still
 * the site's. Checked on every request, so unpublishing or deactivating a link closes tokens at once.
 */
export function visitorGrantHolds(grant: VisitorGrant, state: VisitorSiteState, nowSeconds: number): boolean {
  if (grant.expiresAt <= nowSeconds) return false;
  const { site } = state;
  if (!site || site.organization_id !== grant.organizationId || site.published !== 1 || site.visibility !== grant.visibility) return false;
  if (!siteOpensToVisitor({
    published: true,
    visibility: grant.visibility,
    activeShareLink: grant.shareLinkId !== undefined && state.shareLinkActive === true,
    verifiedVisitor: grant.visitorAuthKeyId !== undefined && state.visitorAuthKeyId === grant.visitorAuthKeyId,
  })) return false;
  return true;
}

export function visitorSeesSite(grant: VisitorGrant, organizationId: string, siteId: string): boolean {
  return grant.organizationId === organizationId && grant.siteId === siteId;
}

export function visitorSeesSiteSpace(grant: VisitorGrant, siteSpace: { id: string; site_id: string }): boolean {
  return siteSpace.site_id === grant.siteId && grant.siteSpaceIds.includes(siteSpace.id);
}

export function visitorSeesSection(grant: VisitorGrant, sectionId: string): boolean {
  return grant.sectionIds.includes(sectionId);
}

/** The role a visitor reads published content with, for the `permissions` of what they read: reading only. */
export const VISITOR_ROLE: Role = 'read';
