import { NotFoundError, BadRequestError, ForbiddenError } from '../errors.js';
import { membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import { canManageSites, canReadSites } from '../policies/site-policy.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { findMembership } from '../stores/organization-store.js';
import { findSite, lockSite, type SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { requireSpace } from './space-access.js';
import { inTransaction } from './transaction.js';

/*
 * Who reaches a docs site, for every family of site operations (sites, site spaces, sections and section
 * groups, share links, customizations, visitor authentication): members of its organization read it, its
 * admins change it, and another organization's site answers 404 exactly like a missing one.
 */

/** The caller's standing in the site's organization: undefined for outsiders. */
export interface SiteCaller {
  membership: OrganizationMembership | undefined;
  viewer: ContentViewer;
}

export async function siteCaller(context: ServiceContext, caller: Caller, organizationId: string): Promise<SiteCaller> {
  const row = await findMembership(context.db, organizationId, caller.user.id);
  const membership = row ? membershipFromRow(row) : undefined;
  return { membership, viewer: { userId: caller.user.id, membership } };
}

/** Someone outside the organization reading its sites: the organization, to them, is not there. */
export function organizationNotFound(): NotFoundError {
  return new NotFoundError('No organization matches this id');
}

export function siteNotFound(): NotFoundError {
  return new NotFoundError('No site of this organization has this id');
}

/** The caller as a member who may read the organization's sites; 404 for anyone else. */
export async function siteReader(context: ServiceContext, caller: Caller, organizationId: string): Promise<SiteCaller> {
  const who = await siteCaller(context, caller, organizationId);
  if (!canReadSites(who.membership)) throw organizationNotFound();
  return who;
}

/** The caller as an admin who may change the organization's sites: 404 for outsiders, 403 for other members. */
export async function siteManager(context: ServiceContext, caller: Caller, organizationId: string, refusal: string): Promise<SiteCaller> {
  const who = await siteReader(context, caller, organizationId);
  if (!canManageSites(who.membership)) throw new ForbiddenError(refusal);
  return who;
}

/** A site its organization's member reads; another organization's (or a missing) site answers 404. */
export async function readableSite(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<{ site: SiteWithCount; who: SiteCaller }> {
  const who = await siteReader(context, caller, organizationId);
  const site = await findSite(context.db, organizationId, siteId);
  if (!site) throw siteNotFound();
  return { site, who };
}

/**
 * Runs `work` in a transaction on a site the caller manages, holding the site's lock. 404 for a site that is
 * not there (or is another organization's), 403 for members below admin.
 */
export async function withManagedSite<T>(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  siteId: string,
  work: (tx: ServiceContext, site: SiteWithCount, who: SiteCaller) => Promise<T>,
  options: { absent?: () => T } = {},
): Promise<T> {
  return inTransaction(context, async (tx) => {
    const who = await siteManager(tx, caller, organizationId, 'Only organization admins can change docs sites');
    await lockSite(tx.db, tx.dialect, siteId);
    const site = await findSite(tx.db, organizationId, siteId);
    if (!site) {
      if (options.absent) return options.absent();
      throw siteNotFound();
    }
    return work(tx, site, who);
  });
}

/**
 * Members see the site spaces whose spaces they see (visibility-policy's rule, in SQL); readers of the
 * published site see them all, as readers, with no role on the spaces.
 */
export function spaceFilter(who: SiteCaller): { viewer: ContentViewer; filter: boolean } {
  return { viewer: who.viewer, filter: canReadSites(who.membership) };
}

/** A space of the organization the caller sees, to publish; anything else is the caller's mistake (400). */
export async function publishableSpace(context: ServiceContext, caller: Caller, organizationId: string, spaceId: string, field: string) {
  let access;
  try {
    access = await requireSpace(context, caller, spaceId);
  } catch (error) {
    if (error instanceof NotFoundError) throw new BadRequestError(`${field}: no space of this organization has the id "${spaceId}"`);
    throw error;
  }
  if (access.space.organization_id !== organizationId) throw new BadRequestError(`${field}: no space of this organization has the id "${spaceId}"`);
  return access.space;
}
