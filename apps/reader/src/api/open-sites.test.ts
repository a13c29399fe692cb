import type { QuireClient } from '@quire/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RenderedPage } from '../pages/rendered-page.js';
import type { ReaderChanges } from '../reader-options.js';
import type { Lookup } from '../site/types.js';
import type { AddressLookup } from './address-lookup.js';
import { OpenSites } from './open-sites.js';
import type { PublishedSites, SiteData } from './published-sites.js';

const lookupOf = (visibility: Lookup['visibility'], site = 'site', space = 'space') => ({ object: 'published-content-lookup', visibility, apiToken: 't', site, space }) as unknown as Lookup;
const entry = (visibility: Lookup['visibility'] = 'public', site?: string, space?: string): SiteData => ({ lookup: lookupOf(visibility, site, space), client: {} as QuireClient, site: {} as SiteData['site'], segment: 'seg' });

/** OpenSites over a lookup that answers `answer` and counts its calls, with the visitor's address it was given. */
function openSites(lookupCacheMs: number, answer = lookupOf('public'), changes?: ReaderChanges) {
  const asked: Array<string | undefined> = [];
  const lookups = {
    lookup: async (_url: string, _shareKey: undefined, _jwt: undefined, visitorAddress?: string) => {
      asked.push(visitorAddress);
      return answer;
    },
    visitorClient: () => ({}) as QuireClient,
  } as unknown as AddressLookup;
  const sites = { answer: () => ({ answer: Promise.resolve({ site: {}, segment: 'new', at: Date.now() }), fresh: true }) } as unknown as PublishedSites;
  return { sites: new OpenSites(lookupCacheMs, lookups, sites, changes), asked };
}

const visitor = { remoteAddress: '203.0.113.9' };

afterEach(() => vi.useRealTimers());

describe('OpenSites', () => {
  it('keeps public and unlisted sites only, and only while lookups may be reused', () => {
    const { sites } = openSites(1_000);
    for (const visibility of ['public', 'unlisted', 'share-link', 'visitor-auth'] as const) sites.keep(`u-${visibility}`, entry(visibility), 5_000, sites.epoch);
    expect(sites.get('u-public', 5_100, visitor)).toBeDefined();
    expect(sites.get('u-unlisted', 5_100, visitor)).toBeDefined();
    expect(sites.get('u-share-link', 5_100, visitor)).toBeUndefined();
    expect(sites.get('u-visitor-auth', 5_100, visitor)).toBeUndefined();
    const { sites: off } = openSites(0);
    off.keep('u', entry(), Date.now(), off.epoch);
    expect(off.get('u', Date.now(), visitor)).toBeUndefined();
  });

  it('says whether an address has an entry (the barrier is awaited before its use only then), without using it', () => {
    const { sites, asked } = openSites(1_000);
    expect(sites.holds('u', 5_000)).toBe(false);
    sites.keep('u', entry(), 5_000, sites.epoch);
    expect(sites.holds('u', 5_900)).toBe(true);
    // Not a use: an entry past half its life is not refreshed by being asked about.
    expect(asked).toEqual([]);
    expect(sites.holds('u', 6_001)).toBe(false);
  });

  it('never answers an entry older than lookupCacheMs', () => {
    const { sites } = openSites(1_000);
    sites.keep('u', entry(), 5_000, sites.epoch);
    expect(sites.get('u', 6_000, visitor)).toBeDefined();
    expect(sites.get('u', 6_001, visitor)).toBeUndefined();
  });

  it('refreshes an entry past half its life in the background, once at a time, with the visitor address', async () => {
    const { sites, asked } = openSites(1_000);
    const kept = entry();
    sites.keep('u', kept, 5_000, sites.epoch);
    expect(sites.get('u', 5_400, visitor)).toBe(kept);
    expect(asked).toEqual([]);
    expect(sites.get('u', 5_600, visitor)).toBe(kept);
    expect(sites.get('u', 5_700, visitor)).toBe(kept);
    expect(asked).toEqual(['203.0.113.9']);
    await vi.waitFor(() => expect(sites.get('u', Date.now(), visitor)?.segment).toBe('new'));
  });

  it('drops nothing when the refresh finds the site no longer open: the kept entry just ages out', async () => {
    const { sites, asked } = openSites(1_000, lookupOf('share-link'));
    const kept = entry();
    const now = Date.now();
    sites.keep('u', kept, now - 600, sites.epoch);
    sites.get('u', now, visitor);
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sites.get('u', now, visitor)).toBe(kept);
    expect(sites.get('u', now + 401, visitor)).toBeUndefined();
  });

  it('remembers a page on the entry it was rendered for, not on a newer one', () => {
    const { sites } = openSites(1_000);
    const page = {} as RenderedPage;
    const old = entry();
    sites.keep('u', old, Date.now(), sites.epoch);
    const newer = entry();
    sites.keep('u', newer, Date.now(), sites.epoch);
    sites.rememberPage('u', old, page);
    expect(old.page).toBeUndefined();
    sites.rememberPage('u', newer, page);
    expect(newer.page).toBe(page);
  });

  it('forgets what a change touches at once: a site, the sites of a space, or everything', () => {
    const { sites } = openSites(1_000);
    const now = Date.now();
    sites.keep('a', entry('public', 'site-a', 'space-a'), now, sites.epoch);
    sites.keep('b', entry('public', 'site-b', 'space-b'), now, sites.epoch);
    sites.keep('c', entry('unlisted', 'site-c', 'space-c'), now, sites.epoch);
    sites.forget({ siteId: 'site-a' });
    expect(sites.get('a', now, visitor)).toBeUndefined();
    expect(sites.get('b', now, visitor)).toBeDefined();
    sites.forget({ spaceId: 'space-b' });
    expect(sites.get('b', now, visitor)).toBeUndefined();
    expect(sites.get('c', now, visitor)).toBeDefined();
    sites.forget({});
    expect(sites.get('c', now, visitor)).toBeUndefined();
  });

  it('does not keep a lookup asked before a change and answered after it: it may tell the state before', () => {
    const { sites } = openSites(1_000);
    const since = sites.epoch;
    sites.forget({ siteId: 'another site' });
    sites.keep('u', entry(), Date.now(), since);
    expect(sites.get('u', Date.now(), visitor)).toBeUndefined();
    sites.keep('u', entry(), Date.now(), sites.epoch);
    expect(sites.get('u', Date.now(), visitor)).toBeDefined();
  });

  it('neither answers nor keeps entries while the change feed is not live', () => {
    let live = true;
    const changes: ReaderChanges = { subscribe: () => () => undefined, live: () => live };
    const { sites } = openSites(1_000, lookupOf('public'), changes);
    sites.keep('u', entry(), Date.now(), sites.epoch);
    live = false;
    expect(sites.get('u', Date.now(), visitor)).toBeUndefined();
    sites.keep('v', entry(), Date.now(), sites.epoch);
    live = true;
    expect(sites.get('v', Date.now(), visitor)).toBeUndefined();
  });
});
