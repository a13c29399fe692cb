import { BadRequestError } from '../errors.js';
import type { Db } from '../db/index.js';
import type { SiteRedirectRow } from '../stores/site-redirect-store.js';
import { siteSections, type SiteSectionRow } from '../stores/site-section-store.js';
import { findSiteSpace, type SiteSpaceRow } from '../stores/site-space-store.js';
import { findSpaceById } from '../stores/space-store.js';
import { loadRevisionContent, revisionRoot } from './revision-content.js';

/*
 * Where a site redirect leads, read from the site as it is now: a section, a site space, or a page of a site
 * space's space in its current revision. Written destinations must name parts of the same site (else 400);
 * a destination whose part was deleted since resolves to nothing, which callers answer as no redirect.
 */

export type RedirectDestinationInput =
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string };

/** A destination with the rows its address is built from (http/presenters/site-redirect-presenter.ts). */
export type ResolvedDestination =
  | { kind: 'site-section'; section: SiteSectionRow }
  | { kind: 'site-space' | 'site-page'; section: SiteSectionRow | undefined; siteSpace: SiteSpaceRow; pagePath?: string };

/** The destination columns of a row, from a request's destination. */
export function destinationColumns(destination: RedirectDestinationInput): Pick<SiteRedirectRow, 'destination_kind' | 'site_section_id' | 'site_space_id' | 'page_id'> {
  return {
    destination_kind: destination.kind,
    site_section_id: destination.kind === 'site-section' ? destination.siteSectionId : null,
    site_space_id: destination.kind === 'site-section' ? null : destination.siteSpaceId,
    page_id: destination.kind === 'site-page' ? destination.pageId : null,
  };
}

/** A row's destination as the contract shows it. */
export function destinationOf(row: SiteRedirectRow): RedirectDestinationInput {
  if (row.destination_kind === 'site-section') return { kind: 'site-section', siteSectionId: row.site_section_id ?? '' };
  if (row.destination_kind === 'site-page') return { kind: 'site-page', siteSpaceId: row.site_space_id ?? '', pageId: row.page_id ?? '' };
  return { kind: 'site-space', siteSpaceId: row.site_space_id ?? '' };
}

/** The page's path in the current revision of the site space's space; undefined for a missing or pathless page. */
async function pagePathIn(db: Db, siteSpace: SiteSpaceRow, pageId: string): Promise<string | undefined> {
  const space = await findSpaceById(db, siteSpace.space_id);
  if (!space) return undefined;
  const content = await loadRevisionContent(db, await revisionRoot(db, space.id, space.revision_id));
  return content.pages.get(pageId)?.page.path;
}

/** The destination in the site as it is now; undefined when what it names is no longer there. */
export async function resolveDestination(db: Db, siteId: string, destination: RedirectDestinationInput): Promise<ResolvedDestination | undefined> {
  if (destination.kind === 'site-section') {
    const section = await siteSections.find(db, siteId, destination.siteSectionId);
    return section ? { kind: 'site-section', section } : undefined;
  }
  const siteSpace = await findSiteSpace(db, siteId, destination.siteSpaceId);
  if (!siteSpace) return undefined;
  const section = siteSpace.section_id === null ? undefined : await siteSections.find(db, siteId, siteSpace.section_id);
  if (destination.kind === 'site-space') return { kind: 'site-space', section, siteSpace };
  const pagePath = await pagePathIn(db, siteSpace, destination.pageId);
  return pagePath === undefined ? undefined : { kind: 'site-page', section, siteSpace, pagePath };
}

/** A destination a request writes must be in the site now: 400 naming the field otherwise. */
export async function requireDestination(db: Db, siteId: string, destination: RedirectDestinationInput): Promise<ResolvedDestination> {
  const resolved = await resolveDestination(db, siteId, destination);
  if (resolved) return resolved;
  if (destination.kind === 'site-section') throw new BadRequestError(`body.destination.siteSectionId: no section of this site has the id "${destination.siteSectionId}"`);
  if (destination.kind === 'site-page' && (await findSiteSpace(db, siteId, destination.siteSpaceId))) {
    throw new BadRequestError(`body.destination.pageId: the site space's space has no page with a path and the id "${destination.pageId}"`);
  }
  throw new BadRequestError(`body.destination.siteSpaceId: no site space of this site has the id "${destination.siteSpaceId}"`);
}
