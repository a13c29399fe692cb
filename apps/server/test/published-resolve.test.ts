import { unwrap } from '@quire/client';
import type { PublishedContentLookup, PublishedContentRedirect } from '@quire/api-types';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, useTestServer } from './helpers.js';

/*
 * resolvePublishedContentByUrl, the POST form of getPublishedContentByUrl: the same lookup, with the visitor's
 * JWT and unsigned claims in the body.
 */

describeEachDialect('published content resolved by POST', (dialect) => {
  const server = useTestServer({ dialect });

  async function site(visibility: 'public' | 'visitor-auth') {
    const org = await newOrg(server, 'Resolve org');
    const guides = await createSpace(org, { title: 'Guides' });
    const beta = await createSpace(org, { title: 'Beta' });
    const params = { path: { organizationId: org.organizationId } };
    const created = await unwrap(org.client.POST('/orgs/{organizationId}/sites', { params, body: { title: 'Docs', visibility, spaces: [guides.id, beta.id] } as never }));
    const sitePath = { path: { organizationId: org.organizationId, siteId: created.id } };
    const siteSpaces = (await unwrap(org.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: sitePath }))).items;
    await unwrap(org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', {
      params: { path: { ...sitePath.path, siteSpaceId: siteSpaces[1]!.id } }, body: { condition: 'visitor.claims.unsigned.beta == true' },
    }));
    const published = await unwrap(org.client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath }));
    return { org, sitePath, betaSpace: siteSpaces[1]!, address: published.urls.published! };
  }

  const resolve = (body: Record<string, unknown>) => server.client().POST('/urls/published', { body: body as never });

  describe('resolvePublishedContentByUrl', () => {
    it('answers what the GET answers, with unsigned claims from the body beside those of the address', async () => {
      const s = await site('public');
      const get = (await unwrap(server.client().GET('/urls/published', { params: { query: { url: s.address } } }))) as PublishedContentLookup;
      const post = (await unwrap(resolve({ url: s.address }))) as PublishedContentLookup;
      expect({ ...post, apiToken: '', apiTokenExpiresAt: '' }).toEqual({ ...get, apiToken: '', apiTokenExpiresAt: '' });
      expectError(await resolve({ url: `${s.address}/${s.betaSpace.path}` }), 404);
      const beta = (await unwrap(resolve({ url: `${s.address}/${s.betaSpace.path}`, visitor: { unsignedClaims: { beta: true } } }))) as PublishedContentLookup;
      expect(beta.siteSpace).toBe(s.betaSpace.id);
      // The body's claims win over the address's, and names that reach a prototype are ignored.
      expectError(await resolve({ url: `${s.address}/${s.betaSpace.path}?visitor.beta=true`, visitor: { unsignedClaims: { beta: false } } }), 404);
      expectError(await resolve({ url: `${s.address}/${s.betaSpace.path}`, visitor: { unsignedClaims: JSON.parse('{"__proto__": {"beta": true}}') } }), 404);
      expectError(await resolve({}), 400);
      expectError(await resolve({ url: 'not a url' }), 400);
      expectError(await resolve({ url: s.address, visitor: { jwt: 'x' } }), 400);
    });

    it('reads the JWT from the body, and redirectOnError decides between 401 and the backend for one that does not verify', async () => {
      const s = await site('visitor-auth');
      const { privateKey: signingKey } = await unwrap(s.org.client.PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { params: s.sitePath, body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
      const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode(signingKey));
      expect((await unwrap(resolve({ url: s.address, visitor: { jwtToken: jwt } }))).object).toBe('published-content-lookup');
      expect((await unwrap(resolve({ url: s.address }))).object).toBe('published-content-redirect');
      expectError(await resolve({ url: s.address, visitor: { jwtToken: 'garbage' } }), 401);
      const redirect = (await unwrap(resolve({ url: s.address, redirectOnError: true, visitor: { jwtToken: 'garbage' } }))) as PublishedContentRedirect;
      expect(redirect).toMatchObject({ reason: 'visitor-auth', target: 'external' });
    });
  });
});
