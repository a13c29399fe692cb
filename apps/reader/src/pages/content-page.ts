import type { SiteData } from '../api/published-sites.js';
import type { PageContent } from '../api/revision-content.js';
import type { RenderPool } from '../render/render-pool.js';
import { escapeHtml as e } from '../site/html.js';
import type { AssetPaths, PageBody } from '../site/layout.js';
import type { SitePage, SiteTree } from '../site/tree.js';
import type { RevisionFile } from '../site/types.js';
import { fileMap, pageMap } from './address-maps.js';
import { layoutContext } from './layout-context.js';
import { renderedPage, type RenderedPage } from './rendered-page.js';

/** What rendering a page reads: the revision's files and the page's content (both from the API or its caches). */
export interface ContentPageSources {
  files: Promise<RevisionFile[]>;
  content: Promise<PageContent>;
  renderPool: RenderPool;
  assets: AssetPaths;
}

/** A page of the site: its header (cover, title, description) and its rendered content, in the layout. */
export async function renderContentPage(info: SiteData, tree: SiteTree, entry: SitePage, sources: ContentPageSources): Promise<RenderedPage> {
  const { lookup } = info;
  const ctx = layoutContext(info, tree, sources.assets);
  const page = entry.page;
  let main: string;
  let headings: PageBody['headings'] = [];
  // Computed pages (an OpenAPI reference) come as the pages they produce, with their operations as Markdown;
  // one the API could not compute (its spec missing) has no content, and says which source it needs.
  const [fileList, full] = await Promise.all([sources.files, sources.content]);
  const files = fileMap(fileList, lookup.basePath);
  const computed = full.computed ?? page.computed;
  if (computed && !full.markdown) {
    const dependency = computed.dependencies?.spec?.ref as { kind?: string; spec?: string; file?: string } | undefined;
    const source = dependency?.spec ?? (dependency?.file ? files[`id:${dependency.file}`]?.name ?? dependency.file : undefined);
    main = `<div class="hint hint-info" role="note" aria-label="Info"><p>This page is generated from ${
      source ? `the OpenAPI specification <code>${e(source)}</code>` : `a computed source (<code>${e(computed.type)}</code>)`
    }; its operations are shown once that specification has been processed.</p></div>`;
  } else {
    const rendered = await sources.renderPool.render({ markdown: full.markdown ?? '', pagePath: entry.path, pages: pageMap(tree), files });
    main = rendered.html;
    headings = rendered.headings;
  }
  const cover = page.cover && page.layout?.cover !== false ? files[`id:${page.cover.ref.file}`] : undefined;
  const coverHtml = cover ? `<img class="cover cover-${page.layout?.coverSize ?? 'hero'}" src="${e(cover.href)}" alt="" ${cover.width && cover.height ? `width="${Math.round(cover.width)}" height="${Math.round(cover.height)}"` : ''}>` : '';
  const icon = page.emoji ? `<span class="emoji" aria-hidden="true">${e(page.emoji)}</span> ` : '';
  const titleHtml = page.layout?.title === false ? '' : `<h1 class="page-title">${icon}${e(page.title)}</h1>`;
  const description = page.description && page.layout?.description !== false ? `<p class="page-description">${e(page.description)}</p>` : '';
  const body: PageBody = {
    title: page.title,
    main: `${coverHtml}<header class="page-header">${titleHtml}${description}</header>\n${main}`,
    current: entry,
    headings,
    ...(page.description ? { description: page.description } : {}),
    ...(page.layout ? { layout: page.layout } : {}),
  };
  return renderedPage(ctx, body, 200);
}

/** The site's own 404 page, inside its layout. */
export function notFoundInSite(info: SiteData, tree: SiteTree, assets: AssetPaths): RenderedPage {
  const ctx = layoutContext(info, tree, assets);
  const home = tree.first?.href ?? (info.lookup.basePath || '/');
  return renderedPage(ctx, { title: 'Page not found', main: `<h1>Page not found</h1><p>There is no page at this address. <a href="${e(home)}">Go to the first page</a> or search above.</p>` }, 404);
}
