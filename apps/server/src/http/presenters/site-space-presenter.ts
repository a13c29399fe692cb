import type { components } from '@quire/api-types';
import type { SiteSectionRow } from '../../stores/site-section-store.js';
import type { SiteSpaceRecord, SiteSpaceRow } from '../../stores/site-space-store.js';
import type { SiteWithCount } from '../../stores/site-store.js';
import type { PresentContext } from './context.js';
import { keyed, publishedUrl, siteSpaceAddress } from './site-presenter.js';
import { presentSpace } from './space-presenter.js';

export type ApiSiteSpace = components['schemas']['SiteSpace'];

export function presentSiteSpace(context: PresentContext, site: SiteWithCount, sections: readonly SiteSectionRow[], record: SiteSpaceRecord, shareKey?: string): ApiSiteSpace {
  const { siteSpace, space } = record;
  const section = siteSpace.section_id ? sections.find((row) => row.id === siteSpace.section_id) : undefined;
  const published = publishedUrl(site, () => siteSpaceAddress(context, site, section, siteSpace), shareKey);
  const presentedSpace = presentSpace(context, { space, role: record.role });
  return {
    object: 'site-space',
    id: siteSpace.id,
    path: siteSpace.path,
    ...(siteSpace.section_id ? { section: siteSpace.section_id } : {}),
    space: { ...presentedSpace, urls: { ...presentedSpace.urls, ...published } },
    title: space.title,
    default: siteSpace.is_default === 1,
    ...(siteSpace.condition !== null ? { condition: siteSpace.condition } : {}),
    // Every site space can override its site's customization (overrideSiteSpaceCustomizationById): no plan gates it here.
    hasAdvancedCustomizationFeature: true,
    urls: published,
  };
}

/** `urls.published` of a space published on a site (GET /spaces/{spaceId}), from the same address rule. */
export function publishedSpaceUrl(context: PresentContext, found: { site: SiteWithCount; sections: readonly SiteSectionRow[]; siteSpace: SiteSpaceRow; shareKey?: string }): string {
  const section = found.siteSpace.section_id ? found.sections.find((row) => row.id === found.siteSpace.section_id) : undefined;
  return keyed(siteSpaceAddress(context, found.site, section, found.siteSpace), found.shareKey);
}
