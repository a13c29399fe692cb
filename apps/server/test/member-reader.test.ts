import { unwrap, type QuireClient } from '@quire/client';
import type { PublishedContentLookup, PublishedContentRedirect } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * Members reading their organization's restricted published sites: `getPublishedContentByUrl` with the
 * member's own bearer token (an API token here; the reader test below signs in through SAML for a session).
 */

describeEachDialect('published content for members', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);
  const sitePath = (organizationId: string, siteId: string) => ({ path: { organizationId, siteId } });
  const lookup = (url: string, client: QuireClient = server.client()) => client.GET('/urls/published', { params: { query: { url } } });
  async function resolved(url: string, client: QuireClient): Promise<PublishedContentLookup> {
    const answer = await unwrap(lookup(url, client));
    expect(answer.object).toBe('published-content-lookup');
    return answer as PublishedContentLookup;
  }
  const readSite = (token: string, organizationId: string, siteId: string) =>
    server.client(token).GET('/orgs/{organizationId}/sites/{siteId}/published', { params: sitePath(organizationId, siteId) });

  /** An organization with a `read` member and a guest, and an outsider (admin of another organization). */
  async function world() {
    const org = await organizationWithPeople(server, 'Member reader org', { reader: 'read', guest: null });
    const outsider = await newOrg(server, 'Outsider org');
    return { org, outsider };
  }

  async function publishedSite(org: { organizationId: string; admin: { client: QuireClient } }, visibility: 'public' | 'share-link' | 'visitor-auth', titles = ['Guides']) {
    const client = org.admin.client;
    const spaces = [];
    for (const title of titles) {
      const space = await createSpace({ organizationId: org.organizationId, client }, { title });
      await f.editMain({ organizationId: org.organizationId, client } as never, space.id, [{ operation: 'insert_page', title: 'Welcome', document: md(`# ${title}`) }]);
      spaces.push(space);
    }
    const site = await unwrap(client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: org.organizationId } }, body: { title: 'Docs', visibility, spaces: spaces.map((space) => space.id) } }));
    const published = await unwrap(client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath(org.organizationId, site.id) }));
    const siteSpaces = (await unwrap(client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: sitePath(org.organizationId, site.id) }))).items;
    return { site: published, address: published.urls.published!, spaces, siteSpaces };
  }

  describe('getPublishedContentByUrl with a member\'s own token', () => {
    it('opens a share-link site to a member without a key, not to a guest or an outsider; a bad token is 401', async () => {
      const { org, outsider } = await world();
      const { site, address } = await publishedSite(org, 'share-link');
      expectError(await lookup(address), 404);

      const answer = await resolved(address, org.people.reader!.client);
      expect(answer).toMatchObject({ organization: org.organizationId, site: site.id, visibility: 'share-link' });
      await unwrap(readSite(answer.apiToken, org.organizationId, site.id));

      // Anyone else's token changes nothing: the same 404 as without one.
      for (const client of [outsider.client, org.people.guest!.client]) {
        expectError(await lookup(address, client), 404, 'No published content is at this address');
      }
      // A token that is not one is refused as everywhere, never read as anonymous.
      expectError(await lookup(address, server.client('not-a-real-token')), 401);
      const badScheme = await fetch(`${server.url}/v1/urls/published?url=${encodeURIComponent(address)}`, { headers: { Authorization: 'Basic eDp5' } });
      expect(badScheme.status).toBe(401);
      // Unpublished, the site opens to no one through the lookup, members included.
      await unwrap(org.admin.client.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: sitePath(org.organizationId, site.id) }));
      expectError(await lookup(address, org.people.reader!.client), 404);
    });

    it('opens a visitor-auth site to a member without a JWT, and evaluates conditions on the claims given only', async () => {
      const { org, outsider } = await world();
      const { site, address, spaces, siteSpaces } = await publishedSite(org, 'visitor-auth', ['Guides', 'Beta']);
      await unwrap(org.admin.client.PATCH('/orgs/{organizationId}/sites/{siteId}/publishing/auth', { params: sitePath(org.organizationId, site.id), body: { backend: 'custom', fallbackURL: 'https://auth.example.test/start' } }));
      const beta = siteSpaces[1]!;
      await unwrap(org.admin.client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', {
        params: { path: { organizationId: org.organizationId, siteId: site.id, siteSpaceId: beta.id } },
        body: { condition: 'visitor.claims.unsigned.plan == "pro"' },
      }));

      const redirect = (await unwrap(lookup(address))) as PublishedContentRedirect;
      expect(redirect.object).toBe('published-content-redirect');
      expect(await unwrap(lookup(address, outsider.client))).toEqual(redirect);

      const member = await resolved(address, org.people.reader!.client);
      expect(member).toMatchObject({ site: site.id, visibility: 'visitor-auth', siteSpace: siteSpaces[0]!.id });
      // No claims: only the unconditioned site space, exactly as for a visitor.
      const structure = (await unwrap(readSite(member.apiToken, org.organizationId, site.id))).structure as { structure: Array<{ id: string }> };
      expect(structure.structure.map((item) => item.id)).toEqual([siteSpaces[0]!.id]);
      expectError(await lookup(`${address}/${beta.path}`, org.people.reader!.client), 404);
      expectError(await server.client(member.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: spaces[1]!.id } } }), 404);
      // With the claim, the member sees it as a visitor with that claim would.
      const pro = await resolved(`${address}/${beta.path}?visitor.plan=pro`, org.people.reader!.client);
      expect(pro.siteSpace).toBe(beta.id);
      await unwrap(server.client(pro.apiToken).GET('/spaces/{spaceId}/content', { params: { path: { spaceId: spaces[1]!.id } } }));
    });

    it('closes a member\'s visitor token at once when they are removed or made a guest, or their own token is revoked or expires', async () => {
      const org = await organizationWithPeople(server, 'Member leaves org', { stays: 'read', leaves: 'read', demoted: 'comment', revoked: 'read', expired: 'read' });
      const { site, address } = await publishedSite(org, 'share-link');
      const people = org.people;
      const tokens: Record<string, string> = {};
      for (const name of Object.keys(people)) {
        tokens[name] = (await resolved(address, people[name]!.client)).apiToken;
        await unwrap(readSite(tokens[name]!, org.organizationId, site.id));
      }
      const memberPath = (userId: string) => ({ params: { path: { organizationId: org.organizationId, userId } } });
      const deleted = await org.admin.client.DELETE('/orgs/{organizationId}/members/{userId}', memberPath(people.leaves!.userId));
      expect(deleted.response.status).toBe(204);
      await unwrap(org.admin.client.PATCH('/orgs/{organizationId}/members/{userId}', { ...memberPath(people.demoted!.userId), body: { role: null } }));
      // No operation revokes a token or moves its expiry: done in storage, as an operator would.
      const tokenOf = (userId: string) => server.db.selectFrom('api_tokens').select('id').where('user_id', '=', userId);
      await server.db.deleteFrom('api_tokens').where('id', 'in', tokenOf(people.revoked!.userId)).execute();
      await server.db.updateTable('api_tokens').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', people.expired!.userId).execute();

      for (const name of ['leaves', 'demoted', 'revoked', 'expired']) {
        expectError(await readSite(tokens[name]!, org.organizationId, site.id), 401, /no longer opens/);
      }
      await unwrap(readSite(tokens.stays!, org.organizationId, site.id));
      expectError(await lookup(address, people.leaves!.client), 404);
    });

    it('keeps the visitor token of an open site anonymous: it does not name the member who asked', async () => {
      const org = await organizationWithPeople(server, 'Open site org', { leaves: 'read' });
      const { site, address } = await publishedSite(org, 'public');
      const answer = await resolved(address, org.people.leaves!.client);
      await unwrap(org.admin.client.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: org.people.leaves!.userId } } }));
      await unwrap(readSite(answer.apiToken, org.organizationId, site.id));
    });
  });
});
