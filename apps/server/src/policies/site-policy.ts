import { canAdministerOrganization, canViewOrganization, type OrganizationMembership } from './organization-policy.js';

/*
 * Who reads and who changes docs sites. Members of the organization read its sites (the spaces a site
 * publishes are shown to each member as `contentRole` of visibility-policy.ts lets them see them);
 * organization admins create, change, publish and delete them. Readers outside the organization reach only
 * the published structure of a published site, as its visibility allows.
 */

export type SiteVisibilityName = 'public' | 'unlisted' | 'share-link' | 'visitor-auth';

export function canReadSites(membership: OrganizationMembership | undefined): boolean {
  return canViewOrganization(membership);
}

export function canManageSites(membership: OrganizationMembership | undefined): boolean {
  return canAdministerOrganization(membership);
}

/** What decides whether a caller reads a site's published structure. */
export interface PublishedSiteAccess {
  membership: OrganizationMembership | undefined;
  published: boolean;
  visibility: SiteVisibilityName;
  /** Whether the request carries the key of an active share link of this very site. */
  activeShareKey: boolean;
}

/**
 * Members see their sites published or not. Others see a published site: a `public` or `unlisted` one as
 * anyone who has its address, a `share-link` one only with the key of an active share link, and never a
 * `visitor-auth` one here (its readers prove who they are to the site itself, with a signed token).
 */
export function canReadPublishedSite({ membership, published, visibility, activeShareKey }: PublishedSiteAccess): boolean {
  if (canReadSites(membership)) return true;
  if (!published) return false;
  if (visibility === 'public' || visibility === 'unlisted') return true;
  if (visibility === 'share-link') return activeShareKey;
  return false;
}

/** Share-link keys are secrets that open the site: only those who manage it see them. */
export function canSeeShareKeys(membership: OrganizationMembership | undefined): boolean {
  return canManageSites(membership);
}
