import type { IncomingMessage, ServerResponse } from 'node:http';
import { AddressLookup } from './api/address-lookup.js';
import { OpenSites } from './api/open-sites.js';
import { PublishedSites, visitorScope, type SiteData } from './api/published-sites.js';
import { RevisionContent } from './api/revision-content.js';
import { Visit } from './api/visit.js';
import { publicBaseOf, readAddress, requestTarget, type ReaderAddress, type RequestTarget } from './http/address.js';
import { loadAssets, type Asset } from './http/assets.js';
import { setCommonHeaders } from './http/headers.js';
import { redirect, send, sendBarePage, sendPage, setHeaderList, TEXT, type HeaderList } from './http/respond.js';
import { laterFailure, lookupFailure } from './pages/bare-page.js';
import { searchPage } from './pages/search-page.js';
import type { ReaderHandler, ReaderOptions } from './reader-options.js';
import { isReaderPath } from './reader-paths.js';
import { createRenderPool } from './render/render-pool.js';
import { MACHINE_FILES, sendMachineFile } from './routes/machine-files.js';
import { rememberSecrets } from './routes/remember-secrets.js';
import { SitePages } from './routes/site-pages.js';
import { redirectToFile, sendPageMarkdown } from './routes/space-files.js';
import { previewRefusal, readPreviewForm, sendCustomizationPreview, type PreviewForm } from './routes/customization-preview.js';
import { redirectToSiteImage } from './routes/site-images.js';

/*
 * The reader: published docs sites as HTML. Every request is resolved by the API's lookup
 * (`getPublishedContentByUrl`, no credentials but the visitor's own share key or JWT, and the member's own
 * browser session cookie, forwarded as that cookie to the lookup alone and nowhere else), which answers a
 * short-lived visitor token; everything shown is then read with that token through @quire/client, so the
 * reader never holds more rights than the visitor it serves.
 *
 * This file routes a request to the modules that answer it. Caches (all in memory, per process):
 * - rendered pages by (site, revision, page, visitor segment, address), where the segment is a digest of the
 *   published site this visitor was answered (its visible site spaces, structure and customizations): a new
 *   revision or a change of what the visitor sees renders anew; answered with an ETag (304 on If-None-Match)
 *   (routes/site-pages.ts);
 * - page trees, file lists and page Markdown by (space, revision[, page]): revisions are immutable (computed
 *   pages excepted: their spec can change under the same revision, so their Markdown is read every time)
 *   (api/revision-content.ts);
 * - the published site answer by (site, visibility, revision, visitor scope: open, or a digest of the share
 *   key or JWT) for at most `lookupCacheMs`, so the pages of one site share it instead of each asking it anew;
 *   how stale a customization can be seen is bounded by that, as before, for every kind of site
 *   (api/published-sites.ts);
 * - for `public` and `unlisted` sites only, the lookup and published site of an address for at most
 *   `lookupCacheMs` (1 s by default): that is how stale an unpublish can be seen for open sites. Share-link
 *   and visitor-auth sites are looked up on every request, so a deactivated link or unpublish closes at once
 *   (their lookup still comes first; only what it then allows is read from the caches above) (api/open-sites.ts).
 * In the server's process (`options.changes`), the last two are also forgotten for a site as soon as the server
 * hears it changed (any process's write, through PostgreSQL LISTEN/NOTIFY), and not used while it may not hear,
 * so an unpublish closes open sites at once there too; lookupCacheMs then bounds content only.
 */

export function createReaderHandler(options: ReaderOptions): ReaderHandler {
  const assets = loadAssets();
  const renderPool = createRenderPool();
  const lookupCacheMs = options.lookupCacheMs ?? 1_000;
  const lookups = new AddressLookup(options);
  const sites = new PublishedSites(lookupCacheMs, options.changes);
  const sync = options.changes?.sync?.bind(options.changes);
  const openSites = new OpenSites(lookupCacheMs, lookups, sites, options.changes);
  // In the server's process: what a change touches is forgotten as soon as the server hears of it.
  const unsubscribe = options.changes?.subscribe((change) => {
    openSites.forget(change);
    sites.forget(change);
  });
  const revisions = new RevisionContent();
  const sitePages = new SitePages(options.pageCacheEntries ?? 2_000, { revisions, openSites, renderPool, assets: assets.paths });
  // Parsed once: every request needs it.
  const publicBase = options.publicUrl ? publicBaseOf(options.publicUrl) : undefined;

  /**
   * Answers at once what needs no API call (assets, wrong methods, and an open address whose page is cached:
   * the hot path, kept synchronous so that it allocates no promise), and hands the rest to `serveFromApi`.
   * `firstHeaders` (the server's, see ReaderHandler) are set before anything else, except on a cached page's
   * answer, which writes them with its own in one `writeHead`.
   */
  function serve(req: IncomingMessage, res: ServerResponse, firstHeaders: HeaderList | undefined): Promise<void> | undefined {
    const target = requestTarget(req.url ?? '/');
    const asset = assets.byPath.get(target.pathname);
    if (asset || (req.method !== 'GET' && req.method !== 'HEAD')) {
      setHeaderList(res, firstHeaders);
      return serveOther(req, res, target, asset);
    }
    const address = readAddress(req, target, publicBase);
    // With other processes writing, what this one kept of an open site is used only once it has heard every
    // change acknowledged so far (one round trip on the server's listening connection). An address with nothing
    // kept starts its lookup (which reads the database itself) while that round trip is on the wire, and waits
    // for it only before reusing a published site answer (lookUp).
    if (address.open && sync) {
      const heard = sync();
      if (openSites.holds(address.url, Date.now())) return heard.then(() => serveAddress(req, res, address, firstHeaders));
      setHeaderList(res, firstHeaders);
      return serveFromApi(req, res, address, undefined, Date.now(), heard);
    }
    return serveAddress(req, res, address, firstHeaders);
  }

  /** Assets, a customization's preview (POST) and other methods' refusal. */
  function serveOther(req: IncomingMessage, res: ServerResponse, target: RequestTarget, asset: Asset | undefined): Promise<void> | undefined {
    if (asset) {
      setCommonHeaders(res);
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      send(res, req, 200, asset.type, asset.body);
      return;
    }
    if (req.method === 'POST') return servePreview(req, res, readAddress(req, target, publicBase));
    setCommonHeaders(res);
    send(res, req, 405, TEXT, 'Method not allowed\n', { Allow: 'GET, HEAD, POST' });
    return;
  }

  function serveAddress(req: IncomingMessage, res: ServerResponse, address: ReaderAddress, firstHeaders: HeaderList | undefined): Promise<void> | undefined {
    const now = Date.now();
    const kept = address.open ? openSites.get(address.url, now, req.socket) : undefined;
    if (kept?.page) {
      sendPage(req, res, kept.page, kept.lookup.visibility, firstHeaders);
      return undefined;
    }
    setHeaderList(res, firstHeaders);
    return serveFromApi(req, res, address, kept, now);
  }

  /** The lookup of the address, or undefined when it answered the request already (an error, a redirect). */
  async function lookUp(req: IncomingMessage, res: ServerResponse, address: ReaderAddress, lookedUpAt: number, heard?: Promise<boolean>): Promise<Visit | undefined> {
    const { url, shareKey, jwt, session, open } = address;
    const since = openSites.epoch;
    let answer;
    try {
      answer = await lookups.lookupWithSession(url, shareKey, jwt, req.socket.remoteAddress, session);
    } catch (error) {
      sendBarePage(res, req, assets.paths, lookupFailure(error));
      return undefined;
    }
    if (answer.object === 'published-content-redirect') {
      setCommonHeaders(res);
      // Another address of the site (a site redirect, a moved page) is where the content lives now: permanent,
      // method kept (308). The visitor-auth backend is a detour for this visit only (302).
      redirect(res, answer.target === 'content' ? 308 : 302, answer.redirect);
      return undefined;
    }
    const client = lookups.visitorClient(answer.apiToken);
    // The published site answer may be one kept by this process: used only once every change acknowledged
    // before this request has been heard (see serve).
    if (heard) await heard;
    // Kept as old as its oldest part: the site answer may predate this lookup.
    const keep = open ? (resolved: SiteData & { at: number }) => openSites.keep(url, resolved, Math.min(lookedUpAt, resolved.at), since) : undefined;
    return Visit.ofLookup(answer, client, sites.answer(answer, client, visitorScope(open, shareKey, jwt)), keep);
  }

  /** A page with a customization not saved yet, for the member editing it (routes/customization-preview.ts). */
  async function servePreview(req: IncomingMessage, res: ServerResponse, address: ReaderAddress): Promise<void> {
    let form: PreviewForm;
    try {
      form = await readPreviewForm(req);
    } catch (error) {
      const refusal = previewRefusal(error);
      if (!refusal) throw error;
      return sendBarePage(res, req, assets.paths, refusal);
    }
    const { session } = address;
    if (!session) return sendBarePage(res, req, assets.paths, { status: 401, title: 'Sign-in needed', message: 'Sign in to the app to preview a customization.' });
    const visit = await lookUp(req, res, { ...address, open: false }, Date.now());
    if (!visit) return;
    const tree = revisions.keptTree(visit.lookup) ?? (await revisions.walkTree(visit.client, visit.lookup));
    const rest = visit.lookup.pathname.replace(/^\/+|\/+$/g, '');
    return sendCustomizationPreview(req, res, visit, tree, rest, form, session, { lookups, revisions, renderPool, assets: assets.paths });
  }

  async function serveFromApi(req: IncomingMessage, res: ServerResponse, address: ReaderAddress, kept: SiteData | undefined, now: number, heard?: Promise<boolean>): Promise<void> {
    const visit = kept ? Visit.ofKept(kept) : await lookUp(req, res, address, now, heard);
    if (!visit) return;
    const { lookup, client } = visit;
    if (address.newShareKey || address.newJwt) {
      await visit.site();
      rememberSecrets(res, lookup, address);
      return;
    }
    const tree = revisions.keptTree(lookup) ?? (await revisions.walkTree(client, lookup));
    const rest = lookup.pathname.replace(/^\/+|\/+$/g, '');
    if (MACHINE_FILES.has(rest)) return sendMachineFile(req, res, await visit.site(), rest, address.origin, revisions);
    const fileMatch = /^~files\/([^/]+)$/.exec(rest);
    if (fileMatch) return redirectToFile(req, res, lookup, client, fileMatch[1]!);
    const imageMatch = /^~images\/([^/]+)$/.exec(rest);
    if (imageMatch) return redirectToSiteImage(req, res, lookup, client, imageMatch[1]!);
    if (rest === 'search' && !tree.byPath.has('search')) {
      sendPage(req, res, await searchPage(await visit.site(), tree, address.query.get('q') ?? '', assets.paths), lookup.visibility);
      return;
    }
    if (rest.endsWith('.md')) return sendPageMarkdown(req, res, visit, tree, rest.slice(0, -3), revisions);
    return sitePages.send(req, res, visit, tree, rest, address);
  }

  const handler = ((req: IncomingMessage, res: ServerResponse, firstHeaders?: HeaderList) => {
    let pending: Promise<void> | undefined;
    try {
      pending = serve(req, res, firstHeaders);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending?.catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // A failure before they were set (the cached page's answer sets them last) still answers them first.
      if (firstHeaders && !res.hasHeader(firstHeaders[0]!)) setHeaderList(res, firstHeaders);
      sendBarePage(res, req, assets.paths, laterFailure(error));
    });
  }) as ReaderHandler;
  handler.isReaderPath = isReaderPath;
  handler.close = () => {
    unsubscribe?.();
    return renderPool.close();
  };
  handler.warm = () => renderPool.warm();
  return handler;
}
