import type { components } from '@quire/api-types';
import { destinationOf, type ResolvedDestination } from '../../services/site-redirect-destination.js';
import type { SiteRedirectRow } from '../../stores/site-redirect-store.js';
import type { SiteWithCount } from '../../stores/site-store.js';
import type { PresentContext } from './context.js';
import { keyed, sectionAddress, siteSpaceAddress } from './site-presenter.js';

export type ApiSiteRedirect = components['schemas']['SiteRedirect'];

export function presentSiteRedirect(row: SiteRedirectRow): ApiSiteRedirect {
  return { object: 'site-redirect', id: row.id, source: row.source, destination: destinationOf(row) };
}

/** The published address of a redirect's destination, by the site presenter's rule for addresses. */
export function redirectTargetAddress(context: PresentContext, site: SiteWithCount, destination: ResolvedDestination, shareKey?: string): string {
  if (destination.kind === 'site-section') return keyed(sectionAddress(context, site, destination.section), shareKey);
  const space = siteSpaceAddress(context, site, destination.section, destination.siteSpace);
  const page = destination.pagePath ? `/${destination.pagePath.split('/').map(encodeURIComponent).join('/')}` : '';
  return keyed(space + page, shareKey);
}
