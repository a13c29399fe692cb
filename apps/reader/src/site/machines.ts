import { Feed } from 'feed';
import { escapeHtml as e } from './html.js';
import type { SitePage } from './tree.js';

/*
 * What the reader answers machines: robots.txt and sitemap.xml (public sites only: unlisted and restricted
 * sites are not for crawlers), llms.txt (the pages as a Markdown list of links to their `.md` addresses),
 * llms-full.txt (every page's Markdown) and an RSS feed of the most recently changed pages.
 */

export interface SpacePages {
  title: string;
  pages: SitePage[];
}

export function robotsTxt(origin: string, siteBasePath: string): string {
  return `User-agent: *\nAllow: ${siteBasePath || '/'}\nSitemap: ${origin}${siteBasePath}/sitemap.xml\n`;
}

export function sitemapXml(origin: string, spaces: SpacePages[]): string {
  const urls = spaces
    .flatMap((space) => space.pages)
    .filter((entry) => !entry.page.noIndex && !entry.page.noRobotsIndex)
    .map((entry) => {
      const lastmod = entry.page.updatedAt ? `<lastmod>${e(entry.page.updatedAt)}</lastmod>` : '';
      return `<url><loc>${e(origin + entry.href)}</loc>${lastmod}</url>`;
    });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

/** The `.md` address of a page: its address plus `.md` (the first page's own path, not the bare base). */
export function markdownHref(entry: SitePage, basePath: string): string {
  return `${basePath}/${entry.path.split('/').map(encodeURIComponent).join('/')}.md`;
}

export function llmsTxt(title: string, origin: string, spaces: Array<SpacePages & { basePath: string }>): string {
  const lines = [`# ${title}`, ''];
  for (const space of spaces) {
    lines.push(`## ${space.title}`, '');
    for (const entry of space.pages) lines.push(`- [${entry.page.title}](${origin}${markdownHref(entry, space.basePath)})${entry.page.description ? `: ${entry.page.description}` : ''}`);
    lines.push('');
  }
  return lines.join('\n');
}

export interface FeedPage {
  entry: SitePage;
  updatedAt: Date;
}

export function rssXml(options: { title: string; origin: string; siteBasePath: string; pages: FeedPage[] }): string {
  const link = `${options.origin}${options.siteBasePath || '/'}`;
  const latest = options.pages[0]?.updatedAt ?? new Date(0);
  const feed = new Feed({
    title: options.title,
    id: link,
    link,
    copyright: '',
    updated: latest,
    generator: 'Quire',
    feedLinks: { rss: `${options.origin}${options.siteBasePath}/rss.xml` },
  });
  for (const { entry, updatedAt } of options.pages) {
    feed.addItem({
      title: entry.page.title,
      id: options.origin + entry.href,
      link: options.origin + entry.href,
      date: updatedAt,
      ...(entry.page.description ? { description: entry.page.description } : {}),
    });
  }
  return feed.rss2();
}
