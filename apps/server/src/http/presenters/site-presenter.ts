import type { components } from '@quire/api-types';
import { completeCustomization, parseCustomization } from '../../content/site-customization.js';
import { siteFeatures } from '../../content/site-features.js';
import type { AdaptiveSchemaRecord, CustomizationRecord, ShareLinkRecord, SiteStructure } from '../../services/site-service.js';
import type { SiteSectionGroupRow, SiteSectionRow, SiteSpaceRecord, SiteSpaceRow, SiteWithCount } from '../../stores/site-store.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';
import { presentSpace } from './space-presenter.js';

export type ApiSite = components['schemas']['Site'];
export type ApiSiteSpace = components['schemas']['SiteSpace'];
export type ApiSiteSection = components['schemas']['SiteSection'];
export type ApiSiteSectionGroup = components['schemas']['SiteSectionGroup'];
export type ApiShareLink = components['schemas']['ShareLink'];
export type ApiPublishedContentSite = components['schemas']['PublishedContentSite'];
type ApiSiteCustomization = components['schemas']['SiteCustomization'];

/*
 * Addresses of published sites (apps/server/README.md, "Addresses"): a site is read at
 * `{QUIRE_PUBLIC_URL}/sites/{basename or site id}`, or at `{scheme of QUIRE_PUBLIC_URL}://{hostname}` when it
 * has a hostname; a section at `<site>/{section path}`, a site space at `<site>[/{section path}]/{site-space
 * path}`. A share link's key rides along as `?shareKey=<key>`. `urls.published` exists only while the site
 * is published. These functions are the one statement of that rule.
 */

export function siteAddress(context: PresentContext, site: { id: string; basename: string | null; hostname: string | null }): string {
  if (site.hostname) return `${new URL(context.publicUrl).protocol}//${site.hostname}`;
  return `${context.publicUrl}/sites/${encodeURIComponent(site.basename ?? site.id)}`;
}

function keyed(url: string, shareKey: string | undefined): string {
  return shareKey === undefined ? url : `${url}?shareKey=${encodeURIComponent(shareKey)}`;
}

export function sectionAddress(context: PresentContext, site: SiteWithCount, section: { path: string }): string {
  return `${siteAddress(context, site)}/${encodeURIComponent(section.path)}`;
}

export function siteSpaceAddress(context: PresentContext, site: SiteWithCount, section: { path: string } | undefined, siteSpace: { path: string }): string {
  const level = section ? sectionAddress(context, site, section) : siteAddress(context, site);
  return `${level}/${encodeURIComponent(siteSpace.path)}`;
}

function publishedUrl(site: SiteWithCount, url: () => string, shareKey: string | undefined): { published?: string } {
  return site.published === 1 ? { published: keyed(url(), shareKey) } : {};
}

export function presentSite(context: PresentContext, site: SiteWithCount): ApiSite {
  const id = encodeURIComponent(site.id);
  return {
    object: 'site',
    id: site.id,
    type: site.type as ApiSite['type'],
    title: site.title,
    ...(site.hostname ? { hostname: site.hostname } : {}),
    ...(site.basename ? { basename: site.basename } : {}),
    ...(site.proxy ? { proxy: { origin: site.proxy, target: siteAddress(context, site) } } : {}),
    visibility: site.visibility as ApiSite['visibility'],
    published: site.published === 1,
    siteSpaces: site.site_spaces_count,
    createdAt: site.created_at,
    adaptiveContent: { enabled: site.adaptive_content === 1 },
    agentsContext: site.agents_context as ApiSite['agentsContext'],
    features: siteFeatures({
      type: site.type, visibility: site.visibility, hostname: site.hostname, adaptiveContent: site.adaptive_content === 1, customization: parseCustomization(site.customizations),
    }) as ApiSite['features'],
    urls: {
      location: apiUrl(context, `/orgs/${encodeURIComponent(site.organization_id)}/sites/${id}`),
      app: appUrl(context, `/o/${encodeURIComponent(site.organization_id)}/sites/${id}`),
      ...publishedUrl(site, () => siteAddress(context, site), undefined),
    },
  };
}

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

export function presentSiteSection(context: PresentContext, structure: SiteStructure, section: SiteSectionRow): ApiSiteSection {
  return {
    object: 'site-section',
    id: section.id,
    title: section.title,
    default: section.is_default === 1,
    path: section.path,
    ...(section.condition !== null ? { condition: section.condition } : {}),
    ...(section.group_id ? { sectionGroup: section.group_id } : {}),
    siteSpaces: structure.siteSpaces.filter((record) => record.siteSpace.section_id === section.id)
      .map((record) => presentSiteSpace(context, structure.site, structure.sections, record, structure.shareKey)),
    ...(section.icon !== null ? { icon: section.icon } : {}),
    urls: publishedUrl(structure.site, () => sectionAddress(context, structure.site, section), structure.shareKey),
  };
}

/** The sections and groups directly under a group (null: the root of the site), in their order. */
function childrenOf(context: PresentContext, structure: SiteStructure, groupId: string | null, seen: Set<string>): Array<ApiSiteSection | ApiSiteSectionGroup> {
  const items: Array<{ position: string; id: string; present: () => ApiSiteSection | ApiSiteSectionGroup }> = [
    ...structure.sections.filter((section) => section.group_id === groupId).map((section) => ({ position: section.position, id: section.id, present: () => presentSiteSection(context, structure, section) })),
    ...structure.groups.filter((group) => group.parent_id === groupId && !seen.has(group.id))
      .map((group) => ({ position: group.position, id: group.id, present: () => presentGroup(context, structure, group, seen) })),
  ];
  items.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : 1));
  return items.map((item) => item.present());
}

function presentGroup(context: PresentContext, structure: SiteStructure, group: SiteSectionGroupRow, seen: Set<string>): ApiSiteSectionGroup {
  // `seen` guards the walk: the service never makes a cycle, and a presenter must not loop if one were stored.
  const inner = new Set(seen).add(group.id);
  return {
    object: 'site-section-group',
    id: group.id,
    title: group.title,
    ...(group.parent_id ? { sectionGroup: group.parent_id } : {}),
    ...(group.icon !== null ? { icon: group.icon } : {}),
    children: childrenOf(context, structure, group.id, inner),
  };
}

export function presentSiteSectionGroup(context: PresentContext, structure: SiteStructure, group: SiteSectionGroupRow): ApiSiteSectionGroup {
  return presentGroup(context, structure, group, new Set());
}

export function presentShareLink(context: PresentContext, site: SiteWithCount, { link, key }: ShareLinkRecord): ApiShareLink {
  return {
    object: 'share-link',
    id: link.id,
    createdAt: link.created_at,
    name: link.name,
    active: link.active === 1,
    urls: publishedUrl(site, () => siteAddress(context, site), key),
  };
}

/** The complete settings a customization operation answers (content/site-customization.ts merges them). */
export function presentCustomization(record: CustomizationRecord): ApiSiteCustomization {
  return completeCustomization(record.site, record.siteSpace) as ApiSiteCustomization;
}

export function presentPublishedContentSite(context: PresentContext, structure: SiteStructure): ApiPublishedContentSite {
  // Each site space answers its complete settings (the site's with its overrides), as the public API does.
  const site = parseCustomization(structure.site.customizations);
  const customizations: Record<string, ApiSiteCustomization> = {};
  for (const { siteSpace } of structure.siteSpaces) customizations[siteSpace.id] = presentCustomization({ site, siteSpace: parseCustomization(siteSpace.customizations) });
  return {
    object: 'published-content-site',
    site: presentSite(context, structure.site),
    structure: structure.sections.length > 0
      ? { type: 'sections', structure: childrenOf(context, structure, null, new Set()) }
      : { type: 'siteSpaces', structure: structure.siteSpaces.map((record) => presentSiteSpace(context, structure.site, structure.sections, record, structure.shareKey)) },
    customizations: { site: presentCustomization({ site }), siteSpaces: customizations },
    // Integrations are published but never installed on a site in Quire (no installation operations), so no
    // integration holds the site:script:inject grant a script needs here: see apps/server/README.md.
    scripts: [],
  };
}

/** `urls.published` of a space published on a site (GET /spaces/{spaceId}), from the same address rule. */
export function publishedSpaceUrl(context: PresentContext, found: { site: SiteWithCount; sections: readonly SiteSectionRow[]; siteSpace: SiteSpaceRow; shareKey?: string }): string {
  const section = found.siteSpace.section_id ? found.sections.find((row) => row.id === found.siteSpace.section_id) : undefined;
  return keyed(siteSpaceAddress(context, found.site, section, found.siteSpace), found.shareKey);
}

export function presentAdaptiveSchema(record: AdaptiveSchemaRecord): components['schemas']['SiteAdaptiveSchema'] {
  return { object: 'site-adaptive-schema', jsonSchema: record.jsonSchema as components['schemas']['SiteAdaptiveJSONSchema'], updatedAt: record.updatedAt };
}
