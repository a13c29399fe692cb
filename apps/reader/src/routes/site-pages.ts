import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenSites } from '../api/open-sites.js';
import type { PageContent, RevisionContent } from '../api/revision-content.js';
import type { Visit } from '../api/visit.js';
import { safeDecode, type ReaderAddress } from '../http/address.js';
import { sendPage } from '../http/respond.js';
import { notFoundInSite, renderContentPage } from '../pages/content-page.js';
import type { RenderedPage } from '../pages/rendered-page.js';
import type { RenderPool } from '../render/render-pool.js';
import { LruCache } from '../site/cache.js';
import type { AssetPaths } from '../site/layout.js';
import type { SitePage, SiteTree } from '../site/tree.js';

export interface SitePagesDeps {
  revisions: RevisionContent;
  openSites: OpenSites;
  renderPool: RenderPool;
  assets: AssetPaths;
}

/**
 * The pages of sites, rendered once and kept (least recently used first out) by site, revision, page, visitor
 * segment and address: a new revision or a change of what the visitor sees renders anew.
 */
export class SitePages {
  private readonly cache: LruCache<RenderedPage>;

  constructor(entries: number, private readonly deps: SitePagesDeps) {
    this.cache = new LruCache<RenderedPage>(entries);
  }

  /** The page at `pagePath` of the visited site space (its first page for ''), or the site's 404 page. */
  async send(req: IncomingMessage, res: ServerResponse, visit: Visit, tree: SiteTree, pagePath: string, address: ReaderAddress): Promise<void> {
    const { revisions, assets } = this.deps;
    const { lookup, client } = visit;
    const decoded = safeDecode(pagePath);
    const entry = decoded === '' ? tree.first : tree.byPath.get(decoded);
    // A site answer asked now takes a round trip: the page's content is read meanwhile (from its cache when
    // kept). One found cached is awaited first, so a page already rendered reads nothing more.
    let content: Promise<PageContent> | undefined;
    const contentOf = (found: SitePage) => (content ??= revisions.pageContent(client, lookup.space, lookup.revision, found.page));
    if (entry && visit.siteAskedNow) contentOf(entry).catch(() => undefined);
    // Cached open addresses (the hot path) go on without waiting a turn of the event loop.
    const resolved = visit.kept ?? (await visit.site());
    const key = `${lookup.site}|${lookup.revision}|${entry?.page.id ?? `404:${decoded}`}|${resolved.segment}|${lookup.basePath}`;
    let page = this.cache.get(key);
    if (!page) {
      page = entry
        ? await renderContentPage(resolved, tree, entry, { files: revisions.files(client, lookup.space, lookup.revision), content: contentOf(entry), renderPool: this.deps.renderPool, assets })
        : notFoundInSite(resolved, tree, assets);
      // Not-found pages are not kept: any address can be asked, and they are cheap.
      if (entry) this.cache.set(key, page);
    }
    // The open address's entry answers its next requests directly (see SiteData.page).
    if (entry && address.open) this.deps.openSites.rememberPage(address.url, resolved, page);
    sendPage(req, res, page, lookup.visibility);
  }
}
