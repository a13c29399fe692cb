import type { OrganizationMembership } from './organization-policy.js';
import type { Role } from './roles.js';
import type { SiteVisibilityName } from './site-policy.js';

/*
 * What a visitor of a published site may do with the visitor token (`apiToken`) that
 * `getPublishedContentByUrl` issues: the one statement of that rule. A visitor is not a user and holds no
 * role in the organization; they read the published content of one site, and only the site spaces the
 * lookup found visible to them (share link, signed and unsigned claims against the site spaces'
 * conditions). Everything else is refused: other operations with 403, ids outside the site with 404.
 *
 * A member of the site's organization who sends their own token to the lookup (the reader forwards the SSO
 * session) is let into any published site of it whatever its visibility (`memberReadsSite`), and reads it
 * as a visitor would: the same visitor token, naming them, and the same conditions on the claims given.
 */

/** The reads of a site's published content; nothing that writes, and nothing about the organization. */
export const VISITOR_OPERATIONS: ReadonlySet<string> = new Set([
  'getPublishedContentSite',
  'getSpaceById',
  'getCurrentRevision',
  'listPages',
  'getPageById',
  'getReusableContentById',
  'listFiles',
  'getFileById',
  'searchSpaceContent',
  // The site's own logo and icon, which its pages show (the service reads only the visitor's own site's).
  'getSiteCustomizationImageById',
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
  /**
   * The member whose own token or browser session opened the site (a share-link or visitor-auth site opened
   * by membership alone): the grant holds only while they are still a member and that token or session still
   * valid. One of `tokenId` and `sessionId` is set.
   */
  member?: { userId: string; tokenId?: string; sessionId?: string };
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
  /** For a grant naming a member: their token and their membership in the site's organization as they are now. */
  member?: { token: MemberTokenState | undefined; membership: OrganizationMembership | undefined };
}

/** A user's token as the store answers it: whose it is, which organization a session is scoped to, its expiry. */
export interface MemberTokenState {
  user_id: string;
  organization_id: string | null;
  expires_at: string | null;
}

/**
 * Whether the person sending their own token reads the organization's published sites as a member: an
 * enabled membership with an organization role (a guest's access is only the spaces granted to them, which
 * a whole site would exceed), and a token that acts in this organization (a session started through
 * another organization's SSO acts there only).
 */
export function memberReadsSite(reader: { sessionOrganizationId?: string | null } | undefined, siteOrganizationId: string, membership: OrganizationMembership | undefined): boolean {
  if (!reader || !membership || membership.disabled || membership.role === null) return false;
  return reader.sessionOrganizationId == null || reader.sessionOrganizationId === siteOrganizationId;
}

/**
 * Whether a site opens to a visitor: `public` and `unlisted` to anyone with the address, `share-link` with
 * the key of an active link, `visitor-auth` with a JWT verified with the site's key, and any of them to a
 * member (`memberReadsSite`). An unpublished site opens to no visitor (members read it through the API).
 */
export function siteOpensToVisitor(access: { published: boolean; visibility: SiteVisibilityName; activeShareLink: boolean; verifiedVisitor: boolean; member?: boolean }): boolean {
  if (!access.published) return false;
  if (access.member === true) return true;
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
 * organization, the share link used is still active, the visitor-auth key that verified the JWT is still
 * the site's, and the member it names is still one with a valid token. Checked on every request, so unpublishing or deactivating a link closes tokens at once.
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
    member: grant.member !== undefined && memberStillReads(grant.member, grant.organizationId, state.member, nowSeconds),
  })) return false;
  return true;
}

/** The member a grant names is still one, and the token they showed is still theirs, unrevoked and unexpired. */
function memberStillReads(member: NonNullable<VisitorGrant['member']>, organizationId: string, state: VisitorSiteState['member'], nowSeconds: number): boolean {
  const token = state?.token;
  if (!token || token.user_id !== member.userId) return false;
  if (token.expires_at !== null && Date.parse(token.expires_at) <= nowSeconds * 1000) return false;
  return memberReadsSite({ sessionOrganizationId: token.organization_id }, organizationId, state.membership);
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
