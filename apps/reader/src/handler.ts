import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createQuireClient, paginate, type QuireClient } from '@quire/client';
import type { RenderedFile } from './render/markdown.js';
import { createRenderPool } from './render/render-pool.js';
import { LruCache } from './site/cache.js';
import { JWT_COOKIE, SESSION_COOKIE, SHARE_COOKIE, readCookies, secretCookie } from './site/cookies.js';
import { escapeHtml as e } from './site/html.js';
import { addressPath, renderLayout, type AssetPaths, type LayoutContext, type PageBody } from './site/layout.js';
import { llmsTxt, markdownHref, robotsTxt, rssXml, sitemapXml, type SpacePages } from './site/machines.js';
import { buildTree, type SitePage, type SiteTree } from './site/tree.js';
import type { Lookup, LookupRedirect, PublishedSite, RevisionFile, RevisionPage, SiteCustomization, SiteSection, SiteSectionGroup, SiteSpace } from './site/types.js';

/*
 * The reader: published docs sites as HTML. Every request is resolved by the API's lookup
 * (`getPublishedContentByUrl`, no credentials but the visitor's own share key or JWT, and the member's own
 * SSO session cookie, sent as its bearer token to the lookup alone and nowhere else), which answers a
 * short-lived visitor token; everything shown is then read with that token through @quire/client, so the
 * reader never holds more rights than the visitor it serves.
 *
 * Caches (all in memory, per process):
 * - rendered pages by (site, revision, page, visitor segment, address), where the segment is a digest of the
 *   published site this visitor was answered (its visible site spaces, structure and customizations): a new
 *   revision or a change of what the visitor sees renders anew; answered with an ETag (304 on If-None-Match);
 * - page trees, file lists and page Markdown by (space, revision[, page]): revisions are immutable (computed
 *   pages excepted: their spec can change under the same revision, so their Markdown is read every time);
 * - the published site answer by (site, visibility, revision, visitor scope: open, or a digest of the share
 *   key or JWT) for at most `lookupCacheMs`, so the pages of one site share it instead of each asking it anew;
 *   how stale a customization can be seen is bounded by that, as before, for every kind of site;
 * - for `public` and `unlisted` sites only, the lookup and published site of an address for at most
 *   `lookupCacheMs` (1 s by default): that is how stale an unpublish can be seen for open sites. Share-link
 *   and visitor-auth sites are looked up on every request, so a deactivated link or unpublish closes at once
 *   (their lookup still comes first; only what it then allows is read from the caches above).
 */

export interface ReaderOptions {
  /** Root of the API (`http://127.0.0.1:8080`), or a function answering it once known (the server's own port). */
  apiUrl: string | (() => string);
  /**
   * Base of the `/sites/...` addresses, the API's QUIRE_PUBLIC_URL. Requests under `/sites/` are looked up at
   * this base; others by their Host (sites with a hostname). Default: the request's own Host.
   */
  publicUrl?: string;
  /** How long the lookup of an open (public, unlisted) site's address is reused; 0 turns it off. */
  lookupCacheMs?: number;
  /** Rendered pages kept (least recently used dropped first). */
  pageCacheEntries?: number;
  /** Fetch for API calls (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * When the API trusts this reader (the same process, `npm start`): a key sent as `X-Quire-Reader` with the
   * visitor's address as `X-Forwarded-For` on lookups, so the API's rate limit counts each visitor, not the reader.
   */
  forwardVisitorAddress?: { key: string };
}

export interface ReaderHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Whether this request is the reader's (an address under /sites/ or of the reader's assets). */
  isReaderPath(pathname: string): boolean;
  /** Loads what the first page would otherwise load (the Markdown renderer); call it once the server listens. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** Where the reader's static assets are served, on every host (hostname sites included). */
export const ASSET_PREFIX = '/_reader/';

const SECRET_PARAMS = ['shareKey', 'jwt_token'];
const NO_QUERY: Readonly<URLSearchParams> = new URLSearchParams();
const MACHINE_FILES = new Set(['sitemap.xml', 'robots.txt', 'llms.txt', 'llms-full.txt', 'rss.xml']);

interface Asset {
  path: string;
  body: Buffer;
  type: string;
}

function loadAssets(): { paths: AssetPaths; byPath: Map<string, Asset> } {
  // assets/ sits beside src/ and dist/, so the same relative path serves the sources (tests) and the build.
  const read = (name: string) => readFileSync(new URL(`../assets/${name}`, import.meta.url));
  const make = (name: string, type: string): Asset => {
    const body = read(name);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    return { path: `${ASSET_PREFIX}${hash}/${name}`, body, type };
  };
  const css = make('reader.css', 'text/css; charset=utf-8');
  const js = make('reader.js', 'text/javascript; charset=utf-8');
  return { paths: { css: css.path, js: js.path }, byPath: new Map([css, js].map((asset) => [asset.path, asset])) };
}

class ApiFailure extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function data<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const result = await promise;
  if (result.data === undefined) {
    const message = (result.error as { error?: { message?: string } } | undefined)?.error?.message ?? result.response.statusText;
    throw new ApiFailure(result.response.status, message);
  }
  return result.data;
}

/** A page's content as the API answers it (`format: markdown`). */
function readPageContent(client: QuireClient, spaceId: string, pageId: string) {
  return data(client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId }, query: { format: 'markdown' } } }));
}
type PageContent = Awaited<ReturnType<typeof readPageContent>>;

/** Markdown past this is not kept (read again when needed): bounds the cache's memory, not its use. */
const KEPT_MARKDOWN_CHARS = 200_000;

interface SiteAnswer {
  site: PublishedSite;
  segment: string;
  /** When the API answered it (ms since the epoch): what is served is never older than `lookupCacheMs`. */
  at: number;
}

interface SiteData {
  lookup: Lookup;
  /** The client holding this visitor's token. */
  client: QuireClient;
  site: PublishedSite;
  /** Digest of what this visitor is shown of the site: part of the rendered pages' cache key. */
  segment: string;
  /**
   * For an open address's cached entry (one address, one lookup): the page it renders, once known. Everything
   * that chooses the page (site, revision, path, segment) is fixed for the entry's life, so the hot path
   * answers from here without walking the tree or building the page cache's key.
   */
  page?: RenderedPage;
}

/** What a request's address says, read once before anything is asked of the API. */
interface ReaderAddress {
  query: URLSearchParams;
  /** The path and query without the secrets (share key, JWT) a visitor may have brought in it. */
  cleanPath: string;
  /** The absolute address the lookup is asked for (and the open-address cache's key). */
  url: string;
  origin: string;
  secure: boolean;
  shareKey: string | undefined;
  jwt: string | undefined;
  session: string | undefined;
  /** Whether the visitor brings no secret: what they see is what anyone sees. */
  open: boolean;
  /** Secrets brought in this address's query (remembered in cookies, then the address is shown without them). */
  newShareKey: string | undefined;
  newJwt: string | undefined;
  /** The open address's cached lookup and site, when kept. */
  info: SiteData | undefined;
  now: number;
}

interface RenderedPage {
  body: Buffer;
  etag: string;
  csp: string;
  status: number;
  /** Response headers by visibility, made on first use: those of a 304, and those of the full answer. */
  headers: Map<string, { notModified: Record<string, string>; full: Record<string, string> }>;
}

/** The page's policy; `styleHash` allows its one inline <style> (none on bare pages: `'none'` may not sit beside `'self'`). */
function csp(styleHash?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${styleHash ? ` ${styleHash}` : ''}`,
    "img-src 'self' https: http:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function commonHeaders(visibility?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'X-Frame-Options': 'DENY',
    // Open sites may be kept by shared caches only if they revalidate; restricted ones by the browser alone.
    'Cache-Control': visibility === 'public' || visibility === 'unlisted' ? 'public, no-cache' : 'private, no-cache',
    Vary: 'Cookie',
  };
  if (visibility && visibility !== 'public') headers['X-Robots-Tag'] = 'noindex';
  return headers;
}

function setCommonHeaders(res: ServerResponse, visibility?: string): void {
  for (const [name, value] of Object.entries(commonHeaders(visibility))) res.setHeader(name, value);
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', bytes.length);
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/** A page outside any site (no site at that address, or an error before one was known). */
function bareDocument(assets: AssetPaths, title: string, message: string): string {
  return `<!doctype html>\n<html lang="en" data-theme="light"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${e(title)}</title><link rel="stylesheet" href="${e(assets.css)}"></head><body><main id="content" class="bare"><h1>${e(title)}</h1><p>${e(message)}</p></main></body></html>\n`;
}

/** A path segment decoded, or as it is when its escapes are malformed (then it matches nothing, a 404). */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function isGroup(entry: SiteSection | SiteSectionGroup): entry is SiteSectionGroup {
  return entry.object === 'site-section-group';
}

/** Every site space of the published structure (those this visitor sees). */
function allSiteSpaces(site: PublishedSite): SiteSpace[] {
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

function mergeCustomization(site: PublishedSite, siteSpaceId: string): SiteCustomization {
  const own = site.customizations.siteSpaces[siteSpaceId];
  return own ? { ...site.customizations.site, ...own } : site.customizations.site;
}

export function createReaderHandler(options: ReaderOptions): ReaderHandler {
  const assets = loadAssets();
  const renderPool = createRenderPool();
  const lookupCacheMs = options.lookupCacheMs ?? 1_000;
  const openSites = new LruCache<SiteData>(2_000, lookupCacheMs);
  const pageCache = new LruCache<RenderedPage>(options.pageCacheEntries ?? 2_000);
  const treeCache = new LruCache<RevisionPage[]>(200);
  const fileCache = new LruCache<RevisionFile[]>(200);
  const siteTrees = new LruCache<SiteTree>(200);
  // Promises, so that concurrent first requests share one API call; a failed one is forgotten at once.
  const siteAnswers = new LruCache<Promise<SiteAnswer>>(500, lookupCacheMs);
  const contentCache = new LruCache<Promise<PageContent>>(500);
  const refreshing = new Set<string>();
  const apiUrl = () => (typeof options.apiUrl === 'function' ? options.apiUrl() : options.apiUrl);
  const clientOptions = () => ({ baseUrl: apiUrl(), ...(options.fetch ? { fetch: options.fetch } : {}) });
  const anonymous = (visitorAddress: string | undefined) =>
    createQuireClient({
      ...clientOptions(),
      ...(options.forwardVisitorAddress && visitorAddress ? { headers: { 'X-Quire-Reader': options.forwardVisitorAddress.key, 'X-Forwarded-For': visitorAddress } } : {}),
    });
  const visitorClient = (token: string) => createQuireClient({ ...clientOptions(), token });

  // Parsed once: every request needs it.
  const publicBase = options.publicUrl ? new URL(options.publicUrl) : undefined;

  function absoluteUrl(req: IncomingMessage, pathAndQuery: string): { url: string; origin: string; secure: boolean } {
    const base = publicBase;
    const forwardedProto = typeof req.headers['x-forwarded-proto'] === 'string' ? req.headers['x-forwarded-proto'].split(',')[0]!.trim() : undefined;
    const protocol = base?.protocol.replace(':', '') ?? (forwardedProto === 'https' ? 'https' : 'http');
    const origin = pathAndQuery.startsWith('/sites/') && base ? base.origin : `${protocol}://${req.headers.host ?? 'localhost'}`;
    return { url: origin + pathAndQuery, origin, secure: origin.startsWith('https:') };
  }

  async function lookupAddress(url: string, shareKey: string | undefined, jwt: string | undefined, visitorAddress?: string, session?: string): Promise<Lookup | LookupRedirect> {
    const query: { url: string; shareKey?: string; visitorAuthToken?: string } = { url };
    if (shareKey) query.shareKey = shareKey;
    if (jwt) query.visitorAuthToken = jwt;
    // The member's session goes to this one call, per request (never into a shared client, link or log).
    const headers = session ? { headers: { Authorization: `Bearer ${session}` } } : {};
    return data(anonymous(visitorAddress).GET('/urls/published', { params: { query }, ...headers }));
  }

  /**
   * The published site this visitor is answered, shared by every page of the site in the same scope for at
   * most lookupCacheMs. `fresh` says whether it was asked now (its caller then reads the page meanwhile).
   * `reuse: false` always asks (background refreshes, whose answer then serves another lookupCacheMs).
   */
  function publishedSite(lookup: Lookup, client: QuireClient, scope: string, reuse = true): { answer: Promise<SiteAnswer>; fresh: boolean } {
    const key = `${lookup.site}|${lookup.visibility}|${lookup.revision}|${scope}`;
    const cached = reuse && lookupCacheMs > 0 ? siteAnswers.get(key) : undefined;
    if (cached) return { answer: cached, fresh: false };
    const answer = data(
      client.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: { path: { organizationId: lookup.organization, siteId: lookup.site } } }),
    ).then((site): SiteAnswer => ({ site, segment: createHash('sha256').update(JSON.stringify(site)).digest('base64url').slice(0, 22), at: Date.now() }));
    if (lookupCacheMs > 0) {
      siteAnswers.set(key, answer);
      answer.catch(() => siteAnswers.deleteIf(key, answer));
    }
    return { answer, fresh: true };
  }

  async function siteData(lookup: Lookup, client: QuireClient, answer: Promise<SiteAnswer>): Promise<SiteData & { at: number }> {
    const { site, segment, at } = await answer;
    return { lookup, client, site, segment, at };
  }

  /** Page content by (space, revision, page): immutable, except computed pages (their spec may change). */
  function pageContent(client: QuireClient, spaceId: string, revision: string, page: RevisionPage): Promise<PageContent> {
    if (page.computed) return readPageContent(client, spaceId, page.id);
    const key = `${spaceId}|${revision}|${page.id}`;
    const cached = contentCache.get(key);
    if (cached) return cached;
    const content = readPageContent(client, spaceId, page.id);
    contentCache.set(key, content);
    content.then(
      (full) => {
        if (full.computed || (full.markdown?.length ?? 0) > KEPT_MARKDOWN_CHARS) contentCache.deleteIf(key, content);
      },
      () => contentCache.deleteIf(key, content),
    );
    return content;
  }

  async function pagesOf(client: QuireClient, spaceId: string, revision: string): Promise<RevisionPage[]> {
    const key = `${spaceId}|${revision}`;
    const cached = treeCache.get(key);
    if (cached) return cached;
    const list = await data(client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId } } }));
    treeCache.set(key, list.pages);
    return list.pages;
  }

  async function filesOf(client: QuireClient, spaceId: string, revision: string): Promise<RevisionFile[]> {
    const key = `${spaceId}|${revision}`;
    const cached = fileCache.get(key);
    if (cached) return cached;
    const files: RevisionFile[] = [];
    for await (const file of paginate((page) => client.GET('/spaces/{spaceId}/content/files', { params: { path: { spaceId }, query: { limit: 1000, ...(page ? { page } : {}) } } }))) {
      files.push(file as RevisionFile);
    }
    fileCache.set(key, files);
    return files;
  }

  // File lists are kept and never changed: their map per base path is made once too.
  const fileMaps = new WeakMap<RevisionFile[], Map<string, Record<string, RenderedFile>>>();
  function fileMap(files: RevisionFile[], basePath: string): Record<string, RenderedFile> {
    let byBase = fileMaps.get(files);
    if (!byBase) fileMaps.set(files, (byBase = new Map()));
    const kept = byBase.get(basePath);
    if (kept) return kept;
    const out: Record<string, RenderedFile> = {};
    for (const file of files) {
      const rendered: RenderedFile = { href: `${basePath}/~files/${encodeURIComponent(file.id)}`, name: file.name, ...(file.dimensions ?? {}) };
      out[`id:${file.id}`] = rendered;
      out[`name:${file.name}`] ??= rendered;
      if (file.git?.path) out[`path:${file.git.path}`] = rendered;
    }
    byBase.set(basePath, out);
    return out;
  }

  // Trees are kept and never changed: their address map is made once, not on every render of their pages.
  const pageMaps = new WeakMap<SiteTree, Record<string, string>>();
  function pageMap(tree: SiteTree): Record<string, string> {
    const kept = pageMaps.get(tree);
    if (kept) return kept;
    const out: Record<string, string> = {};
    for (const entry of tree.pages) {
      out[`id:${entry.page.id}`] = entry.href;
      out[`path:${entry.path}`] = entry.href;
    }
    pageMaps.set(tree, out);
    return out;
  }

  function layoutContext(info: SiteData, tree: SiteTree): LayoutContext {
    const { lookup, site } = info;
    return {
      site,
      customization: mergeCustomization(site, lookup.siteSpace),
      siteSpaceId: lookup.siteSpace,
      siteSectionId: lookup.siteSection,
      siteBasePath: lookup.siteBasePath,
      basePath: lookup.basePath,
      tree,
      assets: assets.paths,
      noindex: lookup.visibility !== 'public',
    };
  }

  /** Cached pages are the hot path: their headers are made once per page and visibility and written at once. */
  function sendPage(req: IncomingMessage, res: ServerResponse, page: RenderedPage, visibility: string): void {
    let headers = page.headers.get(visibility);
    if (!headers) {
      const notModified = { ...commonHeaders(visibility), 'Content-Security-Policy': page.csp, ETag: page.etag };
      headers = { notModified, full: { ...notModified, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(page.body.length) } };
      page.headers.set(visibility, headers);
    }
    const match = req.headers['if-none-match'];
    if (page.status === 200 && typeof match === 'string' && match.split(',').some((tag) => tag.trim() === page.etag)) {
      res.writeHead(304, headers.notModified);
      res.end();
      return;
    }
    res.writeHead(page.status, headers.full);
    res.end(req.method === 'HEAD' ? undefined : page.body);
  }

  function finishLayout(ctx: LayoutContext, body: PageBody, status: number): RenderedPage {
    const { html, styleHash } = renderLayout(ctx, body);
    const bytes = Buffer.from(html);
    const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
    return { body: bytes, etag, csp: csp(styleHash), status, headers: new Map() };
  }

  async function renderContentPage(info: SiteData, client: QuireClient, tree: SiteTree, entry: SitePage, content: Promise<PageContent>): Promise<RenderedPage> {
    const { lookup } = info;
    const ctx = layoutContext(info, tree);
    const page = entry.page;
    let main: string;
    let headings: PageBody['headings'] = [];
    // Computed pages (an OpenAPI reference) come as the pages they produce, with their operations as Markdown;
    // one the API could not compute (its spec missing) has no content, and says which source it needs.
    const [fileList, full] = await Promise.all([filesOf(client, lookup.space, lookup.revision), content]);
    const files = fileMap(fileList, lookup.basePath);
    const computed = full.computed ?? page.computed;
    if (computed && !full.markdown) {
      const dependency = computed.dependencies?.spec?.ref as { kind?: string; spec?: string; file?: string } | undefined;
      const source = dependency?.spec ?? (dependency?.file ? files[`id:${dependency.file}`]?.name ?? dependency.file : undefined);
      main = `<div class="hint hint-info" role="note"><p>This page is generated from ${
        source ? `the OpenAPI specification <code>${e(source)}</code>` : `a computed source (<code>${e(computed.type)}</code>)`
      }; its operations are shown once that specification has been processed.</p></div>`;
    } else {
      const rendered = await renderPool.render({ markdown: full.markdown ?? '', pagePath: entry.path, pages: pageMap(tree), files });
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
    return finishLayout(ctx, body, 200);
  }

  function notFoundInSite(info: SiteData, tree: SiteTree): RenderedPage {
    const ctx = layoutContext(info, tree);
    const home = tree.first?.href ?? (info.lookup.basePath || '/');
    return finishLayout(ctx, { title: 'Page not found', main: `<h1>Page not found</h1><p>There is no page at this address. <a href="${e(home)}">Go to the first page</a> or search above.</p>` }, 404);
  }

  async function searchPage(info: SiteData, client: QuireClient, tree: SiteTree, query: string): Promise<RenderedPage> {
    const ctx = layoutContext(info, tree);
    const q = query.trim().slice(0, 512);
    let results = '';
    if (q !== '') {
      const found = await data(client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: info.lookup.space }, query: { query: q, limit: 50 } } }));
      const items = found.items
        .map((result) => {
          const entry = tree.byId.get(result.id) ?? tree.byPath.get(result.path);
          if (!entry || entry.hidden) return '';
          const sections = result.sections
            .filter((section) => section.id !== '' && section.title !== '')
            .map((section) => `<li><a href="${e(entry.href)}#${e(encodeURIComponent(section.id))}">${e(section.title)}</a><p>${e(section.body.slice(0, 200))}</p></li>`)
            .join('');
          const trail = result.ancestors.map((ancestor) => e(ancestor.title)).join(' › ');
          return `<li class="result"><a href="${e(entry.href)}">${e(result.title)}</a>${trail ? `<span class="trail">${trail}</span>` : ''}${sections ? `<ul>${sections}</ul>` : ''}</li>`;
        })
        .filter(Boolean);
      results = items.length ? `<ol class="results">${items.join('')}</ol>` : '<p class="no-results">No results.</p>';
    }
    const main = `<h1>Search</h1><form class="search-page" role="search" action="${e(info.lookup.basePath)}/search" method="get"><label for="search-page-q">Search this site</label> <input id="search-page-q" type="search" name="q" value="${e(q)}"> <button type="submit">Search</button></form>${q ? `<p role="status">Results for “${e(q)}”</p>` : ''}${results}`;
    return finishLayout(ctx, { title: q ? `Search: ${q}` : 'Search', main }, 200);
  }

  /** Pages of every site space this visitor sees, with their base paths (machine files list the whole site). */
  async function wholeSite(info: SiteData, client: QuireClient): Promise<Array<SpacePages & { basePath: string; spaceId: string }>> {
    const out: Array<SpacePages & { basePath: string; spaceId: string }> = [];
    for (const siteSpace of allSiteSpaces(info.site)) {
      const basePath = siteSpace.id === info.lookup.siteSpace ? info.lookup.basePath : addressPath(siteSpace.urls.published)?.split('?')[0];
      if (basePath === undefined) continue;
      const spaceId = siteSpace.space.id;
      const revision = siteSpace.id === info.lookup.siteSpace ? info.lookup.revision : (siteSpace.space as { revision?: string }).revision ?? 'current';
      const roots = revision === 'current' ? (await data(client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId } } }))).pages : await pagesOf(client, spaceId, revision);
      const tree = buildTree(roots, basePath === '/' ? '' : basePath);
      out.push({ title: siteSpace.title, pages: tree.listed, basePath: basePath === '/' ? '' : basePath, spaceId });
    }
    return out;
  }

  async function machineFile(req: IncomingMessage, res: ServerResponse, info: SiteData, client: QuireClient, name: string, origin: string): Promise<void> {
    const { lookup } = info;
    const title = info.site.customizations.site.title ?? info.site.site.title;
    setCommonHeaders(res, lookup.visibility);
    if (name === 'robots.txt' || name === 'sitemap.xml') {
      if (lookup.visibility !== 'public') {
        send(res, req, 404, 'text/plain; charset=utf-8', 'Not found\n');
        return;
      }
      if (name === 'robots.txt') send(res, req, 200, 'text/plain; charset=utf-8', robotsTxt(origin, lookup.siteBasePath));
      else send(res, req, 200, 'application/xml; charset=utf-8', sitemapXml(origin, await wholeSite(info, client)));
      return;
    }
    const spaces = await wholeSite(info, client);
    if (name === 'llms.txt') {
      send(res, req, 200, 'text/plain; charset=utf-8', llmsTxt(title, origin, spaces));
      return;
    }
    if (name === 'llms-full.txt') {
      const parts: string[] = [`# ${title}`, ''];
      for (const space of spaces) {
        for (const entry of space.pages) {
          if (entry.page.type !== 'document') continue;
          const page = await data(client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.spaceId, pageId: entry.page.id }, query: { format: 'markdown' } } }));
          parts.push(`# ${entry.page.title}`, '', `Source: ${origin}${markdownHref(entry, space.basePath)}`, '', page.markdown ?? '', '');
        }
      }
      send(res, req, 200, 'text/plain; charset=utf-8', parts.join('\n'));
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

  /**
   * Answers at once what needs no API call (assets, wrong methods, and an open address whose page is cached:
   * the hot path, kept synchronous so that it allocates no promise), and hands the rest to `serveFromApi`.
   */
  function serve(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const pathname = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
    // Most addresses carry no query: none is parsed for them (the shared empty one is only read).
    const query = queryAt < 0 ? NO_QUERY : new URLSearchParams(rawUrl.slice(queryAt + 1));

    const asset = assets.byPath.get(pathname);
    if (asset) {
      setCommonHeaders(res);
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      send(res, req, 200, asset.type, asset.body);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      setCommonHeaders(res);
      send(res, req, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', { Allow: 'GET, HEAD' });
      return;
    }

    const cookies = readCookies(req);
    const newShareKey = queryAt < 0 ? undefined : query.get('shareKey') ?? undefined;
    const newJwt = queryAt < 0 ? undefined : query.get('jwt_token') ?? undefined;
    let cleanPath = pathname;
    if (queryAt >= 0) {
      for (const name of SECRET_PARAMS) query.delete(name);
      const cleanQuery = query.toString();
      if (cleanQuery) cleanPath += `?${cleanQuery}`;
    }
    const { url, origin, secure } = absoluteUrl(req, cleanPath);
    const shareKey = newShareKey ?? cookies.get(SHARE_COOKIE);
    const jwt = newJwt ?? cookies.get(JWT_COOKIE);
    const session = cookies.get(SESSION_COOKIE);
    const open = !shareKey && !jwt;

    const now = Date.now();
    const info: SiteData | undefined = open ? openSites.get(url, now) : undefined;
    if (info && !refreshing.has(url) && (openSites.age(url, now) ?? 0) > lookupCacheMs / 2) {
      // Refreshed ahead, in the background, so busy open pages never wait on the API; what is served is
      // still never older than lookupCacheMs (the site answer is asked anew too, not reused).
      refreshing.add(url);
      const askedAt = Date.now();
      lookupAddress(url, undefined, undefined, req.socket.remoteAddress)
        .then(async (answer) => {
          if (answer.object === 'published-content-lookup' && (answer.visibility === 'public' || answer.visibility === 'unlisted')) {
            const client = visitorClient(answer.apiToken);
            const fresh = await siteData(answer, client, publishedSite(answer, client, 'open', false).answer);
            openSites.set(url, fresh, Math.min(askedAt, fresh.at));
          }
        })
        .catch(() => undefined)
        .finally(() => refreshing.delete(url));
    }
    if (info?.page) {
      sendPage(req, res, info.page, info.lookup.visibility);
      return undefined;
    }
    return serveFromApi(req, res, { query, cleanPath, url, origin, secure, shareKey, jwt, session, open, newShareKey, newJwt, info, now });
  }

  async function serveFromApi(req: IncomingMessage, res: ServerResponse, address: ReaderAddress): Promise<void> {
    const { query, cleanPath, url, origin, secure, shareKey, jwt, session, open, newShareKey, newJwt, info, now } = address;
    // Who the published site answer is shared with: everyone on open addresses, else holders of the same secret.
    const scope = open ? 'open' : createHash('sha256').update(`${shareKey ?? ''}\n${jwt ?? ''}`).digest('base64url');
    // The published site, asked (or found in its cache) once the lookup is known; `fresh` when asked now.
    let site: { answer: Promise<SiteAnswer>; fresh: boolean } | undefined;
    let lookup: Lookup;
    let client: QuireClient;
    const lookedUpAt = now;
    if (info) {
      lookup = info.lookup;
      client = info.client;
    } else {
      let answer: Lookup | LookupRedirect;
      try {
        answer = await lookupAddress(url, shareKey, jwt, req.socket.remoteAddress, session).catch((error: unknown) => {
          // A session revoked or expired is read as none: it must not lock the reader out of what anyone may read.
          if (session && error instanceof ApiFailure && error.status === 401) return lookupAddress(url, shareKey, jwt, req.socket.remoteAddress);
          throw error;
        });
      } catch (error) {
        const status = error instanceof ApiFailure ? error.status : 502;
        setCommonHeaders(res);
        const [title, message] =
          status === 404 ? ['Not found', 'There is no published site at this address.']
          : status === 401 ? ['Sign-in needed', 'This site is only for signed-in visitors.']
          : status === 400 ? ['Bad address', 'This address cannot be read.']
          : ['Unavailable', 'The site cannot be shown right now. Try again shortly.'];
        const shownStatus = status === 404 || status === 401 || status === 400 ? status : 502;
        send(res, req, shownStatus, 'text/html; charset=utf-8', bareDocument(assets.paths, title, message), {
          'Content-Security-Policy': csp(),
        });
        return;
      }
      if (answer.object === 'published-content-redirect') {
        setCommonHeaders(res);
        res.statusCode = 302;
        res.setHeader('Location', answer.redirect);
        res.end();
        return;
      }
      lookup = answer;
      client = visitorClient(answer.apiToken);
      site = publishedSite(answer, client, scope);
      // Awaited on every path below; this only keeps a failure from being reported as unhandled meanwhile.
      site.answer.catch(() => undefined);
    }
    /** The published site for this request, once (cached for open addresses: the lookup and it, by age). */
    let resolving: Promise<SiteData> | undefined;
    const resolveSite = (): Promise<SiteData> =>
      info
        ? Promise.resolve(info)
        : (resolving ??= siteData(lookup, client, site!.answer).then((resolved) => {
            // Kept as old as its oldest part: the site answer may predate this lookup.
            if (open && (lookup.visibility === 'public' || lookup.visibility === 'unlisted') && lookupCacheMs > 0) openSites.set(url, resolved, Math.min(lookedUpAt, resolved.at));
            return resolved;
          }));

    if (newShareKey || newJwt) {
      // Remember the secret for this site only, then show the address without it (so it is not shared, bookmarked or sent as a referrer).
      await resolveSite();
      const setCookies: string[] = [];
      if (newShareKey) setCookies.push(secretCookie(SHARE_COOKIE, newShareKey, lookup.siteBasePath, secure));
      if (newJwt) setCookies.push(secretCookie(JWT_COOKIE, newJwt, lookup.siteBasePath, secure));
      setCommonHeaders(res, lookup.visibility);
      res.setHeader('Set-Cookie', setCookies);
      res.setHeader('Cache-Control', 'no-store');
      res.statusCode = 303;
      res.setHeader('Location', cleanPath);
      res.end();
      return;
    }

    // The walked tree is kept too: on a cached page, walking 1,000 pages would be most of the work.
    const treeKey = `${lookup.space}|${lookup.revision}|${lookup.basePath}`;
    let tree = siteTrees.get(treeKey);
    if (!tree) {
      tree = buildTree(await pagesOf(client, lookup.space, lookup.revision), lookup.basePath);
      siteTrees.set(treeKey, tree);
    }
    const rest = lookup.pathname.replace(/^\/+|\/+$/g, '');

    if (MACHINE_FILES.has(rest)) {
      await machineFile(req, res, await resolveSite(), client, rest, origin);
      return;
    }
    const fileMatch = /^~files\/([^/]+)$/.exec(rest);
    if (fileMatch) {
      const file = await data(client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: lookup.space, fileId: safeDecode(fileMatch[1]!) } } })).catch(() => undefined);
      setCommonHeaders(res, lookup.visibility);
      if (!file) {
        send(res, req, 404, 'text/plain; charset=utf-8', 'Not found\n');
        return;
      }
      res.setHeader('Cache-Control', 'private, no-store');
      res.statusCode = 302;
      res.setHeader('Location', file.downloadURL);
      res.end();
      return;
    }
    if (rest === 'search' && !tree.byPath.has('search')) {
      const page = await searchPage(await resolveSite(), client, tree, query.get('q') ?? '');
      sendPage(req, res, page, lookup.visibility);
      return;
    }
    if (rest.endsWith('.md')) {
      const entry = tree.byPath.get(safeDecode(rest.slice(0, -3)));
      setCommonHeaders(res, lookup.visibility);
      if (!entry || entry.page.type !== 'document') {
        send(res, req, 404, 'text/plain; charset=utf-8', 'Not found\n');
        return;
      }
      // The site answer is not needed here, but its failure (an access refused after the lookup) still answers.
      const [page] = await Promise.all([pageContent(client, lookup.space, lookup.revision, entry.page), resolveSite()]);
      send(res, req, 200, 'text/markdown; charset=utf-8', `# ${entry.page.title}\n\n${page.markdown ?? ''}`);
      return;
    }

    const decoded = safeDecode(rest);
    const entry = decoded === '' ? tree.first : tree.byPath.get(decoded);
    // A site answer asked now takes a round trip: the page's content is read meanwhile (from its cache when
    // kept). One found cached is awaited first, so a page already rendered reads nothing more.
    let content: Promise<PageContent> | undefined;
    const contentOf = (found: SitePage) => (content ??= pageContent(client, lookup.space, lookup.revision, found.page));
    if (entry && site?.fresh) contentOf(entry).catch(() => undefined);
    // Cached open addresses (the hot path) go on without waiting a turn of the event loop.
    const resolved = info ?? (await resolveSite());
    const key = `${lookup.site}|${lookup.revision}|${entry?.page.id ?? `404:${decoded}`}|${resolved.segment}|${lookup.basePath}`;
    let page = pageCache.get(key);
    if (!page) {
      page = entry ? await renderContentPage(resolved, client, tree, entry, contentOf(entry)) : notFoundInSite(resolved, tree);
      // Not-found pages are not kept: any address can be asked, and they are cheap.
      if (entry) pageCache.set(key, page);
    }
    // The open address's entry answers its next requests directly (see SiteData.page).
    if (entry && open && openSites.peek(url) === resolved) resolved.page = page;
    sendPage(req, res, page, lookup.visibility);
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    let pending: Promise<void> | undefined;
    try {
      pending = serve(req, res);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending?.catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const status = error instanceof ApiFailure && error.status === 404 ? 404 : 502;
      setCommonHeaders(res);
      send(res, req, status, 'text/html; charset=utf-8', bareDocument(assets.paths, status === 404 ? 'Not found' : 'Unavailable', status === 404 ? 'There is nothing at this address.' : 'The site cannot be shown right now. Try again shortly.'), {
        'Content-Security-Policy': csp(),
      });
    });
  }) as ReaderHandler;
  handler.isReaderPath = (pathname: string) => pathname.startsWith('/sites/') || pathname.startsWith(ASSET_PREFIX);
  handler.close = () => renderPool.close();
  handler.warm = () => renderPool.warm();
  return handler;
}
