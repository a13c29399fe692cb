import { canReadPublishedSite, type SiteVisibilityName } from '../policies/site-policy.js';
import { visitorSeesSection, visitorSeesSite, visitorSeesSiteSpace } from '../policies/visitor-policy.js';
import { findSite } from '../stores/site-store.js';
import { isVisitor, type Caller, type Principal } from './caller.js';
import type { ServiceContext } from './context.js';
import { siteCaller, siteNotFound, type SiteCaller } from './site-access.js';
import { shareKeyOf } from './site-share-link-service.js';
import { loadStructure, type SiteStructure, type SiteView } from './site-structure.js';

/*
 * The published side of a docs site, as its readers reach it through the API: members of its organization,
 * readers with its address or a share key, and visitor tokens (policies/site-policy.ts, visitor-policy.ts).
 */

/**
 * Opens a site's published structure: members see their site whatever its state; others a published site as
 * `canReadPublishedSite` allows. A refused key answers as if the site did not exist.
 */
export async function publishedView(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, shareKey: string | undefined): Promise<SiteView> {
  const who = await siteCaller(context, caller, organizationId);
  const site = await findSite(context.db, organizationId, siteId);
  if (!site) throw siteNotFound();
  const key = await shareKeyOf(context, siteId, shareKey);
  if (key === 'refused') throw siteNotFound();
  const allowed = canReadPublishedSite({
    membership: who.membership, published: site.published === 1, visibility: site.visibility as SiteVisibilityName,
    activeShareKey: key !== undefined && site.visibility === 'share-link',
  });
  if (!allowed) throw siteNotFound();
  return { site, who, ...(key !== undefined ? { shareKey: key } : {}) };
}

export async function getPublishedContentSite(context: ServiceContext, caller: Principal, organizationId: string, siteId: string, shareKey: string | undefined): Promise<SiteStructure> {
  if (isVisitor(caller)) {
    // A visitor token reads its own site only, and in it only the sections and site spaces it sees.
    const { grant } = caller;
    if (!visitorSeesSite(grant, organizationId, siteId)) throw siteNotFound();
    const site = await findSite(context.db, organizationId, siteId);
    const key = await shareKeyOf(context, siteId, shareKey);
    if (!site || key === 'refused') throw siteNotFound();
    const outsider: SiteCaller = { membership: undefined, viewer: { userId: '', membership: undefined } };
    const structure = await loadStructure(context, { site, who: outsider, ...(key !== undefined ? { shareKey: key } : {}) }, organizationId);
    return {
      ...structure,
      sections: structure.sections.filter((section) => visitorSeesSection(grant, section.id)),
      siteSpaces: structure.siteSpaces.filter((record) => visitorSeesSiteSpace(grant, record.siteSpace)),
    };
  }
  const view = await publishedView(context, caller, organizationId, siteId, shareKey);
  return loadStructure(context, view, organizationId);
}
