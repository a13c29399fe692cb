import type { components } from '@quire/api-types';
import { parseCustomization } from '../../content/site-customization.js';
import { siteFeatures } from '../../content/site-features.js';
import type { SiteWithCount } from '../../stores/site-store.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';

export type ApiSite = components['schemas']['Site'];

/*
 * Addresses of published sites (apps/server/README.md, "Addresses"): a site is read at
 * `{QUIRE_PUBLIC_URL}/sites/{basename or site id}`, or at `{scheme of QUIRE_PUBLIC_URL}://{hostname}` when it
 * has a hostname; a section at `<site>/{section path}`, a site space at `<site>[/{section path}]/{site-space
 * path}`. A share link's key rides along as `?shareKey=<key>`. `urls.published` exists only while the site
 * is published. These functions are the one statement of that rule; the presenters of the site's parts
 * (site-space-, site-section-, site-share-link-presenter.ts) build their addresses with them.
 */

export function siteAddress(context: PresentContext, site: { id: string; basename: string | null; hostname: string | null }): string {
  if (site.hostname) return `${new URL(context.publicUrl).protocol}//${site.hostname}`;
  return `${context.publicUrl}/sites/${encodeURIComponent(site.basename ?? site.id)}`;
}

export function keyed(url: string, shareKey: string | undefined): string {
  return shareKey === undefined ? url : `${url}?shareKey=${encodeURIComponent(shareKey)}`;
}

export function sectionAddress(context: PresentContext, site: SiteWithCount, section: { path: string }): string {
  return `${siteAddress(context, site)}/${encodeURIComponent(section.path)}`;
}

export function siteSpaceAddress(context: PresentContext, site: SiteWithCount, section: { path: string } | undefined, siteSpace: { path: string }): string {
  const level = section ? sectionAddress(context, site, section) : siteAddress(context, site);
  return `${level}/${encodeURIComponent(siteSpace.path)}`;
}

/** `urls.published`: present only while the site is published. */
export function publishedUrl(site: SiteWithCount, url: () => string, shareKey: string | undefined): { published?: string } {
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
