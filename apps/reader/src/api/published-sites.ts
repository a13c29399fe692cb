import { createHash } from 'node:crypto';
import type { QuireClient } from '@quire/client';
import type { RenderedPage } from '../pages/rendered-page.js';
import { LruCache } from '../site/cache.js';
import type { ReaderChange, ReaderChanges } from '../reader-options.js';
import type { Lookup, PublishedSite } from '../site/types.js';
import { data } from './api-failure.js';

export interface SiteAnswer {
  site: PublishedSite;
  segment: string;
  /** When the API answered it (ms since the epoch): what is served is never older than `lookupCacheMs`. */
  at: number;
}

export interface SiteData {
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

/** Who the published site answer is shared with: everyone on open addresses, else holders of the same secret. */
export function visitorScope(open: boolean, shareKey: string | undefined, jwt: string | undefined): string {
  return open ? 'open' : createHash('sha256').update(`${shareKey ?? ''}\n${jwt ?? ''}`).digest('base64url');
}

/**
 * The published site answers (`getPublishedContentSite`), kept by (site, visibility, revision, visitor scope)
 * for at most lookupCacheMs. Promises, so that concurrent first requests share one API call; a failed one is
 * forgotten at once.
 */
export class PublishedSites {
  private readonly answers: LruCache<Promise<SiteAnswer>>;

  constructor(private readonly lookupCacheMs: number, private readonly changes?: ReaderChanges) {
    this.answers = new LruCache<Promise<SiteAnswer>>(500, lookupCacheMs);
  }

  /** Forgets the answers of the site `change` names (all of them for a space or everything: answers do not say their spaces). */
  forget(change: ReaderChange): void {
    const prefix = change.siteId === undefined ? '' : `${change.siteId}|`;
    this.answers.deleteWhere((key) => key.startsWith(prefix));
  }

  /**
   * The published site this visitor is answered, shared by every page of the site in the same scope for at
   * most lookupCacheMs. `fresh` says whether it was asked now (its caller then reads the page meanwhile).
   * `reuse: false` always asks (background refreshes, whose answer then serves another lookupCacheMs).
   */
  answer(lookup: Lookup, client: QuireClient, scope: string, reuse = true): { answer: Promise<SiteAnswer>; fresh: boolean } {
    const key = `${lookup.site}|${lookup.visibility}|${lookup.revision}|${scope}`;
    const keeping = this.lookupCacheMs > 0 && (this.changes?.live() ?? true);
    const cached = reuse && keeping ? this.answers.get(key) : undefined;
    if (cached) return { answer: cached, fresh: false };
    const answer = data(
      client.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: { path: { organizationId: lookup.organization, siteId: lookup.site } } }),
    ).then((site): SiteAnswer => ({ site, segment: createHash('sha256').update(JSON.stringify(site)).digest('base64url').slice(0, 22), at: Date.now() }));
    // Kept from the moment it is asked: a change heard meanwhile forgets it with the others.
    if (keeping) {
      this.answers.set(key, answer);
      answer.catch(() => this.answers.deleteIf(key, answer));
    }
    return { answer, fresh: true };
  }
}

export async function siteData(lookup: Lookup, client: QuireClient, answer: Promise<SiteAnswer>): Promise<SiteData & { at: number }> {
  const { site, segment, at } = await answer;
  return { lookup, client, site, segment, at };
}
