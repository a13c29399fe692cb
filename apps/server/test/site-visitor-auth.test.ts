import { unwrap } from '@quire/client';
import type { PublishedContentLookup, PublishedContentRedirect } from '@quire/api-types';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, organizationWithPeople, useTestServer } from './helpers.js';
import { storedText } from './storage-facts.js';

describeEachDialect('visitor authentication of docs sites', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);
  const sitePath = (organizationId: string, siteId: string) => ({ params: { path: { organizationId, siteId } } });

  /** An organization with an admin and an editor, and a published visitor-auth site of two spaces, the second for pro plans. */
  async function world() {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Visitor auth org', { editor: 'edit' });
    const org = { organizationId, client: admin.client };
    const spaces = [];
    for (const title of ['Guides', 'Pro']) {
      const space = await createSpace(org, { title });
      await f.editMain({ ...org, userId: admin.userId, token: admin.token }, space.id, [{ operation: 'insert_page', title: 'Start', document: md(`${title} start`) }]);
      spaces.push(space);
    }
    const site = await unwrap(admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Members', visibility: 'visitor-auth', spaces: spaces.map((space) => space.id) } }));
    const published = await unwrap(admin.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', sitePath(organizationId, site.id)));
    const siteSpaces = (await unwrap(admin.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', sitePath(organizationId, site.id)))).items;
    await unwrap(admin.client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', {
      params: { path: { organizationId, siteId: site.id, siteSpaceId: siteSpaces[1]!.id } }, body: { condition: 'visitor.claims.plan == "pro"' },
    }));
    const other = await newOrg(server, 'Other org');
    return { organizationId, admin: admin.client, editor: people.editor!.client, site, address: published.urls.published!, spaces, siteSpaces, other };
  }

  const sign = (key: string, claims: Record<string, unknown>, expiresIn: string | number = '10m') =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(key));
  const lookup = (url: string, visitorAuthToken?: string) =>
    server.client().GET('/urls/published', { params: { query: { url, ...(visitorAuthToken !== undefined ? { visitorAuthToken } : {}) } } });

  describe('updateSiteVisitorAuth', () => {
    it('sets the backend and makes a 256-bit key on the first call, keeps it after, makes a new one with rotateKey; the key is stored sealed', async () => {
      const w = await world();
      const first = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/start' } }));
      expect(first).toMatchObject({ object: 'site-visitor-auth', backendUrl: 'https://auth.example.test/start', algorithm: 'HS256' });
      expect(Buffer.from(first.signingKey, 'base64url').length).toBe(32);
      const kept = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/other' } }));
      expect(kept).toMatchObject({ backendUrl: 'https://auth.example.test/other', signingKey: first.signingKey });
      const rotated = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/other', rotateKey: true } }));
      expect(rotated.signingKey).not.toBe(first.signingKey);
      // Subject of this check is storage itself: the key is kept only sealed.
      expect(await storedText(server, ['site_visitor_auth'])).not.toContain(rotated.signingKey);
    });

    it('refuses a backend that is not an absolute http(s) URL (400), members below admin (403), other organizations and missing sites (404)', async () => {
      const w = await world();
      for (const backendUrl of ['ftp://auth.example.test', 'not a url', '/relative', 'javascript:alert(1)']) {
        expectError(await w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl } }), 400);
      }
      expectError(await w.editor.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://a.example.test' } }), 403);
      expectError(await w.other.client.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://a.example.test' } }), 404);
      expectError(await w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, 'missing'), body: { backendUrl: 'https://a.example.test' } }), 404);
      expectError(await w.admin.GET('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id)), 404);
    });
  });

  describe('getSiteVisitorAuth', () => {
    it('answers the backend and key to organization admins only', async () => {
      const w = await world();
      const stored = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/start' } }));
      expect(await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id)))).toEqual(stored);
      expectError(await w.editor.GET('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id)), 403);
      expectError(await w.other.client.GET('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id)), 404);
    });
  });

  describe('deleteSiteVisitorAuth', () => {
    it('forgets the backend and key (204, also when absent), which closes the site and its visitor tokens at once', async () => {
      const w = await world();
      const { signingKey } = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/start' } }));
      const answer = (await unwrap(lookup(w.address, await sign(signingKey, { plan: 'free' })))) as PublishedContentLookup;
      const visitor = server.client(answer.apiToken);
      await unwrap(visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaces[0]!.id } } }));
      expectError(await w.editor.DELETE('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id)), 403);
      expect((await w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id))).response.status).toBe(204);
      expect((await w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id))).response.status).toBe(204);
      expectError(await visitor.GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaces[0]!.id } } }), 401);
      expectError(await lookup(w.address, await sign(signingKey, { plan: 'free' })), 401);
      expectError(await w.admin.GET('/orgs/{organizationId}/sites/{siteId}/visitor-auth', sitePath(w.organizationId, w.site.id)), 404);
    });
  });

  describe('getPublishedContentByUrl on visitor-auth sites', () => {
    it('opens with a JWT signed with the site key, whose claims decide the site spaces the visitor sees', async () => {
      const w = await world();
      const { signingKey } = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/start' } }));
      const pro = w.siteSpaces[1]!;
      const free = (await unwrap(lookup(w.address, await sign(signingKey, { plan: 'free' })))) as PublishedContentLookup;
      expect(free).toMatchObject({ object: 'published-content-lookup', visibility: 'visitor-auth', siteSpace: w.siteSpaces[0]!.id });
      // A site space hidden from the visitor is not there for them: 404 by its path.
      expectError(await lookup(`${w.address}/${pro.path}`, await sign(signingKey, { plan: 'free' })), 404);
      // The JWT also rides in the address (`?jwt_token=`), as the backend sends the visitor back.
      const proJwt = await sign(signingKey, { plan: 'pro' });
      const proAnswer = (await unwrap(lookup(`${w.address}/${pro.path}/start?jwt_token=${proJwt}`))) as PublishedContentLookup;
      expect(proAnswer).toMatchObject({ siteSpace: pro.id, pathname: 'start', canonicalUrl: `${w.address}/${pro.path}/start` });
      expectError(await server.client(free.apiToken).GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaces[1]!.id } } }), 404);
      await unwrap(server.client(proAnswer.apiToken).GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaces[1]!.id } } }));
      // Unsigned claims cannot stand in for signed ones.
      const unsigned = (await unwrap(lookup(`${w.address}?visitor.plan=pro`, await sign(signingKey, {})))) as PublishedContentLookup;
      expectError(await server.client(unsigned.apiToken).GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaces[1]!.id } } }), 404);
    });

    it('redirects to the backend without a valid JWT (missing, expired past the tolerance, another key, alg none), and rotating the key closes tokens', async () => {
      const w = await world();
      const { signingKey } = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/start' } }));
      const now = Math.floor(Date.now() / 1000);
      const unsignedJwt = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ plan: 'pro', exp: now + 600 })).toString('base64url')}.`;
      const noExp = await new SignJWT({ plan: 'pro' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(signingKey));
      for (const jwt of [undefined, await sign(signingKey, {}, now - 60), await sign('another key of enough length for HS256', {}), unsignedJwt, noExp, 'garbage']) {
        const answer = (await unwrap(lookup(w.address, jwt))) as PublishedContentRedirect;
        expect(answer.object).toBe('published-content-redirect');
        expect(new URL(answer.redirect).searchParams.get('location')).toBe(w.address);
      }
      // Within the 30 s clock tolerance a just-expired JWT still opens the site.
      expect((await unwrap(lookup(w.address, await sign(signingKey, {}, now - 5)))).object).toBe('published-content-lookup');

      const opened = (await unwrap(lookup(w.address, await sign(signingKey, {})))) as PublishedContentLookup;
      await unwrap(server.client(opened.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: w.spaces[0]!.id } } }));
      await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/visitor-auth', { ...sitePath(w.organizationId, w.site.id), body: { backendUrl: 'https://auth.example.test/start', rotateKey: true } }));
      expectError(await server.client(opened.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: w.spaces[0]!.id } } }), 401);
      expect((await unwrap(lookup(w.address, await sign(signingKey, {})))).object).toBe('published-content-redirect');
    });
  });
});
