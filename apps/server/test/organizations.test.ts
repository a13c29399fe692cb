import { paginate, unwrap } from '@quire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { startTestServer, type TestServer } from './server.js';

describeEachDialect('caller and organizations', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('getAuthenticatedUser', () => {
    it('answers the owner of the token', async () => {
      const owner = await server.bootstrap('Acme');
      const user = await unwrap(server.client(owner.token).GET('/user'));
      expect(user).toMatchObject({ object: 'user', id: owner.userId, displayName: 'Test Owner' });
      expect(user.email).toMatch(/^owner-.*@example\.com$/);
      expect(user.urls.location).toContain(`/v1/users/${owner.userId}`);
    });

    it('answers 401 with WWW-Authenticate without a token, with an unknown token and with a malformed header', async () => {
      const none = await server.client().GET('/user');
      expect(none.response.status).toBe(401);
      expect(none.response.headers.get('www-authenticate')).toBe('Bearer');
      expect(none.error).toEqual({ error: { code: 401, message: 'A valid bearer token is required' } });

      const unknown = await server.client('qk_not-a-real-token-at-all-0000000000000000').GET('/user');
      expect(unknown.response.status).toBe(401);
      expect(unknown.response.headers.get('www-authenticate')).toBe('Bearer');

      const basic = await fetch(`${server.url}/v1/user`, { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
      expect(basic.status).toBe(401);
    });

    it('a deleted token stops working at once', async () => {
      const owner = await server.bootstrap();
      const client = server.client(owner.token);
      expect((await client.GET('/user')).response.status).toBe(200);
      await server.db.deleteFrom('api_tokens').where('user_id', '=', owner.userId).execute();
      expect((await client.GET('/user')).response.status).toBe(401);
    });
  });

  describe('getOrganizationById', () => {
    it('answers the organization with the caller permissions', async () => {
      const owner = await server.bootstrap('Acme docs');
      const org = await unwrap(server.client(owner.token).GET('/orgs/{organizationId}', { params: { path: { organizationId: owner.organizationId } } }));
      expect(org).toMatchObject({ object: 'organization', id: owner.organizationId, title: 'Acme docs', type: 'business', mergeRules: { type: 'none' } });
      expect(org.permissions).toMatchObject({ view: true, admin: true, createContent: true, listMembers: true });
      expect(org.urls.location).toMatch(new RegExp(`/v1/orgs/${owner.organizationId}$`));

      const reader = await server.addMember(owner.organizationId, `reader-${Date.now()}@example.com`, 'read');
      const asReader = await unwrap(server.client(reader.token).GET('/orgs/{organizationId}', { params: { path: { organizationId: owner.organizationId } } }));
      expect(asReader.permissions).toMatchObject({ view: true, admin: false, createContent: false, listMembers: true, viewBilling: false });

      const guest = await server.addMember(owner.organizationId, `guest-${Date.now()}@example.com`, null);
      const asGuest = await unwrap(server.client(guest.token).GET('/orgs/{organizationId}', { params: { path: { organizationId: owner.organizationId } } }));
      expect(asGuest.permissions).toMatchObject({ view: true, admin: false, listMembers: false });
    });

    it("another organization's id answers 404 exactly like a missing one", async () => {
      const alice = await server.bootstrap('Alice org');
      const bob = await server.bootstrap('Bob org');
      const client = server.client(alice.token);
      const other = await client.GET('/orgs/{organizationId}', { params: { path: { organizationId: bob.organizationId } } });
      const missing = await client.GET('/orgs/{organizationId}', { params: { path: { organizationId: 'doesNotExist000000000' } } });
      expect(other.response.status).toBe(404);
      expect(missing.response.status).toBe(404);
      expect(other.error).toEqual(missing.error);
    });
  });

  describe('listOrganizationsForAuthenticatedUser', () => {
    it('lists only the caller organizations, paginated without repeats or gaps', async () => {
      const owner = await server.bootstrap('First');
      const client = server.client(owner.token);
      const email = (await unwrap(client.GET('/user'))).email!;
      for (let index = 0; index < 6; index++) {
        const other = await server.bootstrap(`Other ${index}`);
        await server.addMember(other.organizationId, email, index % 2 === 0 ? 'edit' : null);
      }
      await server.bootstrap('Not mine');

      const first = await unwrap(client.GET('/orgs', { params: { query: { limit: 3 } } }));
      expect(first.count).toBe(7);
      expect(first.items).toHaveLength(3);
      expect(first.next?.page).toBeTruthy();
      expect(first.items[0]!.title).toBe('First');

      const all = [];
      for await (const org of paginate((page) => client.GET('/orgs', { params: { query: { limit: 2, ...(page ? { page } : {}) } } }))) all.push(org);
      expect(all.map((org) => org.title)).toEqual(['First', 'Other 0', 'Other 1', 'Other 2', 'Other 3', 'Other 4', 'Other 5']);

      const last = await unwrap(client.GET('/orgs', { params: { query: { limit: 1000 } } }));
      expect(last.next).toBeUndefined();
      expect(last.items).toHaveLength(7);
    });

    it('rejects a bad cursor and an out-of-range limit with 400 naming the parameter', async () => {
      const owner = await server.bootstrap();
      const client = server.client(owner.token);
      const badCursor = await client.GET('/orgs', { params: { query: { page: 'bm90LWEtY3Vyc29y' } } });
      expect(badCursor.response.status).toBe(400);
      expect(badCursor.error).toEqual({ error: { code: 400, message: 'query.page is not a valid page cursor' } });
      const tooMany = await client.GET('/orgs', { params: { query: { limit: 1001 } } });
      expect(tooMany.response.status).toBe(400);
      expect(tooMany.error).toEqual({ error: { code: 400, message: 'query.limit must be <= 1000' } });
    });
  });
});
