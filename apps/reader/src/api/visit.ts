import type { QuireClient } from '@quire/client';
import type { Lookup } from '../site/types.js';
import { siteData, type SiteAnswer, type SiteData } from './published-sites.js';

/**
 * One request's access to its site: the lookup and the visitor's client, and the published site this visitor
 * is answered, resolved once (for an open address kept in OpenSites, all three come from its entry).
 */
export class Visit {
  private resolving: Promise<SiteData> | undefined;

  private constructor(
    readonly lookup: Lookup,
    readonly client: QuireClient,
    /** The open address's kept entry, when the request was answered from it. */
    readonly kept: SiteData | undefined,
    private readonly asked: { answer: Promise<SiteAnswer>; fresh: boolean } | undefined,
    private readonly onResolved: ((resolved: SiteData & { at: number }) => void) | undefined,
  ) {}

  static ofKept(kept: SiteData): Visit {
    return new Visit(kept.lookup, kept.client, kept, undefined, undefined);
  }

  /**
   * A lookup made now, with its published site asked (or found in its cache); `onResolved` sees the site once
   * known (an open address keeps it).
   */
  static ofLookup(lookup: Lookup, client: QuireClient, asked: { answer: Promise<SiteAnswer>; fresh: boolean }, onResolved?: (resolved: SiteData & { at: number }) => void): Visit {
    // Awaited on every path that answers; this only keeps a failure from being reported as unhandled meanwhile.
    asked.answer.catch(() => undefined);
    return new Visit(lookup, client, undefined, asked, onResolved);
  }

  /** Whether the published site is being asked now (a round trip: its caller reads the page meanwhile). */
  get siteAskedNow(): boolean {
    return this.asked?.fresh ?? false;
  }

  /** The published site for this request, once. */
  site(): Promise<SiteData> {
    if (this.kept) return Promise.resolve(this.kept);
    return (this.resolving ??= siteData(this.lookup, this.client, this.asked!.answer).then((resolved) => {
      this.onResolved?.(resolved);
      return resolved;
    }));
  }
}
