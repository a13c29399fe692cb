import type { IncomingMessage, ServerResponse } from 'node:http';
import { data } from '../api/api-failure.js';
import type { SiteData } from '../api/published-sites.js';
import { readPageContent, type RevisionContent } from '../api/revision-content.js';
import { setCommonHeaders } from '../http/headers.js';
import { send, sendNotFoundText, TEXT } from '../http/respond.js';
import { addressPath } from '../site/layout.js';
import { llmsTxt, markdownHref, robotsTxt, rssXml, sitemapXml, type SpacePages } from '../site/machines.js';
import { buildTree } from '../site/tree.js';
import type { PublishedSite, SiteSection, SiteSectionGroup, SiteSpace } from '../site/types.js';

/** The files answered for machines under a site space's address (their formats: site/machines.ts). */
export const MACHINE_FILES: ReadonlySet<string> = new Set(['sitemap.xml', 'robots.txt', 'llms.txt', 'llms-full.txt', 'rss.xml']);

function isGroup(entry: SiteSection | SiteSectionGroup): entry is SiteSectionGroup {
  return entry.object === 'site-section-group';
}

/** Every site space of the published structure (those this visitor sees). */
export function allSiteSpaces(site: PublishedSite): SiteSpace[] {
  if (site.structure.type === 'siteSpaces') return site.structure.structure;
  const out: SiteSpace[] = [];
  const walk = (items: Array<SiteSection | SiteSectionGroup>) => {
    for (const item of items) {
      if (isGroup(item)) walk(item.children);
      else out.push(...item.siteSpaces);
    }
  };
  walk(site.structure.structure);
  return out;
}

type SiteSpacePages = SpacePages & { basePath: string; spaceId: string };

/** Pages of every site space this visitor sees, with their base paths (machine files list the whole site). */
async function wholeSite(info: SiteData, revisions: RevisionContent): Promise<SiteSpacePages[]> {
  const { client } = info;
  const out: SiteSpacePages[] = [];
  for (const siteSpace of allSiteSpaces(info.site)) {
    const basePath = siteSpace.id === info.lookup.siteSpace ? info.lookup.basePath : addressPath(siteSpace.urls.published)?.split('?')[0];
    if (basePath === undefined) continue;
    const spaceId = siteSpace.space.id;
    const revision = siteSpace.id === info.lookup.siteSpace ? info.lookup.revision : (siteSpace.space as { revision?: string }).revision ?? 'current';
    const roots = revision === 'current' ? (await data(client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId } } }))).pages : await revisions.pages(client, spaceId, revision);
    const tree = buildTree(roots, basePath === '/' ? '' : basePath);
    out.push({ title: siteSpace.title, pages: tree.listed, basePath: basePath === '/' ? '' : basePath, spaceId });
  }
  return out;
}

async function llmsFullTxt(title: string, origin: string, info: SiteData, spaces: SiteSpacePages[]): Promise<string> {
  const parts: string[] = [`# ${title}`, ''];
  for (const space of spaces) {
    for (const entry of space.pages) {
      if (entry.page.type !== 'document') continue;
      const page = await readPageContent(info.client, space.spaceId, entry.page.id);
      parts.push(`# ${entry.page.title}`, '', `Source: ${origin}${markdownHref(entry, space.basePath)}`, '', page.markdown ?? '', '');
    }
  }
  return parts.join('\n');
}

/** Answers one of MACHINE_FILES for the site at `origin`. */
export async function sendMachineFile(req: IncomingMessage, res: ServerResponse, info: SiteData, name: string, origin: string, revisions: RevisionContent): Promise<void> {
  const { lookup } = info;
  const title = info.site.customizations.site.title ?? info.site.site.title;
  setCommonHeaders(res, lookup.visibility);
  if (name === 'robots.txt' || name === 'sitemap.xml') {
    if (lookup.visibility !== 'public') {
      sendNotFoundText(res, req);
      return;
    }
    if (name === 'robots.txt') send(res, req, 200, TEXT, robotsTxt(origin, lookup.siteBasePath));
    else send(res, req, 200, 'application/xml; charset=utf-8', sitemapXml(origin, await wholeSite(info, revisions)));
    return;
  }
  const spaces = await wholeSite(info, revisions);
  if (name === 'llms.txt') {
    send(res, req, 200, TEXT, llmsTxt(title, origin, spaces));
    return;
  }
  if (name === 'llms-full.txt') {
    send(res, req, 200, TEXT, await llmsFullTxt(title, origin, info, spaces));
    return;
  }
  // rss.xml: pages by their last change, newest first.
  const dated = spaces
    .flatMap((space) => space.pages)
    .map((entry) => ({ entry, updatedAt: new Date(entry.page.updatedAt ?? entry.page.createdAt ?? 0) }))
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
    .slice(0, 50);
  send(res, req, 200, 'application/rss+xml; charset=utf-8', rssXml({ title, origin, siteBasePath: lookup.siteBasePath, pages: dated }));
}
