import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * Search of a docs site (searchSiteContent) over the spaces it publishes, and its preview address
 * (getSitePublishingPreviewById), which the reader opens.
 */
describeEachDialect('site search and preview', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  /**
   * A site with two sections: Guides (default section; default site space "Guides", second "Extra") and
   * Reference, each space with a page mentioning "zephyr"; "Extra" is a space only admins see.
   */
  async function world() {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Site search org', { reader: 'read' });
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const spaces: Record<string, { id: string }> = {};
    for (const title of ['Guides', 'Reference', 'Extra']) {
      const space = await createSpace(org, { title });
      await f.editMain(org, space.id, [{ operation: 'insert_page', title: `${title} winds`, document: md(`A zephyr in ${title}.`) }]);
      spaces[title] = space;
    }
    await unwrap(admin.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: spaces.Extra!.id } }, body: { defaultLevel: null } }));
    await f.runJobs();
    const site = await unwrap(admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Docs' } }));
    const params = { path: { organizationId, siteId: site.id } };
    const guides = await unwrap(admin.client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params, body: { spaceId: spaces.Guides!.id } }));
    const reference = await unwrap(admin.client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params, body: { spaceId: spaces.Reference!.id } }));
    const extra = await unwrap(admin.client.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params, body: { spaceId: spaces.Extra!.id, sectionId: guides.id } }));
    const other = await newOrg(server, 'Other search org');
    return { organizationId, admin: admin.client, reader: people.reader!.client, other: other.client, org, site, params, spaces, guides, reference, extra };
  }
  type World = Awaited<ReturnType<typeof world>>;

  const search = (client: QuireClient, w: World, body: Record<string, unknown>, query: { page?: string; limit?: number } = {}) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/search', { params: { ...w.params, query }, body: body as never });
  const spaceIds = (answer: { items: Array<{ id: string }> }) => answer.items.map((item) => item.id);

  describe('searchSiteContent', () => {
    it('searches the site spaces the scope names, one item per space with its pages', async () => {
      const w = await world();
      const all = await unwrap(search(w.admin, w, { query: 'zephyr', scope: { mode: 'all' } }));
      expect(spaceIds(all)).toEqual([w.spaces.Guides!.id, w.spaces.Extra!.id, w.spaces.Reference!.id]);
      expect(all.items[0]).toMatchObject({ title: 'Guides', pages: [{ title: 'Guides winds', sections: [expect.objectContaining({ body: expect.stringContaining('zephyr') })] }] });
      expect(spaceIds(await unwrap(search(w.admin, w, { query: 'zephyr', scope: { mode: 'default' } })))).toEqual([w.spaces.Guides!.id, w.spaces.Reference!.id]);
      expect(spaceIds(await unwrap(search(w.admin, w, { query: 'zephyr', scope: { mode: 'default', currentSiteSpace: w.extra.id } })))).toEqual([w.spaces.Guides!.id, w.spaces.Extra!.id, w.spaces.Reference!.id]);
      expect(spaceIds(await unwrap(search(w.admin, w, { query: 'zephyr', scope: { mode: 'specific', siteSpaceIds: [w.extra.id] } })))).toEqual([w.spaces.Extra!.id]);
      // The earlier forms.
      expect(spaceIds(await unwrap(search(w.admin, w, { query: 'zephyr', siteSpaceIds: [w.extra.id] })))).toEqual([w.spaces.Extra!.id]);
      expect(spaceIds(await unwrap(search(w.admin, w, { query: 'zephyr', mode: 'current', siteSpaceId: w.extra.id })))).toHaveLength(3);
      expect(spaceIds(await unwrap(search(w.admin, w, { query: 'zephyr', mode: 'all' })))).toHaveLength(3);
      expect((await unwrap(search(w.admin, w, { query: 'nothing-matches-this', scope: { mode: 'all' } }))).items).toEqual([]);
      // Pages of results: limit counts spaces.
      const first = await unwrap(search(w.admin, w, { query: 'zephyr', scope: { mode: 'all' } }, { limit: 2 }));
      const second = await unwrap(search(w.admin, w, { query: 'zephyr', scope: { mode: 'all' } }, { limit: 2, page: first.next!.page }));
      expect([...spaceIds(first), ...spaceIds(second)]).toEqual(spaceIds(all));
    });

    it('shows members only the spaces they see: a hidden site space answers as one the site lacks', async () => {
      const w = await world();
      expect(spaceIds(await unwrap(search(w.reader, w, { query: 'zephyr', scope: { mode: 'all' } })))).toEqual([w.spaces.Guides!.id, w.spaces.Reference!.id]);
      const hidden = await search(w.reader, w, { query: 'zephyr', scope: { mode: 'specific', siteSpaceIds: [w.extra.id] } });
      const missing = await search(w.reader, w, { query: 'zephyr', scope: { mode: 'specific', siteSpaceIds: ['noSuchSiteSpace'] } });
      expectError(hidden, 400);
      expect(hidden.response.status).toBe(missing.response.status);
      expect(JSON.stringify(hidden.error).replace(w.extra.id, 'X')).toBe(JSON.stringify(missing.error).replace('noSuchSiteSpace', 'X'));
      // A guest sees the site but none of its spaces (none is shared with them).
      const guest = await newMember(server, w.org, null);
      expect((await unwrap(search(guest.client, w, { query: 'zephyr', scope: { mode: 'all' } }))).items).toEqual([]);
      expectError(await search(w.other, w, { query: 'zephyr', scope: { mode: 'all' } }), 404);
    });

    it('refuses a body without a scope, with two forms, or with bad values', async () => {
      const w = await world();
      for (const body of [{ query: 'zephyr' }, { query: 'zephyr', scope: { mode: 'all' }, mode: 'all' }, { query: 'zephyr', mode: 'current' }, { query: '', scope: { mode: 'all' } }, { query: 'x'.repeat(513), scope: { mode: 'all' } }, { query: 'zephyr', scope: { mode: 'sideways' } }]) {
        expectError(await search(w.admin, w, body), 400);
      }
      expectError(await search(w.admin, w, { query: 'zephyr', scope: { mode: 'all' } }, { page: 'not-a-cursor' }), 400);
    });
  });

  describe('getSitePublishingPreviewById', () => {
    const preview = (client: QuireClient, w: World, query: { siteSpace?: string; claims?: string } = {}) =>
      client.GET('/orgs/{organizationId}/sites/{siteId}/publishing/preview', { params: { ...w.params, query } });

    it('answers the address of the site space with the claims, which the reader opens', async () => {
      const w = await world();
      expectError(await preview(w.admin, w), 400);
      const published = await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: w.params }));
      const { url } = await unwrap(preview(w.reader, w));
      expect(url).toBe(w.guides.siteSpaces[0]!.urls.published ?? `${published.urls.published}/${w.guides.path}/${w.guides.siteSpaces[0]!.path}`);
      const withClaims = await unwrap(preview(w.admin, w, { siteSpace: w.extra.id, claims: "(beta:!t,plan:pro,org:(seats:3))" }));
      const address = new URL(withClaims.url);
      expect(address.searchParams.get('visitor.beta')).toBe('true');
      expect(address.searchParams.get('visitor.plan')).toBe('pro');
      expect(address.searchParams.get('visitor.org.seats')).toBe('3');
      // The reader's lookup resolves it to the site space asked for.
      const lookup = await unwrap(server.client().GET('/urls/published', { params: { query: { url: withClaims.url } } }));
      expect(lookup).toMatchObject({ object: 'published-content-lookup', siteSpace: w.extra.id });
      // The test server's public address is not where it listens: the reader is asked at the listening address.
      const page = await fetch(new URL(`${new URL(url).pathname}${new URL(url).search}`, server.url));
      expect(page.status).toBe(200);

      expectError(await preview(w.admin, w, { claims: '(beta:' }), 400);
      expectError(await preview(w.admin, w, { claims: '!(1,2)' }), 400);
      expectError(await preview(w.admin, w, { siteSpace: 'noSuch' }), 400);
      // A site space the member cannot see answers as one the site lacks.
      const hidden = await preview(w.reader, w, { siteSpace: w.extra.id });
      expectError(hidden, 400);
      expect(JSON.stringify(hidden.error).replace(w.extra.id, 'X')).toBe(JSON.stringify((await preview(w.reader, w, { siteSpace: 'noSuch' })).error).replace('noSuch', 'X'));
      expectError(await preview(w.other, w), 404);
    });
  });
});
