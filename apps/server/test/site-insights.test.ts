import { unwrap, type QuireClient } from '@quire/client';
import type { SiteInsightsEvent } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { expectError, newMember, newOrg, type TestOrg, useTestServer } from './helpers.js';
import { storedText } from './storage-facts.js';

const CHROME_ON_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const SAFARI_ON_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

type Event = SiteInsightsEvent;
/** A question as clients write it: `limit` and each filter's `operator` have defaults, which the generated type makes required. */
type SiteInsightsAggregation = Record<string, unknown>;

function event(type: Event['type'], extra: Partial<Event> = {}, session: Partial<Event['session']> = {}, location: Partial<Event['location']> = {}): Event {
  return {
    type,
    session: { visitorId: 'visitor-1', sessionId: 'session-1', cookies: { theme: 'dark' }, ip: '203.0.113.7', userAgent: CHROME_ON_MAC, language: 'en-GB', referrer: null, ...session },
    location: { url: 'https://docs.example.com/guide?shareKey=very-secret-key&utm_source=newsletter', displayContext: 'site', siteSection: null, siteSpace: null, siteShareKey: null, space: null, revision: null, page: null, ...location },
    ...extra,
  };
}

describeEachDialect('site insights', (dialect) => {
  const server = useTestServer({ dialect });

  async function siteOf(org: TestOrg): Promise<string> {
    return (await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: org.organizationId } }, body: { title: 'Docs' } }))).id;
  }
  const path = (org: TestOrg, siteId: string) => ({ path: { organizationId: org.organizationId, siteId } });
  const track = (client: QuireClient, org: TestOrg, siteId: string, events: unknown[]) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/insights/events', { params: path(org, siteId), body: { events } as never });
  const aggregate = (client: QuireClient, org: TestOrg, siteId: string, body: SiteInsightsAggregation) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/insights/events/aggregate', { params: path(org, siteId), body: body as never });
  const columns = async (client: QuireClient, org: TestOrg, siteId: string, body: SiteInsightsAggregation) =>
    Object.fromEntries((await unwrap(aggregate(client, org, siteId, body))).columns.map((column) => [column.column, column.values]));
  const totals = (client: QuireClient, org: TestOrg, siteId: string) =>
    columns(client, org, siteId, { range: 'last24Hours', select: [{ column: 'eventsCount' }, { column: 'sessionsCount' }, { column: 'visitorsCount' }] });

  describe('trackEventsInSiteById', () => {
    it('records events, keeping no personal data: ids as keyed hashes, no address, cookie or user agent, no query of the page', async () => {
      const org = await newOrg(server);
      const siteId = await siteOf(org);
      const reader = await newMember(server, org, 'read');
      const answer = await track(reader.client, org, siteId, [
        event('page_view'),
        event('page_view', {}, { sessionId: 'session-2', referrer: 'https://search.example.net/results?q=private+words' }),
        event('page_view', {}, { visitorId: 'visitor-2', sessionId: 'session-3', userAgent: SAFARI_ON_IPHONE }),
        event('search_type_query', { query: 'install guide' }),
      ]);
      expect(answer.response.status).toBe(204);
      expect(await totals(org.client, org, siteId)).toEqual({ eventsCount: [4], sessionsCount: [3], visitorsCount: [2] });

      const stored = await storedText(server, ['site_insight_events']);
      for (const secret of ['visitor-1', 'session-1', '203.0.113.7', 'dark', 'Macintosh', 'very-secret-key', 'private+words', 'private words']) {
        expect(stored).not.toContain(secret);
      }
      const byUrl = await columns(org.client, org, siteId, { range: 'last24Hours', groupBy: [{ column: 'url' }, { column: 'utmSource' }] });
      expect(byUrl).toEqual({ url: ['https://docs.example.com/guide'], utmSource: ['newsletter'], eventsCount: [4] });
      const referrers = await columns(org.client, org, siteId, { range: 'last24Hours', groupBy: [{ column: 'referrerDomain' }, { column: 'referrer' }], order: { by: { column: 'referrerDomain' }, direction: 'asc' } });
      expect(referrers).toEqual({ referrerDomain: ['', 'search.example.net'], referrer: ['', 'https://search.example.net/results'], eventsCount: [3, 1] });
    });

    it('refuses a batch with an event out of time, without the fields of its type, or too large: 400, nothing recorded', async () => {
      const org = await newOrg(server);
      const siteId = await siteOf(org);
      const late = new Date(Date.now() - 10 * 60_000).toISOString();
      const cases: Array<[unknown[], RegExp]> = [
        [[event('page_view'), event('page_view', { timestamp: late })], /events\[1\]\.timestamp must be within 5 minutes/],
        [[event('search_type_query')], /events\[0\]\.query is required for search_type_query events/],
        [[event('page_post_feedback_comment', { feedback: { rating: 'good' } })], /feedback\.comment is required/],
        [[event('link_click', { link: { target: { kind: 'url' }, position: 'content' } })], /link\.target\.url is required/],
        [[event('link_click', { link: { target: { kind: 'reusable-content' }, position: 'content' } })], /link\.target\.reusableContent is required/],
        [[{ ...event('page_view'), type: 'page_print' }], /type/],
        [[{ ...event('page_view'), session: { visitorId: 'v' } }], /session/],
        [Array.from({ length: 101 }, () => event('page_view')), /events/],
      ];
      for (const [events, message] of cases) expectError(await track(org.client, org, siteId, events), 400, message);
      expect(await totals(org.client, org, siteId)).toEqual({ eventsCount: [0], sessionsCount: [0], visitorsCount: [0] });
      // An event stamped a minute ago is taken, at its own time.
      expect((await track(org.client, org, siteId, [event('page_view', { timestamp: new Date(Date.now() - 60_000).toISOString() })])).response.status).toBe(204);
      expect((await totals(org.client, org, siteId)).eventsCount).toEqual([1]);
    });

    it('answers 404 to another organization and for a missing site, 401 without a token', async () => {
      const org = await newOrg(server);
      const siteId = await siteOf(org);
      const other = await newOrg(server, 'Other');
      expectError(await track(other.client, org, siteId, [event('page_view')]), 404);
      expectError(await track(org.client, org, 'missing', [event('page_view')]), 404);
      expectError(await track(server.client(), org, siteId, [event('page_view')]), 401);
      expect((await totals(org.client, org, siteId)).eventsCount).toEqual([0]);
    });
  });

  describe('aggregateSiteEvents', () => {
    async function siteWithEvents(org: TestOrg): Promise<string> {
      const siteId = await siteOf(org);
      await unwrap(track(org.client, org, siteId, [
        event('page_view', {}, {}, { page: 'page-a', space: 'space-1' }),
        event('page_view', {}, { sessionId: 'session-2' }, { page: 'page-a', space: 'space-1' }),
        event('page_view', {}, { visitorId: 'visitor-2', sessionId: 'session-3', userAgent: SAFARI_ON_IPHONE }, { page: 'page-b', space: 'space-1' }),
        event('page_view', {}, { visitorId: 'crawler', sessionId: 'crawl', userAgent: GOOGLEBOT }),
        event('search_type_query', { query: 'install' }),
        event('search_type_query', { query: 'install' }, { visitorId: 'visitor-2', sessionId: 'session-3' }),
        event('search_type_query', { query: 'upgrade' }),
        event('page_post_feedback', { feedback: { rating: 'good' } }, {}, { page: 'page-a', space: 'space-1' }),
        event('page_post_feedback', { feedback: { rating: 'bad' } }, { visitorId: 'visitor-2' }, { page: 'page-a', space: 'space-1' }),
        event('link_click', { link: { target: { kind: 'url', url: 'https://github.com/acme/tool' }, position: 'content' } }),
      ]));
      return siteId;
    }

    it('counts events, sessions and visitors by the columns asked, filtered, ordered and limited', async () => {
      const org = await newOrg(server);
      const siteId = await siteWithEvents(org);
      const reader = await newMember(server, org, 'read');

      expect(await columns(reader.client, org, siteId, {
        range: 'last7Days', groupBy: [{ column: 'eventType' }], select: [{ column: 'eventType' }, { column: 'eventsCount' }, { column: 'visitorsCount' }],
        order: { by: { column: 'eventsCount' }, direction: 'desc' },
      })).toEqual({
        eventType: ['page_view', 'search_type_query', 'page_post_feedback', 'link_click'],
        eventsCount: [4, 3, 2, 1],
        visitorsCount: [3, 2, 2, 1],
      });
      // Grouping by a property of some events keeps those events; `where` and a count's condition filter.
      expect(await columns(org.client, org, siteId, { range: 'last24Hours', groupBy: [{ column: 'eventSearchQuery' }], order: { by: { column: 'eventSearchQuery' }, direction: 'asc' } }))
        .toEqual({ eventSearchQuery: ['install', 'upgrade'], eventsCount: [2, 1] });
      expect(await columns(org.client, org, siteId, { range: 'last24Hours', groupBy: [{ column: 'eventSearchQuery' }], where: [{ column: 'eventsCount', operator: 'greaterThan', values: [1] }] }))
        .toEqual({ eventSearchQuery: ['install'], eventsCount: [2] });
      expect(await columns(org.client, org, siteId, {
        range: 'last24Hours', groupBy: [{ column: 'visitorBrowser' }, { column: 'visitorDevice' }, { column: 'visitorBot' }],
        where: [{ column: 'eventType', values: ['page_view'] }], order: { by: { column: 'eventsCount' }, direction: 'desc' }, limit: 2,
      })).toEqual({ visitorBrowser: ['chrome', 'safari'], visitorDevice: ['desktop', 'mobile'], visitorBot: ['', ''], eventsCount: [2, 1] });
      expect(await columns(org.client, org, siteId, { range: 'last24Hours', groupBy: [{ column: 'visitorBot' }], where: [{ column: 'visitorBot', operator: 'notIn', values: [''] }] }))
        .toEqual({ visitorBot: ['googlebot'], eventsCount: [1] });

      // Pages as {page, space}, their ratings as counts of each, the day of the events, the link clicked.
      expect(await columns(org.client, org, siteId, {
        range: 'last24Hours', groupBy: [{ column: 'page' }], select: [{ column: 'page' }, { column: 'pageFeedbackRating' }],
        where: [{ column: 'page', values: [{ page: 'page-a', space: 'space-1' }] }],
      })).toEqual({ page: [{ page: 'page-a', space: 'space-1' }], pageFeedbackRating: [{ bad: 1, ok: 0, good: 1 }] });
      const today = new Date();
      const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())).toISOString();
      const byDay = await columns(org.client, org, siteId, { range: 'last24Hours', groupBy: [{ column: 'datetime', interval: 'day' }] });
      expect((byDay.eventsCount as number[]).reduce((sum, value) => sum + value, 0)).toBe(10);
      expect(byDay.datetime!.every((value) => value === day || Date.parse(value as string) === Date.parse(day) - 86_400_000)).toBe(true);
      expect(await columns(org.client, org, siteId, { range: 'last24Hours', groupBy: [{ column: 'eventLinkTargetValue' }, { column: 'eventLinkTargetDomain' }] }))
        .toEqual({ eventLinkTargetValue: [{ kind: 'url', url: 'https://github.com/acme/tool' }], eventLinkTargetDomain: ['github.com'], eventsCount: [1] });

      // A range of custom dates before the events holds none.
      const from = new Date(Date.now() - 3 * 86_400_000).toISOString();
      const to = new Date(Date.now() - 2 * 86_400_000).toISOString();
      expect(await columns(org.client, org, siteId, { range: { from, to } })).toEqual({ eventsCount: [0] });
    });

    it('answers 400 for what Quire does not keep and for questions it cannot answer, 404 outside the organization, 401 without a token', async () => {
      const org = await newOrg(server);
      const siteId = await siteWithEvents(org);
      const cases: Array<[SiteInsightsAggregation, RegExp]> = [
        [{ range: 'last24Hours', groupBy: [{ column: 'visitorGeoCountry' }] }, /no IP address/],
        [{ range: 'last24Hours', groupBy: [{ column: 'visitorClaim', claim: 'plan' }] }, /claims/],
        [{ range: 'last24Hours', where: [{ column: 'visitorClaimProperty', values: ['plan'] }] }, /claims/],
        [{ range: 'last24Hours', select: [{ column: 'url' }] }, /select\[0\]: url is not grouped by/],
        [{ range: 'last24Hours', select: [] }, /select/],
        [{ range: 'last24Hours', groupBy: [{ column: 'eventsCount' }] }, /is a count/],
        [{ range: 'last24Hours', order: { by: { column: 'url' }, direction: 'asc' } }, /order\.by/],
        [{ range: 'last24Hours', where: [{ column: 'url', operator: 'greaterThan', values: ['https://a.example'] }] }, /use in or notIn/],
        [{ range: 'last24Hours', where: [{ column: 'eventsCount', values: ['many'] }] }, /numbers/],
        [{ range: 'last24Hours', where: [{ column: 'page', values: ['page-a'] }] }, /\{page, space\}/],
        [{ range: 'last24Hours', where: [{ column: 'datetime', operator: 'greaterThan', values: ['yesterday'] }] }, /date-times/],
        [{ range: { from: '2025-01-01T00:00:00Z', to: '2026-06-01T00:00:00Z' } }, /366 days/],
        [{ range: { from: '2026-06-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }, /earlier/],
        [{ range: 'lastCentury' } as never, /range/],
        [{ range: 'last24Hours', limit: 1001 }, /limit/],
      ];
      for (const [body, message] of cases) expectError(await aggregate(org.client, org, siteId, body), 400, message);
      expectError(await aggregate((await newOrg(server, 'Other')).client, org, siteId, { range: 'last24Hours' }), 404);
      expectError(await aggregate(org.client, org, 'missing', { range: 'last24Hours' }), 404);
      expectError(await aggregate(server.client(), org, siteId, { range: 'last24Hours' }), 401);
    });
  });
});
