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
  const lookup = (url: string, visitorAuthToken?: string, redirectOnError?: boolean) =>
    server.client().GET('/urls/published', { params: { query: { url, ...(visitorAuthToken !== undefined ? { visitorAuthToken } : {}), ...(redirectOnError !== undefined ? { redirectOnError } : {}) } } });

  const authPath = '/orgs/{organizationId}/sites/{siteId}/publishing/auth' as const;
  const regeneratePath = '/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate' as const;

  describe('updateSitePublishingAuthById', () => {
    it('sets the fallback address and keeps the key; null removes the address; the key is stored sealed', async () => {
      const w = await world();
      const first = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
      expect(first).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: expect.any(String), fallbackURL: 'https://auth.example.test/start' });
      expect(Buffer.from(first.privateKey, 'base64url').length).toBe(32);
      const kept = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/other' } }));
      expect(kept).toMatchObject({ fallbackURL: 'https://auth.example.test/other', privateKey: first.privateKey });
      expect(await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom' } }))).toEqual(kept);
      expect(await storedText(server, ['site_visitor_auth'])).not.toContain(first.privateKey);
      const removed = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: null } }));
      expect(removed).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: first.privateKey });
      // Without a fallback address a visitor without a JWT has nowhere to go: 401, as before any was set.
      expectError(await lookup(w.address), 401);
    });

    it('refuses addresses that are not absolute http(s), the integration backend, members below admin and outsiders, and changes nothing', async () => {
      const w = await world();
      const stored = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
      for (const fallbackURL of ['ftp://auth.example.test', 'not a url', '/relative', 'javascript:alert(1)']) {
        expectError(await w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL } }), 400);
      }
      expectError(await w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'integration' } }), 400);
      expectError(await w.editor.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://a.example.test' } }), 403);
      expectError(await w.other.client.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://a.example.test' } }), 404);
      expectError(await w.admin.PATCH(authPath, { ...sitePath(w.organizationId, 'missing'), body: { backend: 'custom', fallbackURL: 'https://a.example.test' } }), 404);
      expect(await unwrap(w.admin.GET(authPath, sitePath(w.organizationId, w.site.id)))).toEqual(stored);
    });
  });

  describe('getSitePublishingAuthById', () => {
    it('answers the settings to admins, every site with a key made by the first read; 403 to other members, 404 to outsiders', async () => {
      const w = await world();
      const made = await unwrap(w.admin.GET(authPath, sitePath(w.organizationId, w.site.id)));
      expect(made).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: expect.any(String) });
      // Parallel first reads make one key.
      const again = await Promise.all([1, 2, 3].map(() => unwrap(w.admin.GET(authPath, sitePath(w.organizationId, w.site.id)))));
      expect(new Set(again.map((answer) => answer.privateKey))).toEqual(new Set([made.privateKey]));
      const stored = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
      expect(await unwrap(w.admin.GET(authPath, sitePath(w.organizationId, w.site.id)))).toEqual(stored);
      expectError(await w.editor.GET(authPath, sitePath(w.organizationId, w.site.id)), 403);
      expectError(await w.other.client.GET(authPath, sitePath(w.organizationId, w.site.id)), 404);
      expectError(await w.admin.GET(authPath, sitePath(w.organizationId, 'missing')), 404);
    });
  });

  describe('regenerateSitePublishingAuthById', () => {
    it('makes a new key: JWTs of the old one are refused and visitor tokens issued under it closed', async () => {
      const w = await world();
      const { privateKey: signingKey } = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
      const answer = (await unwrap(lookup(w.address, await sign(signingKey, { plan: 'free' })))) as PublishedContentLookup;
      await unwrap(server.client(answer.apiToken).GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaces[0]!.id } } }));
      expectError(await w.editor.POST(regeneratePath, sitePath(w.organizationId, w.site.id)), 403);
      expectError(await w.other.client.POST(regeneratePath, sitePath(w.organizationId, w.site.id)), 404);
      const regenerated = await unwrap(w.admin.POST(regeneratePath, sitePath(w.organizationId, w.site.id)));
      expect(regenerated).toMatchObject({ object: 'publishing-auth', backend: 'custom', fallbackURL: 'https://auth.example.test/start' });
      expect(regenerated.privateKey).not.toBe(signingKey);
      expectError(await server.client(answer.apiToken).GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaces[0]!.id } } }), 401);
      // A JWT of the old key no longer verifies: 401 (the reader, which asks with redirectOnError, sends the
      // visitor to the backend instead).
      expectError(await lookup(w.address, await sign(signingKey, {})), 401);
      expect((await unwrap(lookup(w.address, await sign(regenerated.privateKey, {})))).object).toBe('published-content-lookup');
    });
  });

  describe('getPublishedContentByUrl on visitor-auth sites', () => {
    it('opens with a JWT signed with the site key, whose claims decide the site spaces the visitor sees', async () => {
      const w = await world();
      const { privateKey: signingKey } = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
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
      const { privateKey: signingKey } = await unwrap(w.admin.PATCH(authPath, { ...sitePath(w.organizationId, w.site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
      const now = Math.floor(Date.now() / 1000);
      const unsignedJwt = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ plan: 'pro', exp: now + 600 })).toString('base64url')}.`;
      const noExp = await new SignJWT({ plan: 'pro' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(signingKey));
      for (const jwt of [undefined, await sign(signingKey, {}, now - 60), await sign('another key of enough length for HS256', {}), unsignedJwt, noExp, 'garbage']) {
        const answer = (await unwrap(lookup(w.address, jwt, true))) as PublishedContentRedirect;
        expect(answer.object).toBe('published-content-redirect');
        expect(new URL(answer.redirect).searchParams.get('location')).toBe(w.address);
        // Without redirectOnError (the public API's default), a JWT that does not verify is a 401; none is a redirect.
        if (jwt === undefined) expect((await unwrap(lookup(w.address))).object).toBe('published-content-redirect');
        else expectError(await lookup(w.address, jwt), 401);
      }
      // Within the 30 s clock tolerance a just-expired JWT still opens the site.
      expect((await unwrap(lookup(w.address, await sign(signingKey, {}, now - 5)))).object).toBe('published-content-lookup');

      const opened = (await unwrap(lookup(w.address, await sign(signingKey, {})))) as PublishedContentLookup;
      await unwrap(server.client(opened.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: w.spaces[0]!.id } } }));
      await unwrap(w.admin.POST(regeneratePath, sitePath(w.organizationId, w.site.id)));
      expectError(await server.client(opened.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: w.spaces[0]!.id } } }), 401);
      expect((await unwrap(lookup(w.address, await sign(signingKey, {}), true))).object).toBe('published-content-redirect');
    });
  });
});
