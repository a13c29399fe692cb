import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { contentFixtures } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * The site-redirects family as the public API has it: a path of a site sends its visitors to a section, a site
 * space or a page of the same site. Admins change them, members read them; another organization's site is 404.
 */

describeEachDialect('site redirects', (dialect) => {
  const server = useTestServer({ dialect });
  const content = contentFixtures(() => server);

  /** A site with two site spaces, the first with a page `setup`, a section-less layout; admin, reader, outsider. */
  async function world() {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Redirects org', { reader: 'read' });
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const guides = await createSpace(org, { title: 'Guides' });
    const update = await content.editMain(org, guides.id, [
      { operation: 'insert_page', title: 'Setup', slug: 'setup', ref: 'setup', document: { markdown: 'Install it.' } },
    ]);
    const api = await createSpace(org, { title: 'API' });
    const site = await unwrap(admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Docs', spaces: [guides.id, api.id] } as never }));
    const sitePath = { path: { organizationId, siteId: site.id } };
    const siteSpaces = (await unwrap(admin.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: sitePath }))).items;
    const other = await newOrg(server, 'Other org');
    return {
      organizationId, site, sitePath, admin: admin.client, reader: people.reader!.client, other: other.client,
      guides: siteSpaces[0]!, apiSpace: siteSpaces[1]!, setupPageId: content.pageOf(update, 'setup'),
    };
  }
  type World = Awaited<ReturnType<typeof world>>;

  const create = (client: QuireClient, w: World, body: Record<string, unknown>) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/redirects', { params: w.sitePath, body: body as never });
  const list = (client: QuireClient, w: World, query: Record<string, unknown> = {}) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/redirects', { params: { ...w.sitePath, query: query as never } });
  const bySource = (client: QuireClient, w: World, source: string, shareKey?: string) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/redirect', { params: { ...w.sitePath, query: { source, ...(shareKey ? { shareKey } : {}) } } });
  const redirectPath = (w: World, siteRedirectId: string) => ({ path: { ...w.sitePath.path, siteRedirectId } });
  const update = (client: QuireClient, w: World, id: string, body: Record<string, unknown>) =>
    client.PATCH('/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}', { params: redirectPath(w, id), body: body as never });
  const remove = (client: QuireClient, w: World, id: string) =>
    client.DELETE('/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}', { params: redirectPath(w, id) });
  const toSpace = (w: World) => ({ kind: 'site-space', siteSpaceId: w.apiSpace.id });
  const toPage = (w: World) => ({ kind: 'site-page', siteSpaceId: w.guides.id, pageId: w.setupPageId });

  describe('createSiteRedirect', () => {
    it('creates a redirect to a site space or a page of the site, one per source (409 for a duplicate)', async () => {
      const w = await world();
      const created = await unwrap(create(w.admin, w, { source: '/old/api', destination: toSpace(w) }));
      expect(created).toEqual({ object: 'site-redirect', id: expect.any(String), source: '/old/api', destination: toSpace(w) });
      const page = await unwrap(create(w.admin, w, { source: '/install%20guide', destination: toPage(w) }));
      expect(page.destination).toEqual(toPage(w));
      expectError(await create(w.admin, w, { source: '/old/api', destination: toPage(w) }), 409);
      expect((await unwrap(list(w.admin, w))).items).toHaveLength(2);
    });

    it('refuses sources and destinations the public schema does not allow, or outside the site (400), and changes nothing', async () => {
      const w = await world();
      for (const source of ['old', '/', '/old/', '//old', '/a b', '/a?b', '/a#b', '/../x', `/${'a'.repeat(512)}`]) {
        expectError(await create(w.admin, w, { source, destination: toSpace(w) }), 400);
      }
      for (const destination of [
        { kind: 'site-space' }, { kind: 'url', url: 'https://example.com' }, { kind: 'site-page', siteSpaceId: w.guides.id },
        { kind: 'site-space', siteSpaceId: w.apiSpace.id, extra: 1 },
      ]) expectError(await create(w.admin, w, { source: '/x', destination }), 400);
      expectError(await create(w.admin, w, { source: '/x', destination: { kind: 'site-space', siteSpaceId: 'nope' } }), 400, /siteSpaceId/);
      expectError(await create(w.admin, w, { source: '/x', destination: { kind: 'site-section', siteSectionId: 'nope' } }), 400, /siteSectionId/);
      expectError(await create(w.admin, w, { source: '/x', destination: { kind: 'site-page', siteSpaceId: w.guides.id, pageId: 'nope' } }), 400, /pageId/);
      expect((await unwrap(list(w.admin, w))).items).toEqual([]);
    });

    it('lets only admins create (403 for members below), and another organization gets 404', async () => {
      const w = await world();
      expectError(await create(w.reader, w, { source: '/x', destination: toSpace(w) }), 403);
      expectError(await create(w.other, w, { source: '/x', destination: toSpace(w) }), 404);
    });
  });

  describe('listSiteRedirects', () => {
    it('lists by source, pages with a cursor and filters with search (case-insensitive, wildcards taken literally)', async () => {
      const w = await world();
      for (const source of ['/b', '/a', '/Docs_v1', '/docsXv1', '/c%20d']) await unwrap(create(w.admin, w, { source, destination: toSpace(w) }));
      const all = await unwrap(list(w.admin, w));
      expect(all.items.map((item) => item.source)).toEqual(['/Docs_v1', '/a', '/b', '/c%20d', '/docsXv1']);
      const first = await unwrap(list(w.admin, w, { limit: 2 }));
      const second = await unwrap(list(w.admin, w, { limit: 2, page: first.next!.page }));
      expect([...first.items, ...second.items].map((item) => item.source)).toEqual(['/Docs_v1', '/a', '/b', '/c%20d']);
      expect((await unwrap(list(w.admin, w, { search: 'docs_' }))).items.map((item) => item.source)).toEqual(['/Docs_v1']);
      expect((await unwrap(list(w.admin, w, { search: '%20' }))).items.map((item) => item.source)).toEqual(['/c%20d']);
      expect((await unwrap(list(w.reader, w))).items).toHaveLength(5);
      expectError(await list(w.other, w), 404);
    });
  });

  describe('getSiteRedirectBySource', () => {
    it('answers the redirect and the published address of its destination; 404 for no redirect or a destination gone', async () => {
      const w = await world();
      const redirect = await unwrap(create(w.admin, w, { source: '/old', destination: toPage(w) }));
      const found = await unwrap(bySource(w.reader, w, '/old'));
      expect(found.redirect).toEqual(redirect);
      expect(found.target).toBe(`${w.site.urls.location.split('/v1/')[0]}/sites/${w.site.id}/${w.guides.path}/setup`);
      const toApi = await unwrap(create(w.admin, w, { source: '/api', destination: toSpace(w) }));
      expect((await unwrap(bySource(w.admin, w, '/api'))).target).toMatch(new RegExp(`/sites/${w.site.id}/${w.apiSpace.path}$`));
      expectError(await bySource(w.admin, w, '/nope'), 404);
      expectError(await bySource(w.admin, w, 'nope'), 400);
      expectError(await bySource(w.other, w, '/old'), 404);
      // The site space leaves the site: the redirect stays (an admin fixes it) but leads nowhere.
      await unwrap(w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: { path: { ...w.sitePath.path, siteSpaceId: w.apiSpace.id } } }));
      expectError(await bySource(w.admin, w, '/api'), 404);
      expect((await unwrap(list(w.admin, w))).items.map((item) => item.id)).toContain(toApi.id);
    });
  });

  describe('updateSiteRedirectById', () => {
    it('changes the source or the destination, keeps the rest, refuses a taken source (409) and a destination outside the site (400)', async () => {
      const w = await world();
      const a = await unwrap(create(w.admin, w, { source: '/a', destination: toSpace(w) }));
      await unwrap(create(w.admin, w, { source: '/b', destination: toSpace(w) }));
      expect(await unwrap(update(w.admin, w, a.id, {}))).toEqual(a);
      expect(await unwrap(update(w.admin, w, a.id, { source: '/a' }))).toEqual(a);
      expect(await unwrap(update(w.admin, w, a.id, { destination: toPage(w) }))).toEqual({ ...a, destination: toPage(w) });
      expect(await unwrap(update(w.admin, w, a.id, { source: '/c' }))).toEqual({ ...a, source: '/c', destination: toPage(w) });
      expectError(await update(w.admin, w, a.id, { source: '/b' }), 409);
      expectError(await update(w.admin, w, a.id, { destination: { kind: 'site-space', siteSpaceId: 'nope' } }), 400);
      expectError(await update(w.admin, w, a.id, { source: 'c' }), 400);
      expectError(await update(w.admin, w, 'nope', { source: '/d' }), 404);
      expectError(await update(w.reader, w, a.id, { source: '/d' }), 403);
      expectError(await update(w.other, w, a.id, { source: '/d' }), 404);
      expect((await unwrap(bySource(w.admin, w, '/c'))).redirect).toEqual({ ...a, source: '/c', destination: toPage(w) });
    });
  });

  describe('deleteSiteRedirectById', () => {
    it('answers 205 when it deleted the redirect and 204 when there was none', async () => {
      const w = await world();
      const a = await unwrap(create(w.admin, w, { source: '/a', destination: toSpace(w) }));
      expectError(await remove(w.reader, w, a.id), 403);
      expectError(await remove(w.other, w, a.id), 404);
      expect((await remove(w.admin, w, a.id)).response.status).toBe(205);
      expect((await remove(w.admin, w, a.id)).response.status).toBe(204);
      expectError(await bySource(w.admin, w, '/a'), 404);
    });
  });
});
