import { isUniqueViolation } from '../db/dialect.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import type { KeysetPage } from '../stores/keyset.js';
import {
  deleteSiteRedirect,
  findSiteRedirect,
  findSiteRedirectBySource,
  insertSiteRedirect,
  listSiteRedirectsPage,
  SITE_REDIRECT_ORDER_KEY_LENGTH,
  updateSiteRedirect,
  type SiteRedirectRow,
} from '../stores/site-redirect-store.js';
import type { SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { readableSite, siteNotFound, withManagedSite } from './site-access.js';
import { destinationColumns, destinationOf, requireDestination, resolveDestination, type RedirectDestinationInput, type ResolvedDestination } from './site-redirect-destination.js';
import { shareKeyOf } from './site-share-link-service.js';

/*
 * Redirects of docs sites: a path of the site (`source`) that the reader answers with a permanent redirect to
 * a section, site space or page of the same site. Members of the organization read them, its admins change
 * them (policies/site-policy.ts through site-access.ts). One redirect per source and site: a second is 409.
 */

export interface SiteRedirectBody {
  source?: string;
  destination?: RedirectDestinationInput;
}

function duplicateSource(source: string): ConflictError {
  return new ConflictError(`The site has a redirect from "${source}" already`);
}

function redirectNotFound(): NotFoundError {
  return new NotFoundError('The site has no redirect with this id');
}

/** The write, with the duplicate that a concurrent write could still make answered as the same 409. */
async function writeRedirect<T>(source: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (source !== undefined && isUniqueViolation(error)) throw duplicateSource(source);
    throw error;
  }
}

export async function listSiteRedirects(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { page?: string; limit?: number; search?: string }): Promise<KeysetPage<SiteRedirectRow>> {
  const { after, limit } = pageRequest(query, SITE_REDIRECT_ORDER_KEY_LENGTH);
  await readableSite(context, caller, organizationId, siteId);
  return listSiteRedirectsPage(context.db, siteId, query.search, after, limit);
}

export async function createSiteRedirect(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: Required<SiteRedirectBody>): Promise<SiteRedirectRow> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    // The site's lock is held, so this check and the insert see the same redirects.
    if (await findSiteRedirectBySource(tx.db, siteId, body.source)) throw duplicateSource(body.source);
    await requireDestination(tx.db, siteId, body.destination);
    const id = newId();
    await writeRedirect(body.source, () => insertSiteRedirect(tx.db, { id, site_id: siteId, source: body.source, ...destinationColumns(body.destination), created_at: nowIso() }));
    return (await findSiteRedirect(tx.db, siteId, id))!;
  });
}

export async function updateSiteRedirectById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, siteRedirectId: string, body: SiteRedirectBody): Promise<SiteRedirectRow> {
  return withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const found = await findSiteRedirect(tx.db, siteId, siteRedirectId);
    if (!found) throw redirectNotFound();
    const source = body.source !== undefined && body.source !== found.source ? body.source : undefined;
    if (source !== undefined && (await findSiteRedirectBySource(tx.db, siteId, source))) throw duplicateSource(source);
    if (body.destination) await requireDestination(tx.db, siteId, body.destination);
    await writeRedirect(source, () => updateSiteRedirect(tx.db, siteRedirectId, {
      ...(source !== undefined ? { source } : {}),
      ...(body.destination ? destinationColumns(body.destination) : {}),
    }));
    return (await findSiteRedirect(tx.db, siteId, siteRedirectId))!;
  });
}

/** Whether a redirect was deleted (205) or there was none (204). */
export async function deleteSiteRedirectById(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, siteRedirectId: string): Promise<boolean> {
  return withManagedSite(context, caller, organizationId, siteId, (tx) => deleteSiteRedirect(tx.db, siteId, siteRedirectId));
}

export interface ResolvedSiteRedirect {
  site: SiteWithCount;
  redirect: SiteRedirectRow;
  destination: ResolvedDestination;
  /** An active share link's key the caller gave, to ride along in the target (share-link sites need it). */
  shareKey?: string;
}

/** The redirect from `source` and where it leads now; 404 when there is none or its destination is gone. */
export async function getSiteRedirectBySource(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, query: { source: string; shareKey?: string }): Promise<ResolvedSiteRedirect> {
  const { site } = await readableSite(context, caller, organizationId, siteId);
  const key = await shareKeyOf(context, siteId, query.shareKey);
  if (key === 'refused') throw siteNotFound();
  const found = await siteRedirectFrom(context, siteId, query.source);
  if (!found) throw new NotFoundError('The site has no redirect from this source');
  return { site, ...found, ...(key !== undefined ? { shareKey: key } : {}) };
}

/**
 * The redirect of a site from a path and its destination as the site is now, for the lookup of a published
 * address and getSiteRedirectBySource alike; undefined when there is none or its destination is gone.
 */
export async function siteRedirectFrom(context: ServiceContext, siteId: string, source: string): Promise<{ redirect: SiteRedirectRow; destination: ResolvedDestination } | undefined> {
  const redirect = await findSiteRedirectBySource(context.db, siteId, source);
  if (!redirect) return undefined;
  const destination = await resolveDestination(context.db, siteId, destinationOf(redirect));
  return destination ? { redirect, destination } : undefined;
}
