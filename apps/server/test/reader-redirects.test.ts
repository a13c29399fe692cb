import { unwrap } from '@quire/client';
import type { PublishedContentRedirect } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { contentFixtures } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, newOrg, useTestServer } from './helpers.js';

/*
 * Redirects honoured by the reader (apps/reader): the site's redirects (site-redirects family) and the old
 * paths of moved pages, both answered by the address lookup (getPublishedContentByUrl) as a
 * `published-content-redirect` with target `content`, which the reader answers with 308. Over real HTTP, no
 * redirect followed, as a browser would see it.
 */

describeEachDialect('reader redirects', (dialect) => {
  const server = useTestServer({ dialect });
  const content = contentFixtures(() => server);

  async function site() {
    const org = await newOrg(server, 'Redirect reader org');
    const space = await createSpace(org, { title: 'Guides' });
    const update = await content.editMain(org, space.id, [
      { operation: 'insert_page', title: 'Introduction', ref: 'intro', document: { markdown: 'Welcome.' } },
      { operation: 'insert_page', title: 'Setup', slug: 'setup', ref: 'setup', document: { markdown: 'Install it.' } },
      { operation: 'insert_page', title: 'Advanced', slug: 'advanced', ref: 'advanced', into: 'setup', document: { markdown: 'Nested.' } },
    ]);
    const params = { path: { organizationId: org.organizationId } };
    const created = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params, body: { title: 'Docs', spaces: [space.id] } as never }));
    const sitePath = { path: { organizationId: org.organizationId, siteId: created.id } };
    const published = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath }));
    const siteSpace = (await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: sitePath }))).items[0]!;
    const url = new URL(published.urls.published!);
    return { org, space, sitePath, siteSpace, origin: url.origin, address: url.pathname, update };
  }

  /** A path as the reader serves it, over real HTTP to the test server; redirects not followed. */
  const get = (path: string) => fetch(server.url + path, { redirect: 'manual' });
  const locationOf = (response: Response) => new URL(response.headers.get('location')!).pathname;
  const lookup = (url: string) => unwrap(server.client().GET('/urls/published', { params: { query: { url } } }));

  describe('getPublishedContentByUrl site redirects', () => {
    it('answers a redirect of the site with target content, and the reader answers 308 to the destination', async () => {
      const s = await site();
      await unwrap(s.org.client.POST('/orgs/{organizationId}/sites/{siteId}/redirects', {
        params: s.sitePath, body: { source: '/old/install', destination: { kind: 'site-page', siteSpaceId: s.siteSpace.id, pageId: content.pageOf(s.update, 'advanced') } },
      }));
      // The destination's address names its site space, as the site presenter builds addresses.
      const target = `${s.address}/${s.siteSpace.path}/setup/advanced`;
      const answer = (await lookup(`${s.origin}${s.address}/old/install`)) as PublishedContentRedirect;
      expect(answer).toEqual({ object: 'published-content-redirect', reason: 'site-redirect', target: 'content', redirect: s.origin + target });
      const response = await get(`${s.address}/old/install`);
      expect(response.status).toBe(308);
      expect(locationOf(response)).toBe(target);
      expect((await get(target)).status).toBe(200);
      // Other paths are not redirected, and a deleted redirect stops at once.
      expect((await get(`${s.address}/old/install/more`)).status).toBe(404);
      const list = await unwrap(s.org.client.GET('/orgs/{organizationId}/sites/{siteId}/redirects', { params: s.sitePath }));
      await s.org.client.DELETE('/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}', { params: { path: { ...s.sitePath.path, siteRedirectId: list.items[0]!.id } } });
      expect((await get(`${s.address}/old/install`)).status).toBe(404);
    });

    it('redirects a moved page\'s old address to its new one, and never a path that is a page now', async () => {
      const s = await site();
      const setupId = content.pageOf(s.update, 'setup');
      await content.editMain(s.org, s.space.id, [{ operation: 'update_page', page: setupId, slug: 'installation' }]);
      const answer = (await lookup(`${s.origin}${s.address}/setup/advanced`)) as PublishedContentRedirect;
      expect(answer).toEqual({ object: 'published-content-redirect', reason: 'moved-page', target: 'content', redirect: `${s.origin}${s.address}/installation/advanced` });
      const response = await get(`${s.address}/setup`);
      expect(response.status).toBe(308);
      expect(locationOf(response)).toBe(`${s.address}/installation`);
      // Under the address that names the site space, it stays under that address.
      expect(locationOf(await get(`${s.address}/${s.siteSpace.path}/setup`))).toBe(`${s.address}/${s.siteSpace.path}/installation`);
      expect((await get(`${s.address}/installation/advanced`)).status).toBe(200);
      // A new page takes the old path: it is that page now, not a redirect.
      await content.editMain(s.org, s.space.id, [{ operation: 'insert_page', title: 'Setup again', slug: 'setup', document: { markdown: 'New.' } }]);
      expect((await get(`${s.address}/setup`)).status).toBe(200);
      expect((await get(`${s.address}/never-was`)).status).toBe(404);
    });
  });
});
