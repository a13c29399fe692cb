import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unwrap, type QuireClient } from '@quire/client';
import { createReaderHandler } from '@quire/reader';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, organizationWithPeople, useTestServer } from './helpers.js';
import { makeIdpCredentials, signedSamlResponse, type IdpCredentials } from './saml-fixtures.js';

/*
 * The reader with the browser session that signing in through SAML opens (`quire_session`, HttpOnly, path /): a
 * member reads their organization's share-link site with it, anyone else does not. Sessions are real: a SAML
 * response signed with a key made here is posted to the ACS, as the identity provider's form does.
 */

const IDP_ENTITY = 'https://idp.example.test/metadata';

describeEachDialect('reader with an SSO session', (dialect) => {
  const server = useTestServer({ dialect });
  const content = contentFixtures(() => server);
  let idp: IdpCredentials;
  beforeAll(async () => {
    idp = await makeIdpCredentials();
  });

  /** An organization with an active SAML provider (new members get `read`), and its admin's client. */
  async function organizationWithProvider(title: string) {
    const org = await organizationWithPeople(server, title);
    const provider = await unwrap(org.admin.client.POST('/orgs/{organizationId}/saml', {
      params: { path: { organizationId: org.organizationId } },
      body: { label: 'Test IdP', entityID: IDP_ENTITY, ssoURL: 'https://idp.example.test/sso', certificate: idp.certificate, defaultRole: 'read' },
    }));
    return { organizationId: org.organizationId, admin: org.admin.client, provider };
  }

  /** Signs `email` in through the provider's ACS and answers the session cookie it sets (`name=value`). */
  async function signIn(provider: { id: string; service: { entityID: string; acsURL: string } }, email: string): Promise<string> {
    const samlResponse = await signedSamlResponse({ signer: idp, issuer: IDP_ENTITY, audience: provider.service.entityID, acsURL: provider.service.acsURL, email });
    const response = await fetch(`${server.url}/auth/saml/${provider.id}/acs`, { method: 'POST', body: new URLSearchParams({ SAMLResponse: samlResponse }), redirect: 'manual' });
    expect(response.status).toBe(200);
    const cookie = /quire_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')?.[0];
    expect(cookie).toBeDefined();
    return cookie!;
  }

  async function publishedSite(org: { organizationId: string; admin: QuireClient }, visibility: 'public' | 'share-link') {
    const space = await createSpace({ organizationId: org.organizationId, client: org.admin }, { title: 'Guides' });
    await content.editMain({ organizationId: org.organizationId, client: org.admin } as never, space.id, [
      { operation: 'insert_page', title: 'Welcome', document: md('The members-only zebracorn handbook.') },
    ]);
    const created = await unwrap(org.admin.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: org.organizationId } }, body: { title: 'Internal Docs', visibility, spaces: [space.id] } }));
    const published = await unwrap(org.admin.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: { path: { organizationId: org.organizationId, siteId: created.id } } }));
    return published.urls.published!;
  }

  const get = (path: string, cookie?: string) => fetch(server.url + path, { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });

  describe('getPublishedContentByUrl through the reader', () => {
    it('opens a share-link site to a member\'s SAML session, not to another organization\'s session or to no session', async () => {
      const org = await organizationWithProvider('Session reader org');
      const other = await organizationWithProvider('Other session org');
      const address = new URL(await publishedSite(org, 'share-link')).pathname;

      expect((await get(address)).status).toBe(404);
      const member = await signIn(org.provider, `reader-${org.organizationId.toLowerCase()}@example.com`);
      const opened = await get(address, `theme=dark; ${member}`);
      const html = await opened.text();
      expect(opened.status).toBe(200);
      expect(html).toContain('zebracorn handbook');
      // Restricted pages stay out of shared caches, and the session never shows in what is served.
      expect(opened.headers.get('cache-control')).toBe('private, no-cache');
      expect(html).not.toContain(member.split('=')[1]!);
      expect(opened.headers.get('set-cookie')).toBeNull();

      // A session started in another organization, by one of its members, opens nothing here.
      const outsider = await signIn(other.provider, `outsider-${other.organizationId.toLowerCase()}@example.com`);
      expect((await get(address, outsider)).status).toBe(404);
      // A stale or forged session is read as none: an open site still shows, a restricted one is still closed.
      const publicAddress = new URL(await publishedSite(org, 'public')).pathname;
      expect((await get(publicAddress, 'quire_session=forged-or-revoked')).status).toBe(200);
      expect((await get(address, 'quire_session=forged-or-revoked')).status).toBe(404);
    });

    it('sends the session to the lookup alone: every other API call carries the visitor token', async () => {
      const org = await organizationWithProvider('Session forwarding org');
      const published = new URL(await publishedSite(org, 'share-link'));
      const session = await signIn(org.provider, `forwarded-${org.organizationId.toLowerCase()}@example.com`);
      // A reader of its own (as `apps/reader` runs beside the API) whose API calls are recorded on their way
      // to the real test server.
      const calls: Array<{ path: string; authorization: string | null; cookie: string | null }> = [];
      const reader = createReaderHandler({
        apiUrl: server.url,
        publicUrl: published.origin,
        fetch: (request) => {
          calls.push({ path: new URL(request.url).pathname, authorization: request.headers.get('authorization'), cookie: request.headers.get('cookie') });
          return fetch(request);
        },
      });
      const host = createServer((req, res) => reader(req, res));
      host.listen(0, '127.0.0.1');
      await once(host, 'listening');
      try {
        const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}${published.pathname}`;
        const response = await fetch(url, { headers: { cookie: session } });
        expect(response.status).toBe(200);
        expect(await response.text()).toContain('zebracorn handbook');
      } finally {
        host.close();
        await reader.close();
      }
      // The session goes to the lookup as the cookie it is (the API takes a browser session only so).
      expect(calls[0]).toEqual({ path: '/v1/urls/published', authorization: null, cookie: session });
      expect(calls.length).toBeGreaterThan(1);
      for (const call of calls.slice(1)) {
        expect(call.path).not.toBe('/v1/urls/published');
        expect(call.authorization).toMatch(/^Bearer qv1\./);
        expect(call.cookie).toBeNull();
      }
    });
  });
});
