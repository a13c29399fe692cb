import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createCollection, createSpace, expectError, newMember, newOrg, useTestServer } from './helpers.js';

describeEachDialect('content by URL', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);
  const resolve = (client: QuireClient, url: string) => client.GET('/urls/content', { params: { query: { url } } });

  describe('getContentByUrl', () => {
    it('reads back the app addresses Quire answers: a collection, a space, a change request, their pages', async () => {
      const org = await newOrg(server);
      const collection = await createCollection(org, { title: 'Handbooks' });
      const space = await createSpace(org, { title: 'Guides' });
      const edited = await f.editMain(org, space.id, [
        { operation: 'insert_page', title: 'Start', document: md('# Start'), ref: 'start' },
      ]);
      const start = f.pageOf(edited, 'start');
      const cr = await f.createCr(org.client, space.id);
      const inRequest = await f.editCr(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Draft', document: md('Draft.'), ref: 'draft' }]);
      const draft = f.pageOf(inRequest, 'draft');

      expect(await unwrap(resolve(org.client, collection.urls.app))).toEqual({ collection });
      const found = await unwrap(resolve(org.client, `${space.urls.app}?tab=1#top`));
      expect(Object.keys(found)).toEqual(['space']);
      expect('space' in found && found.space.id).toBe(space.id);

      // A page's own urls.app, and the address by id that link lists use.
      const pages = await unwrap(org.client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId: space.id } } }));
      const byPath = await unwrap(resolve(org.client, pages.pages[0]!.urls.app));
      expect('page' in byPath && byPath.page).toMatchObject({ id: start, title: 'Start', path: 'start' });
      const byId = await unwrap(resolve(org.client, `${space.urls.app}/~/pages/${start}`));
      expect('page' in byId && byId.page?.id).toBe(start);

      // The change request, and a page that is only in its content.
      const request = await unwrap(resolve(org.client, cr.urls.app));
      expect('changeRequest' in request && request.changeRequest?.id).toBe(cr.id);
      expect('page' in request).toBe(false);
      const draftPage = await unwrap(resolve(org.client, `${cr.urls.app}/draft`));
      expect('page' in draftPage && [draftPage.changeRequest?.id, draftPage.page?.id]).toEqual([cr.id, draft]);
      expectError(await resolve(org.client, `${space.urls.app}/draft`), 404);

      // A revision's address is within its space.
      const revision = await unwrap(org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: space.id } } }));
      const atRevision = await unwrap(resolve(org.client, revision.urls.app));
      expect(Object.keys(atRevision)).toEqual(['space']);

      // A reader of the organization sees what they may read.
      const reader = await newMember(server, org, 'read');
      expect('space' in (await unwrap(resolve(reader.client, space.urls.app)))).toBe(true);
    });

    it('answers 404 alike for what is missing, elsewhere or hidden, 400 for addresses that are not of this app\'s content, 401 without a token', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org, { title: 'Guides' });
      const other = await newOrg(server, 'Other');
      const theirs = await createSpace(other, { title: 'Theirs' });
      const base = space.urls.app.slice(0, space.urls.app.indexOf('/o/'));

      expectError(await resolve(org.client, theirs.urls.app), 404);
      expectError(await resolve(org.client, `${base}/o/${org.organizationId}/s/${theirs.id}`), 404);
      expectError(await resolve(org.client, `${base}/o/${org.organizationId}/s/missing`), 404);
      expectError(await resolve(org.client, `${base}/o/${org.organizationId}/c/missing`), 404);
      expectError(await resolve(org.client, `${space.urls.app}/no/such/page`), 404);
      expectError(await resolve(org.client, `${space.urls.app}/~/changes/99`), 404);
      expectError(await resolve(org.client, `${space.urls.app}/~/pages/missing`), 404);
      expectError(await resolve((await newMember(server, org, null)).client, space.urls.app), 404);

      expectError(await resolve(org.client, 'https://elsewhere.example.com/o/x/s/y'), 400, /not an address of this Quire's app/);
      expectError(await resolve(org.client, 'not a url'), 400, /not an address of this Quire's app/);
      expectError(await resolve(org.client, `${base}/o/${org.organizationId}`), 400, /names no collection, space/);
      expectError(await resolve(org.client, `${base}/o/${org.organizationId}/sites/abc`), 400, /names no collection, space/);
      expectError(await resolve(org.client, `${space.urls.app}/~/unknown/x`), 400, /names no collection, space/);
      expectError(await resolve(org.client, `${base}/o/${org.organizationId}/s/%E0%A4%A`), 400, /names no collection, space/);
      expectError(await org.client.GET('/urls/content', { params: { query: {} as never } }), 400, /url/);
      expectError(await resolve(server.client(), space.urls.app), 401);
    });
  });
});
