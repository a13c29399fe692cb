import type { SiteData } from '../api/published-sites.js';
import type { AssetPaths, LayoutContext } from '../site/layout.js';
import type { SiteTree } from '../site/tree.js';
import type { PublishedSite, SiteCustomization } from '../site/types.js';

function mergeCustomization(site: PublishedSite, siteSpaceId: string): SiteCustomization {
  const own = site.customizations.siteSpaces[siteSpaceId];
  return own ? { ...site.customizations.site, ...own } : site.customizations.site;
}

/** What the layout shows around a page of the looked-up site space. */
export function layoutContext(info: SiteData, tree: SiteTree, assets: AssetPaths): LayoutContext {
  const { lookup, site } = info;
  return {
    site,
    customization: mergeCustomization(site, lookup.siteSpace),
    siteSpaceId: lookup.siteSpace,
    siteSectionId: lookup.siteSection,
    siteBasePath: lookup.siteBasePath,
    basePath: lookup.basePath,
    tree,
    assets,
    noindex: lookup.visibility !== 'public',
  };
}
