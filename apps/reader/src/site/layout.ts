import { createHash } from 'node:crypto';
import type { RenderedHeading } from '@quire/render';
import { siteHeader } from './header.js';
import { escapeHtml as e, safeUrl } from './html.js';
import { linkTo } from './site-links.js';
import { themeAttributes, themeStyle } from './theme.js';
import type { SitePage, SiteTree } from './tree.js';
import type { PublishedSite, RevisionPage, SiteCustomization, SiteSection, SiteSectionGroup, SiteSpace } from './types.js';

/*
 * The server-rendered page around the content: skip link, header (logo, title, search, theme toggle, header
 * links), announcement, section tabs and section-group menus (<details>, so they open without script),
 * site-space switcher, sidebar page tree, breadcrumbs, the content, previous/next, on-page TOC, footer.
 * Landmarks: header (banner), nav (labelled), main, aside, footer (contentinfo). Works without JavaScript;
 * the script (assets/reader.js) adds the theme toggle, the page tree's drawer and the search icon on narrow
 * screens, live search and copy buttons. The header is `header.ts`, the theme and the site's colours `theme.ts`.
 *
 * The only inline code is one <style> of the site's colours; the Content-Security-Policy allows it by its
 * SHA-256 hash (styleHash), so no nonce is needed and cached pages stay byte-identical.
 */

export interface AssetPaths {
  css: string;
  js: string;
}

export interface LayoutContext {
  site: PublishedSite;
  customization: SiteCustomization;
  siteSpaceId: string;
  siteSectionId: string | undefined;
  /** Path of the site on its host (`/sites/docs`, or `` on its own hostname). */
  siteBasePath: string;
  /** Path of the current site space. */
  basePath: string;
  tree: SiteTree;
  assets: AssetPaths;
  noindex: boolean;
}

export interface PageBody {
  title: string;
  description?: string;
  /** HTML of the main column (already safe). */
  main: string;
  current?: SitePage;
  headings?: RenderedHeading[];
  /** Layout flags of the page (`layout` of the content model). */
  layout?: RevisionPage['layout'];
}

export interface RenderedLayout {
  html: string;
  /** `'sha256-...'` of the inline style, for the Content-Security-Policy. */
  styleHash: string;
}

/** The address path of a published URL (same host for every site address; the path is what the reader routes). */
export function addressPath(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    // Share keys are never carried into links for other visitors.
    parsed.searchParams.delete('shareKey');
    return parsed.pathname.replace(/\/+$/, '') + parsed.search || '/';
  } catch {
    return undefined;
  }
}

function isGroup(entry: SiteSection | SiteSectionGroup): entry is SiteSectionGroup {
  return entry.object === 'site-section-group';
}

function sectionTabs(ctx: LayoutContext): string {
  const structure = ctx.site.structure;
  if (structure.type !== 'sections' || structure.structure.length < 2) return '';
  const tab = (section: SiteSection) => {
    const href = addressPath(section.urls.published) ?? '#';
    const current = section.id === ctx.siteSectionId ? ' aria-current="page"' : '';
    return `<li><a href="${e(href)}"${current}>${e(section.title)}</a></li>`;
  };
  const entry = (item: SiteSection | SiteSectionGroup): string => {
    if (!isGroup(item)) return tab(item);
    const children = item.children.map(entry).join('');
    return `<li><details class="menu"><summary>${e(item.title)}</summary><ul>${children}</ul></details></li>`;
  };
  return `<nav aria-label="Sections" class="tabs"><ul>${structure.structure.map(entry).join('')}</ul></nav>`;
}

function siteSpacesOfCurrent(ctx: LayoutContext): SiteSpace[] {
  const structure = ctx.site.structure;
  if (structure.type === 'siteSpaces') return structure.structure;
  const find = (items: Array<SiteSection | SiteSectionGroup>): SiteSection | undefined => {
    for (const item of items) {
      if (isGroup(item)) {
        const found = find(item.children);
        if (found) return found;
      } else if (item.id === ctx.siteSectionId) return item;
    }
    return undefined;
  };
  return find(structure.structure)?.siteSpaces ?? [];
}

function spaceSwitcher(ctx: LayoutContext): string {
  const spaces = siteSpacesOfCurrent(ctx);
  if (spaces.length < 2) return '';
  const current = spaces.find((space) => space.id === ctx.siteSpaceId);
  const items = spaces
    .map((space) => `<li><a href="${e(addressPath(space.urls.published) ?? '#')}"${space.id === ctx.siteSpaceId ? ' aria-current="page"' : ''}>${e(space.title)}</a></li>`)
    .join('');
  return `<details class="menu spaces"><summary>${e(current?.title ?? 'Versions')}</summary><ul>${items}</ul></details>`;
}

/**
 * The sidebar's page tree, open along the current page: top-level pages, the children of groups (titles, not
 * links), and the children of the current page and of its ancestors. A page's other subtrees show once it is
 * opened, so the HTML of a page stays small on a site of thousands of pages (every link stays reachable: each
 * level is one page away, and the sitemap and llms.txt list them all).
 */
function sidebar(ctx: LayoutContext, current: SitePage | undefined): string {
  const openPath = new Set(current ? [...current.ancestors.map((page) => page.id), current.page.id] : []);
  const entry = (page: RevisionPage): string => {
    if (page.hidden) return '';
    const children = page.type === 'group' || openPath.has(page.id) ? page.pages.map(entry).join('') : '';
    const nested = children ? `<ul>${children}</ul>` : '';
    const label = `${page.emoji ? `<span class="emoji" aria-hidden="true">${e(page.emoji)}</span> ` : ''}${e(page.title)}`;
    if (page.type === 'group') return `<li class="group"><span class="group-title">${label}</span>${nested}</li>`;
    if (page.type === 'link') {
      const href = safeUrl(page.href);
      return href ? `<li><a href="${e(href)}" rel="noopener">${label}</a></li>` : '';
    }
    const site = ctx.tree.byId.get(page.id);
    if (!site) return '';
    const here = current?.page.id === page.id ? ' aria-current="page"' : '';
    return `<li><a href="${e(site.href)}"${here}>${label}</a>${nested}</li>`;
  };
  return `<nav aria-label="Pages" class="sidebar" id="sidebar">${spaceSwitcher(ctx)}<ul>${ctx.tree.roots.map(entry).join('')}</ul></nav>`;
}

function breadcrumbs(current: SitePage | undefined, ctx: LayoutContext): string {
  if (!current || current.ancestors.length === 0) return '';
  const crumbs = current.ancestors.map((page) => {
    const href = ctx.tree.byId.get(page.id)?.href;
    return `<li>${href ? `<a href="${e(href)}">${e(page.title)}</a>` : e(page.title)}</li>`;
  });
  return `<nav aria-label="Breadcrumbs" class="breadcrumbs"><ol>${crumbs.join('')}<li aria-current="page">${e(current.page.title)}</li></ol></nav>`;
}

function pagination(current: SitePage | undefined, ctx: LayoutContext): string {
  if (!current || ctx.customization.pagination?.enabled === false || current.page.layout?.pagination === false) return '';
  const index = ctx.tree.listed.findIndex((entry) => entry.page.id === current.page.id);
  if (index < 0) return '';
  const prev = ctx.tree.listed[index - 1];
  const next = ctx.tree.listed[index + 1];
  if (!prev && !next) return '';
  const link = (entry: SitePage | undefined, rel: 'prev' | 'next') =>
    entry ? `<a rel="${rel}" class="${rel}" href="${e(entry.href)}"><span>${rel === 'prev' ? 'Previous' : 'Next'}</span> ${e(entry.page.title)}</a>` : '<span></span>';
  return `<nav aria-label="Previous and next pages" class="pagination">${link(prev, 'prev')}${link(next, 'next')}</nav>`;
}

function tableOfContents(headings: RenderedHeading[] | undefined): string {
  const entries = (headings ?? []).filter((heading) => heading.depth === 2 || heading.depth === 3);
  if (entries.length === 0) return '';
  const items = entries.map((heading) => `<li class="toc-${heading.depth}"><a href="#${e(heading.id)}">${e(heading.text)}</a></li>`).join('');
  return `<aside class="toc" aria-labelledby="toc-title"><h2 id="toc-title">On this page</h2><ul>${items}</ul></aside>`;
}

function footer(ctx: LayoutContext): string {
  const custom = ctx.customization.footer;
  const groups = (custom?.groups ?? [])
    .map((group) => {
      const links = group.links
        .map((link) => {
          const href = linkTo(link.to, ctx);
          return href ? `<li><a href="${e(href)}">${e(link.title)}</a></li>` : '';
        })
        .join('');
      return `<div class="footer-group"><h2>${e(group.title)}</h2><ul>${links}</ul></div>`;
    })
    .join('');
  const copyright = custom?.copyright ? `<p class="copyright">${e(custom.copyright)}</p>` : '';
  return `<footer class="footer">${groups}${copyright}<p class="powered">Published with Quire</p></footer>`;
}

function announcement(ctx: LayoutContext): string {
  const ann = ctx.customization.announcement;
  if (!ann?.enabled || !ann.message) return '';
  const style = ann.style ?? 'info';
  const href = ann.link ? linkTo(ann.link.to, ctx) : undefined;
  const link = href && ann.link ? ` <a href="${e(href)}">${e(ann.link.title)}</a>` : '';
  return `<div class="announcement announcement-${e(style)}" role="region" aria-label="Announcement">${e(ann.message)}${link}</div>`;
}

/** The whole HTML document of one page of the site. */
export function renderLayout(ctx: LayoutContext, body: PageBody): RenderedLayout {
  const siteTitle = ctx.customization.title ?? ctx.site.site.title;
  const style = themeStyle(ctx.customization);
  const styleHash = `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
  const favicon = safeUrl(ctx.customization.favicon?.icon?.light);
  const showToc = body.layout?.tableOfContents !== false && body.layout?.outline !== false;
  const wide = body.layout?.width === 'wide' ? ' wide' : '';
  const home = ctx.tree.first?.href ?? (ctx.basePath || '/');
  const html = `<!doctype html>
<html lang="en" ${themeAttributes(ctx.customization)}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(body.title === siteTitle ? siteTitle : `${body.title} | ${siteTitle}`)}</title>
${body.description ? `<meta name="description" content="${e(body.description)}">\n` : ''}${ctx.noindex || body.current?.page.noIndex || body.current?.page.noRobotsIndex ? '<meta name="robots" content="noindex">\n' : ''}${favicon ? `<link rel="icon" href="${e(favicon)}">\n` : ''}<link rel="stylesheet" href="${e(ctx.assets.css)}">
<link rel="alternate" type="application/rss+xml" title="${e(siteTitle)}" href="${e(ctx.siteBasePath)}/rss.xml">
<style>${style}</style>
<script src="${e(ctx.assets.js)}"></script>
</head>
<body>
<a class="skip-link" href="#content">Skip to content</a>
${announcement(ctx)}${siteHeader(ctx, siteTitle, home)}
${sectionTabs(ctx)}<div class="layout${wide}">
${sidebar(ctx, body.current)}
<main id="content" tabindex="-1">
${breadcrumbs(body.current, ctx)}<article class="page">
${body.main}
</article>
${pagination(body.current, ctx)}</main>
${showToc ? tableOfContents(body.headings) : ''}
</div>
${footer(ctx)}
</body>
</html>
`;
  return { html, styleHash };
}
