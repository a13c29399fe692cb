import type { Socket } from 'node:net';
import type { RenderedPage } from '../pages/rendered-page.js';
import { LruCache } from '../site/cache.js';
import type { ReaderChange, ReaderChanges } from '../reader-options.js';
import type { Lookup } from '../site/types.js';
import type { AddressLookup } from './address-lookup.js';
import { siteData, type PublishedSites, type SiteData } from './published-sites.js';

const isOpen = (visibility: Lookup['visibility']) => visibility === 'public' || visibility === 'unlisted';

/** Whether a kept lookup or site answer is touched by `change` (a change naming nothing touches everything). */
export function touches(change: ReaderChange, lookup: Pick<Lookup, 'site' | 'space'>): boolean {
  if (change.siteId !== undefined) return lookup.site === change.siteId;
  if (change.spaceId !== undefined) return lookup.space === change.spaceId;
  return true;
}

/**
 * The lookups of open (public, unlisted) sites' addresses, with their published site, kept by address for at
 * most lookupCacheMs. Run on its own, that is how stale an unpublish can be seen for open sites; run in the
 * server's process (`changes`), an entry is forgotten as soon as the server hears its site changed, and none is
 * used or kept while the server may miss changes. Share-link and visitor-auth sites are never kept here.
 */
export class OpenSites {
  private readonly entries: LruCache<SiteData>;
  private readonly refreshing = new Set<string>();
  /**
   * Counts what was forgotten: a lookup that was asked before a change and answered after it may tell the
   * state before, so it is kept only when no change came meanwhile (`keep`'s `since`).
   */
  private forgotten = 0;

  constructor(
    private readonly lookupCacheMs: number,
    private readonly lookups: AddressLookup,
    private readonly sites: PublishedSites,
    private readonly changes?: ReaderChanges,
  ) {
    this.entries = new LruCache<SiteData>(2_000, lookupCacheMs);
  }

  /** What to give `keep` as `since` for a lookup asked now. */
  get epoch(): number {
    return this.forgotten;
  }

  /** Forgets the entries `change` touches, and keeps none asked before it. */
  forget(change: ReaderChange): void {
    this.forgotten++;
    this.entries.deleteWhere((_, entry) => touches(change, entry.lookup));
  }

  /** Whether entries may be used and kept now (always, without a change feed). */
  private live(): boolean {
    return this.changes?.live() ?? true;
  }

  /** Whether something is kept for the address now (not counted as a use). */
  holds(url: string, now: number): boolean {
    return this.entries.peek(url, now) !== undefined;
  }

  /** The address's kept lookup and site; one past half its life is refreshed ahead, in the background. */
  get(url: string, now: number, visitor: Pick<Socket, 'remoteAddress'>): SiteData | undefined {
    if (!this.live()) return undefined;
    const info = this.entries.get(url, now);
    // The visitor's address is read only for a refresh (the API counts the lookup against it).
    if (info && !this.refreshing.has(url) && (this.entries.age(url, now) ?? 0) > this.lookupCacheMs / 2) this.refresh(url, visitor.remoteAddress);
    return info;
  }

  /** Keeps an open site's lookup and site answer, as old as its oldest part (`at`), asked at `since` (`epoch`). */
  keep(url: string, resolved: SiteData, at: number, since: number): void {
    if (isOpen(resolved.lookup.visibility) && this.lookupCacheMs > 0 && since === this.forgotten && this.live()) this.entries.set(url, resolved, at);
  }

  /** The page an address's entry renders, so that its next requests are answered from the entry directly. */
  rememberPage(url: string, resolved: SiteData, page: RenderedPage): void {
    if (this.entries.peek(url) === resolved) resolved.page = page;
  }

  // Refreshed ahead, in the background, so busy open pages never wait on the API; what is served is
  // still never older than lookupCacheMs (the site answer is asked anew too, not reused).
  private refresh(url: string, visitorAddress: string | undefined): void {
    this.refreshing.add(url);
    const askedAt = Date.now();
    const since = this.forgotten;
    this.lookups
      .lookup(url, undefined, undefined, visitorAddress)
      .then(async (answer) => {
        if (answer.object === 'published-content-lookup' && isOpen(answer.visibility)) {
          const client = this.lookups.visitorClient(answer.apiToken);
          const fresh = await siteData(answer, client, this.sites.answer(answer, client, 'open', false).answer);
          this.keep(url, fresh, Math.min(askedAt, fresh.at), since);
        }
      })
      .catch(() => undefined)
      .finally(() => this.refreshing.delete(url));
  }
}
