import { unwrap, type QuireClient } from '@quire/client';
import type { PublishedContentLookup, PublishedContentRedirect } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { issueVisitorToken } from '../src/services/visitor-token-service.js';
import { contentFixtures, md, textFile } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, useTestServer, type TestOrg } from './helpers.js';

describeEachDialect('published content for readers', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);
  const anonymous = () => server.client();

  const sitePath = (organizationId: string, siteId: string) => ({ path: { organizationId, siteId } });
  const lookup = (query: { url: string; shareKey?: string; visitorAuthToken?: string; redirectOnError?: boolean }, client: QuireClient = anonymous()) =>
    client.GET('/urls/published', { params: { query } });
  async function resolved(query: { url: string; shareKey?: string; visitorAuthToken?: string }): Promise<PublishedContentLookup> {
    const answer = await unwrap(lookup(query));
    expect(answer.object).toBe('published-content-lookup');
    return answer as PublishedContentLookup;
  }

  /** A published site of `org` over new spaces (one page and one file each), with its admin's client. */
  async function publishedSite(org: TestOrg, body: { visibility?: 'public' | 'unlisted' | 'share-link' | 'visitor-auth'; titles?: string[]; basename?: string } = {}) {
    const spaces = [];
    for (const title of body.titles ?? ['Guides', 'Reference']) {
      const space = await createSpace(org, { title });
      await f.editMain(org, space.id, [
        { operation: 'insert_page', title: 'Welcome', document: md(`# Welcome to ${title}\n\nThe quick brown fox.`) },
        { operation: 'insert_page', title: 'Install', document: md('Run the installer.') },
        textFile('logo.txt', 'logo'),
      ]);
      spaces.push(space);
    }
    const site = await unwrap(org.client.POST('/orgs/{organizationId}/sites', {
      params: { path: { organizationId: org.organizationId } },
      body: { title: 'Docs', visibility: body.visibility ?? 'public', spaces: spaces.map((space) => space.id) },
    }));
    if (body.basename) await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(org.organizationId, site.id), body: { basename: body.basename } }));
    const published = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath(org.organizationId, site.id) }));
    const siteSpaces = (await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: sitePath(org.organizationId, site.id) }))).items;
    return { site: published, spaces, siteSpaces, address: published.urls.published! };
  }

  describe('getPublishedContentByUrl', () => {
    it('resolves the addresses of a public site without a token: defaults, named site spaces, page paths', async () => {
      const org = await newOrg(server);
      const { site, spaces, siteSpaces, address } = await publishedSite(org, { basename: 'handbook' });
      // QUIRE_PUBLIC_URL of the test server, the base of every published address.
      const publicUrl = site.urls.location.split('/v1/')[0]!;
      expect(address).toBe(`${publicUrl}/sites/handbook`);

      const root = await resolved({ url: address });
      expect(root).toMatchObject({
        organization: org.organizationId, site: site.id, siteSpace: siteSpaces[0]!.id, space: spaces[0]!.id, visibility: 'public',
        siteBasePath: '/sites/handbook', basePath: '/sites/handbook', pathname: '', complete: false, canonicalUrl: address,
      });
      expect(root.siteSection).toBeUndefined();
      const space = await unwrap(org.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: spaces[0]!.id } } }));
      expect(root.revision).toBe(space.revision);
      expect(Date.parse(root.apiTokenExpiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);

      // Every site-space address the API answers resolves to its site space (the presenter's rule, read back).
      for (const siteSpace of siteSpaces) {
        const answer = await resolved({ url: `${siteSpace.urls.published}/install` });
        expect(answer).toMatchObject({ siteSpace: siteSpace.id, space: siteSpace.space.id, basePath: `/sites/handbook/${siteSpace.path}`, pathname: 'install', complete: true });
      }
      // A path that names no site space is a page path of the default one.
      expect(await resolved({ url: `${address}/welcome/deeper?x=1#top` })).toMatchObject({ siteSpace: siteSpaces[0]!.id, basePath: '/sites/handbook', pathname: 'welcome/deeper', canonicalUrl: `${address}/welcome/deeper` });
      // The id is not the address of a site that has a basename.
      expectError(await lookup({ url: `${publicUrl}/sites/${site.id}` }), 404);
    });

    it('answers 400 for a malformed url and the same 404 for every address without published content', async () => {
      const org = await newOrg(server);
      const { site, address } = await publishedSite(org, { titles: ['Only'] });
      for (const url of ['not a url', 'ftp://example.com/sites/x', '/sites/relative', `${address}/%E0%A4%A`]) expectError(await lookup({ url }), 400);
      const publicUrl = site.urls.location.split('/v1/')[0]!;
      for (const url of [`${publicUrl}/sites/nothing-here`, `${publicUrl}/elsewhere`, `${publicUrl}/sites`, `${server.url}/sites/${site.id}`, 'https://unknown.example.test/docs']) expectError(await lookup({ url }), 404);
      await resolved({ url: address });
      await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: sitePath(org.organizationId, site.id) }));
      expectError(await lookup({ url: address }), 404, 'No published content is at this address');
    });

    it('resolves sections and their site spaces, with the default section when the path names none', async () => {
      const org = await newOrg(server);
      const { site } = await publishedSite(org, { titles: ['Guides', 'Reference'] });
      const product = await createSpace(org, { title: 'Changelog' });
      await f.editMain(org, product.id, [{ operation: 'insert_page', title: 'Start', document: md('Changelog start') }]);
      const extra = await createSpace(org, { title: 'SDK' });
      await f.editMain(org, extra.id, [{ operation: 'insert_page', title: 'Start', document: md('SDK start') }]);
      // A section holds a space the site does not publish yet; the first one takes in the site spaces at the root too.
      await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(org.organizationId, site.id), body: { spaceId: product.id, title: 'Product' } }));
      const second = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(org.organizationId, site.id), body: { spaceId: extra.id, title: 'Developers' } }));
      const sections = (await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(org.organizationId, site.id) }))).items;
      expect(sections.length).toBe(2);
      for (const section of sections) {
        for (const siteSpace of section.siteSpaces) {
          const answer = await resolved({ url: `${siteSpace.urls.published}/a/page` });
          expect(answer).toMatchObject({ siteSection: section.id, siteSpace: siteSpace.id, pathname: 'a/page', complete: true });
        }
        const bySection = await resolved({ url: section.urls.published! });
        expect(bySection).toMatchObject({ siteSection: section.id, basePath: new URL(section.urls.published!).pathname, pathname: '', complete: false });
        expect(bySection.siteSpace).toBe(section.siteSpaces.find((item) => item.default)!.id);
      }
      const atRoot = await resolved({ url: `${site.urls.published!}/install` });
      const defaultSection = sections.find((section) => section.default)!;
      expect(atRoot).toMatchObject({ siteSection: defaultSection.id, pathname: 'install', complete: false });
      expect(second.id).toBeTruthy();
    });

    it('resolves a site with a hostname by the host of the address', async () => {
      const org = await newOrg(server);
      const { site, siteSpaces } = await publishedSite(org, { titles: ['Guides', 'Reference'] });
      const hostname = `docs-${site.id.toLowerCase()}.example.test`;
      const updated = await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(org.organizationId, site.id), body: { hostname } }));
      expect(updated.urls.published).toBe(`http://${hostname}`);
      const answer = await resolved({ url: `http://${hostname}/${siteSpaces[1]!.path}/install` });
      expect(answer).toMatchObject({ site: site.id, siteSpace: siteSpaces[1]!.id, siteBasePath: '', basePath: `/${siteSpaces[1]!.path}`, pathname: 'install' });
      expect(await resolved({ url: `http://${hostname}` })).toMatchObject({ siteSpace: siteSpaces[0]!.id, siteBasePath: '', basePath: '', pathname: '' });
      // A site with a hostname is no longer at /sites/{id}.
      expectError(await lookup({ url: site.urls.published! }), 404);
    });

    it('answers the site of a hostname before any /sites/ address: 400 for a path there that does not decode, 404 once unpublished', async () => {
      const org = await newOrg(server);
      const { site } = await publishedSite(org, { titles: ['Guides'] });
      const hostname = `docs-${site.id.toLowerCase()}.example.test`;
      await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(org.organizationId, site.id), body: { hostname } }));
      // The same read answers hostnames and /sites/ segments: a segment naming this site (by id) at its own host
      // is a page path of the site, not the site again.
      expect(await resolved({ url: `http://${hostname}/sites/${site.id}` })).toMatchObject({ site: site.id, siteBasePath: '', pathname: `sites/${site.id}` });
      expectError(await lookup({ url: `http://${hostname}/%E0%A4%A` }), 400);
      await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: sitePath(org.organizationId, site.id) }));
      expectError(await lookup({ url: `http://${hostname}/install` }), 404);
      expectError(await lookup({ url: `http://${hostname}/%E0%A4%A` }), 404);
    });

    it('opens a share-link site only with the key of an active link, and closes issued tokens when the link is deactivated or deleted', async () => {
      const org = await newOrg(server);
      const { site, spaces, address } = await publishedSite(org, { visibility: 'share-link', titles: ['Private'] });
      const link = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: sitePath(org.organizationId, site.id), body: { name: 'Partners' } }));
      const key = new URL(link.urls.published!).searchParams.get('shareKey')!;
      expectError(await lookup({ url: address }), 404, 'No published content is at this address');
      expectError(await lookup({ url: address, shareKey: 'made-up' }), 404, 'No published content is at this address');
      const byParameter = await resolved({ url: address, shareKey: key });
      const inUrl = await resolved({ url: link.urls.published! });
      expect(inUrl.canonicalUrl).toBe(address);
      expect(inUrl.canonicalUrl).not.toContain(key);
      const visitor = server.client(byParameter.apiToken);
      await unwrap(visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: spaces[0]!.id } } }));

      const linkPath = { path: { organizationId: org.organizationId, siteId: site.id, shareLinkId: link.id } };
      await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: linkPath, body: { active: false } }));
      expectError(await visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: spaces[0]!.id } } }), 401);
      expectError(await lookup({ url: address, shareKey: key }), 404);
      await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: linkPath, body: { active: true } }));
      await unwrap(visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: spaces[0]!.id } } }));
      await org.client.DELETE('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: linkPath });
      expectError(await visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: spaces[0]!.id } } }), 401);
      expectError(await lookup({ url: inUrl.canonicalUrl, shareKey: key }), 404);
      void inUrl;
    });

    it('hides site spaces whose condition fails for the unsigned claims of the address', async () => {
      const org = await newOrg(server);
      const { site, spaces, siteSpaces, address } = await publishedSite(org, { titles: ['Guides', 'Beta'] });
      const beta = siteSpaces[1]!;
      await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', {
        params: { path: { organizationId: org.organizationId, siteId: site.id, siteSpaceId: beta.id } },
        body: { condition: 'visitor.claims.unsigned.beta == true && visitor.claims.unsigned.plan == "pro"' },
      }));
      expectError(await lookup({ url: `${address}/${beta.path}` }), 404);
      expectError(await lookup({ url: `${address}/${beta.path}?visitor.beta=true&visitor.plan=free` }), 404);
      const outsider = await resolved({ url: address });
      const insider = await resolved({ url: `${address}/${beta.path}/install?visitor.beta=true&visitor.plan=pro` });
      expect(insider).toMatchObject({ siteSpace: beta.id, pathname: 'install', canonicalUrl: `${address}/${beta.path}/install` });

      const read = (token: string) => server.client(token).GET('/orgs/{organizationId}/sites/{siteId}/published', { params: sitePath(org.organizationId, site.id) });
      const seenBy = async (token: string) => (await unwrap(read(token))).structure;
      const outsiderStructure = await seenBy(outsider.apiToken);
      expect(outsiderStructure.type).toBe('siteSpaces');
      expect((outsiderStructure as { structure: Array<{ id: string }> }).structure.map((item) => item.id)).toEqual([siteSpaces[0]!.id]);
      expect((await seenBy(insider.apiToken) as { structure: Array<{ id: string }> }).structure.map((item) => item.id)).toEqual([siteSpaces[0]!.id, beta.id]);
      expectError(await server.client(outsider.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: spaces[1]!.id } } }), 404);
      await unwrap(server.client(insider.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: spaces[1]!.id } } }));
    });

    it('gives a visitor token the reads of the site\'s published content, file downloads included, and nothing else', async () => {
      const org = await newOrg(server);
      const { site, spaces, address } = await publishedSite(org, { titles: ['Guides'] });
      const elsewhere = await createSpace(org, { title: 'Internal' });
      const other = await newOrg(server, 'Other org');
      const foreign = await publishedSite(other, { titles: ['Foreign'] });
      await f.runJobs();
      const { apiToken } = await resolved({ url: address });
      const visitor = server.client(apiToken);
      const spaceId = spaces[0]!.id;
      const spacePath = { path: { spaceId } };

      const space = await unwrap(visitor.GET('/spaces/{spaceId}', { params: spacePath }));
      expect(space.permissions).toMatchObject({ view: true, edit: false, admin: false });
      const revision = await unwrap(visitor.GET('/spaces/{spaceId}/content', { params: spacePath }));
      const pages = (await unwrap(visitor.GET('/spaces/{spaceId}/content/pages', { params: spacePath }))).pages;
      const welcome = pages.find((page) => page.title === 'Welcome')!;
      const page = await unwrap(visitor.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId: welcome.id } } }));
      expect((page as { markdown?: string }).markdown).toContain('quick brown fox');
      const files = await unwrap(visitor.GET('/spaces/{spaceId}/content/files', { params: spacePath }));
      const file = await unwrap(visitor.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId, fileId: files.items[0]!.id } } }));
      const download = await fetch(file.downloadURL.replace(/^https?:\/\/[^/]+/, server.url));
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('logo');
      const search = await unwrap(visitor.GET('/spaces/{spaceId}/search', { params: { path: { spaceId }, query: { query: 'fox' } } }));
      expect(search.items.length).toBeGreaterThan(0);
      expect(revision.id).toBe(space.revision);
      await unwrap(visitor.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: sitePath(org.organizationId, site.id) }));

      // Outside its site: 404, as for anything missing.
      expectError(await visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: elsewhere.id } } }), 404);
      expectError(await visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: foreign.spaces[0]!.id } } }), 404);
      expectError(await visitor.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: sitePath(other.organizationId, foreign.site.id) }), 404);
      expectError(await visitor.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: sitePath(other.organizationId, site.id) }), 404);
      // Any other operation: 403, and nothing changes.
      expectError(await visitor.GET('/user'), 403);
      expectError(await visitor.GET('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(org.organizationId, site.id) }), 403);
      expectError(await visitor.PATCH('/spaces/{spaceId}', { params: spacePath, body: { title: 'Taken over' } }), 403);
      expectError(await visitor.POST('/spaces/{spaceId}/change-requests', { params: spacePath, body: { subject: 'x' } }), 403);
      expectError(await visitor.GET('/spaces/{spaceId}/change-requests', { params: spacePath }), 403);
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', { params: spacePath }))).title).toBe('Guides');
    });

    it('closes issued tokens at once when the site is unpublished or its visibility changes; refuses forged and expired tokens (401)', async () => {
      const org = await newOrg(server);
      const { site, spaces, address } = await publishedSite(org, { titles: ['Guides'] });
      const spacePath = { params: { path: { spaceId: spaces[0]!.id } } };
      const first = await resolved({ url: address });
      await unwrap(server.client(first.apiToken).GET('/spaces/{spaceId}', spacePath));

      const [head, payload, signature] = [first.apiToken.slice(0, 4), first.apiToken.slice(4, first.apiToken.lastIndexOf('.')), first.apiToken.slice(first.apiToken.lastIndexOf('.') + 1)];
      const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), ss: [] })).toString('base64url');
      for (const forged of [`${head}${widened}.${signature}`, `${head}${payload}.${signature.slice(0, -2)}AA`, 'qv1.', 'qv1.x.y']) {
        expectError(await server.client(forged).GET('/spaces/{spaceId}', spacePath), 401);
      }
      // An expired token cannot be had from the API: signed here as the service would have 16 minutes ago.
      const expired = await issueVisitorToken(server.running.services, {
        organizationId: org.organizationId, siteId: site.id, visibility: 'public', siteSpaceIds: [first.siteSpace], sectionIds: [],
      }, Math.floor(Date.now() / 1000) - 16 * 60);
      expectError(await server.client(expired.token).GET('/spaces/{spaceId}', spacePath), 401);

      await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(org.organizationId, site.id), body: { visibility: 'unlisted' } }));
      expectError(await server.client(first.apiToken).GET('/spaces/{spaceId}', spacePath), 401);
      const second = await resolved({ url: address });
      expect(second.visibility).toBe('unlisted');
      await unwrap(server.client(second.apiToken).GET('/spaces/{spaceId}', spacePath));
      await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: sitePath(org.organizationId, site.id) }));
      expectError(await server.client(second.apiToken).GET('/spaces/{spaceId}', spacePath), 401);
      expectError(await lookup({ url: address }), 404);
    });

    it('answers a visitor-auth site with a redirect to its backend, without the secrets of the address', async () => {
      const org = await newOrg(server);
      const { site, address } = await publishedSite(org, { visibility: 'visitor-auth', titles: ['Members'] });
      expectError(await lookup({ url: address }), 401);
      await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { params: sitePath(org.organizationId, site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/login?app=docs' } }));
      const answer = (await unwrap(lookup({ url: `${address}/install?shareKey=abc&jwt_token=not-valid&visitor.plan=pro`, redirectOnError: true }))) as PublishedContentRedirect;
      expect(answer).toMatchObject({ object: 'published-content-redirect', reason: 'visitor-auth', target: 'external' });
      const redirect = new URL(answer.redirect);
      expect(redirect.origin + redirect.pathname).toBe('https://auth.example.test/login');
      expect(redirect.searchParams.get('app')).toBe('docs');
      expect(redirect.searchParams.get('location')).toBe(`${address}/install?visitor.plan=pro`);
    });
  });
});
