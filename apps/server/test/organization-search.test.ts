import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, useTestServer } from './helpers.js';

const PUBLIC_URL = 'https://docs.example.com';

describeEachDialect('organization search', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });
  const f = contentFixtures(() => server);

  const search = (client: QuireClient, organizationId: string, query: Record<string, unknown>) =>
    client.GET('/orgs/{organizationId}/search', { params: { path: { organizationId }, query: query as never } });

  describe('searchOrganizationContent', () => {
    it('answers the spaces with matching pages, best first, each with its pages and sections as a space search has them', async () => {
      const org = await newOrg(server);
      const titled = await createSpace(org, { title: 'Titled' });
      const bodied = await createSpace(org, { title: 'Bodied' });
      const none = await createSpace(org, { title: 'Elsewhere' });
      const inTitle = await f.editMain(org, titled.id, [{ operation: 'insert_page', title: 'Zephyr winds', document: md('About the wind.'), ref: 'page' }]);
      await f.editMain(org, bodied.id, [
        { operation: 'insert_page', title: 'Weather', document: md('## Breezes\n\nA zephyr is a light wind.'), ref: 'one' },
        { operation: 'insert_page', title: 'Other', document: md('Another zephyr here.'), ref: 'two' },
      ]);
      await f.editMain(org, none.id, [{ operation: 'insert_page', title: 'Calm', document: md('No wind at all.') }]);
      await f.runJobs();

      const result = await unwrap(search(org.client, org.organizationId, { query: 'zephyr' }));
      expect(result.count).toBe(2);
      expect(result.next).toBeUndefined();
      expect(result.items.map((item) => [item.id, item.title, item.pages.length])).toEqual([[titled.id, 'Titled', 1], [bodied.id, 'Bodied', 2]]);
      expect(result.items[0]!.pages[0]).toMatchObject({
        id: f.pageOf(inTitle, 'page'),
        title: 'Zephyr winds',
        urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${titled.id}/zephyr-winds` },
      });
      const spaceSearch = await unwrap(org.client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: bodied.id }, query: { query: 'zephyr', limit: 10 } } }));
      expect(result.items[1]!.pages).toEqual(spaceSearch.items);

      // One space per answer page: the cursor continues with the next.
      const first = await unwrap(search(org.client, org.organizationId, { query: 'zephyr', limit: 1 }));
      expect(first.items.map((item) => item.id)).toEqual([titled.id]);
      const second = await unwrap(search(org.client, org.organizationId, { query: 'zephyr', limit: 1, page: first.next!.page }));
      expect(second.items.map((item) => item.id)).toEqual([bodied.id]);
      expect(second.next).toBeUndefined();
      expect((await unwrap(search(org.client, org.organizationId, { query: 'nowhere-to-be-found' }))).items).toEqual([]);
    });

    it('searches only the spaces the caller sees: a guest their shared space, another organization nothing (404), a deleted space never', async () => {
      const org = await newOrg(server);
      const shared = await createSpace(org, { title: 'Shared' });
      const closed = await createSpace(org, { title: 'Closed' });
      const deleted = await createSpace(org, { title: 'Deleted' });
      for (const space of [shared, closed, deleted]) await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Quasar notes', document: md('quasar') }]);
      await f.runJobs();
      await unwrap(org.client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: deleted.id } } }));
      const guest = await newMember(server, org, null);
      await unwrap(org.client.POST('/spaces/{spaceId}/permissions', { params: { path: { spaceId: shared.id } }, body: { role: 'read', users: [guest.userId] } }));

      const ids = async (client: QuireClient) => (await unwrap(search(client, org.organizationId, { query: 'quasar' }))).items.map((item) => item.title).sort();
      expect(await ids(org.client)).toEqual(['Closed', 'Shared']);
      expect(await ids((await newMember(server, org, 'read')).client)).toEqual(['Closed', 'Shared']);
      expect(await ids(guest.client)).toEqual(['Shared']);
      expect((await unwrap(search(guest.client, org.organizationId, { query: 'quasar' }))).count).toBe(1);

      const outsider = await newOrg(server, 'Outsider');
      expectError(await search(outsider.client, org.organizationId, { query: 'quasar' }), 404);
      expectError(await search(org.client, 'no-such-organization', { query: 'quasar' }), 404);
      expectError(await search(server.client(), org.organizationId, { query: 'quasar' }), 401);
    });

    it('refuses bad input with 400 in the error shape', async () => {
      const org = await newOrg(server);
      expectError(await search(org.client, org.organizationId, {}), 400, /query/);
      expectError(await search(org.client, org.organizationId, { query: 'x'.repeat(513) }), 400, /query/);
      expectError(await search(org.client, org.organizationId, { query: 'a', limit: 0 }), 400, /limit/);
      expectError(await search(org.client, org.organizationId, { query: 'a', page: 'not-a-cursor' }), 400, /page/);
    });
  });
});
