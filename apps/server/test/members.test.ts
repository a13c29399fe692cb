import { paginate, unwrap, type QuireClient } from '@quire/client';
import { decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { newId } from '../src/ids.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { addMember } from '../src/services/admin-service.js';
import { VISITOR_CLAIMS_KEY } from '../src/services/server-secret-service.js';
import { findServerSecret } from '../src/stores/server-secret-store.js';
import { describeEachDialect } from './dialects.js';
import { organizationWithPeople, useTestServer } from './helpers.js';
import { startTestServer, type TestServer } from './server.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachDialect('members', (dialect) => {
  const server = useTestServer({ dialect });

  /** A new organization with its admin, plus one member per requested role (joined a few ms apart). */
  const organization = (roles: Record<string, RoleOrGuest> = {}, names: Record<string, string> = {}) =>
    organizationWithPeople(server, 'Members org', roles, { names, spacingMs: 3 });

  function path(organizationId: string): { path: { organizationId: string } };
  function path(organizationId: string, userId: string): { path: { organizationId: string; userId: string } };
  function path(organizationId: string, userId?: string) {
    return { path: { organizationId, ...(userId ? { userId } : {}) } };
  }

  describe('listMembersInOrganizationById', () => {
    it('lists every member newest first with the member fields, e-mails only for admins and oneself', async () => {
      const org = await organization({ writer: 'edit', reader: 'read', visitor: null });
      const list = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', { params: path(org.organizationId) }));
      expect(list.count).toBe(4);
      expect(list.next).toBeUndefined();
      expect(list.items.map((member) => member.id)).toEqual([org.people.visitor!.userId, org.people.reader!.userId, org.people.writer!.userId, org.admin.userId]);
      const writer = list.items.find((member) => member.id === org.people.writer!.userId)!;
      expect(writer).toMatchObject({ object: 'member', role: 'edit', disabled: false, sso: false, teams: 0, spaces: 0 });
      expect(writer.user).toMatchObject({ object: 'user', id: org.people.writer!.userId, email: org.people.writer!.email });
      expect(writer.lastSeenAt).toBeUndefined();
      expect(list.items.find((member) => member.id === org.people.visitor!.userId)!.role).toBeNull();

      const asReader = await unwrap(org.people.reader!.client.GET('/orgs/{organizationId}/members', { params: path(org.organizationId) }));
      expect(asReader.count).toBe(4);
      for (const member of asReader.items) {
        if (member.id === org.people.reader!.userId) expect(member.user.email).toBe(org.people.reader!.email);
        else expect(member.user.email).toBeUndefined();
      }
    });

    it('orders ascending on request', async () => {
      const org = await organization({ one: 'read', two: 'read' });
      const list = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', { params: { ...path(org.organizationId), query: { order: 'asc' } } }));
      expect(list.items.map((member) => member.id)).toEqual([org.admin.userId, org.people.one!.userId, org.people.two!.userId]);
    });

    it('filters by role, with guest selecting members without a role', async () => {
      const org = await organization({ a: 'read', b: 'read', c: 'edit', g: null });
      const list = (role: 'read' | 'edit' | 'admin' | 'guest' | 'review') =>
        unwrap(org.admin.client.GET('/orgs/{organizationId}/members', { params: { ...path(org.organizationId), query: { role } } }));
      expect((await list('read')).items.map((member) => member.id).sort()).toEqual([org.people.a!.userId, org.people.b!.userId].sort());
      expect((await list('read')).count).toBe(2);
      expect((await list('edit')).items.map((member) => member.id)).toEqual([org.people.c!.userId]);
      expect((await list('admin')).items.map((member) => member.id)).toEqual([org.admin.userId]);
      expect((await list('guest')).items.map((member) => member.id)).toEqual([org.people.g!.userId]);
      expect(await list('review')).toEqual({ count: 0, items: [] });
    });

    it('searches display names and e-mail addresses ignoring case; e-mails only for admins', async () => {
      const org = await organization({ ada: 'read', bob: 'read', pct: 'read' }, { ada: 'Ada Lovelace', bob: 'Bob Builder', pct: '100% Sure_Thing' });
      const search = (client: QuireClient, text: string) =>
        unwrap(client.GET('/orgs/{organizationId}/members', { params: { ...path(org.organizationId), query: { search: text } } }));
      expect((await search(org.admin.client, 'LOVE')).items.map((member) => member.id)).toEqual([org.people.ada!.userId]);
      expect((await search(org.admin.client, 'builder')).items.map((member) => member.id)).toEqual([org.people.bob!.userId]);
      // The address is `bob-xxxxxx@example.com`: only the part of the address matches.
      const byEmail = org.people.bob!.email.slice(0, 10).toUpperCase();
      expect((await search(org.admin.client, byEmail)).items.map((member) => member.id)).toEqual([org.people.bob!.userId]);
      expect((await search(org.people.ada!.client, byEmail)).items).toEqual([]);
      expect((await search(org.people.ada!.client, 'bob b')).items.map((member) => member.id)).toEqual([org.people.bob!.userId]);
      // LIKE wildcards in the text are taken literally.
      expect((await search(org.admin.client, '0%')).items.map((member) => member.id)).toEqual([org.people.pct!.userId]);
      expect((await search(org.admin.client, 'e_t')).items.map((member) => member.id)).toEqual([org.people.pct!.userId]);
      expect((await search(org.admin.client, 'a%e')).items).toEqual([]);
      expect((await search(org.admin.client, 'nobody matches this')).count).toBe(0);
    });

    it('sorting by lastSeenAt lists only the members who pinged, in the order they were seen', async () => {
      const org = await organization({ early: 'read', late: 'read', never: 'read', guest: null });
      for (const key of ['late', 'guest', 'early'] as const) {
        await unwrap(org.people[key]!.client.POST('/orgs/{organizationId}/ping', { params: path(org.organizationId) }));
        await pause(3);
      }
      const seen = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', { params: { ...path(org.organizationId), query: { sort: 'lastSeenAt' } } }));
      expect(seen.count).toBe(3);
      expect(seen.items.map((member) => member.id)).toEqual([org.people.early!.userId, org.people.guest!.userId, org.people.late!.userId]);
      expect(seen.items.every((member) => typeof member.lastSeenAt === 'string')).toBe(true);
      const ascending = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', {
        params: { ...path(org.organizationId), query: { sort: 'lastSeenAt', order: 'asc', limit: 2 } },
      }));
      expect(ascending.items.map((member) => member.id)).toEqual([org.people.late!.userId, org.people.guest!.userId]);
      const rest = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', {
        params: { ...path(org.organizationId), query: { sort: 'lastSeenAt', order: 'asc', limit: 2, page: ascending.next!.page } },
      }));
      expect(rest.items.map((member) => member.id)).toEqual([org.people.early!.userId]);
      expect(rest.next).toBeUndefined();
    });

    it('pages through members without repeats or gaps while members join between pages', async () => {
      const org = await organization({ m1: 'read', m2: 'read', m3: 'read', m4: 'read' });
      const client = org.admin.client;
      const ascending: string[] = [];
      let page: string | undefined;
      let joined = 0;
      const expected = [org.admin.userId, org.people.m1!.userId, org.people.m2!.userId, org.people.m3!.userId, org.people.m4!.userId];
      do {
        const answer = await unwrap(client.GET('/orgs/{organizationId}/members', {
          params: { ...path(org.organizationId), query: { order: 'asc', limit: 2, ...(page ? { page } : {}) } },
        }));
        ascending.push(...answer.items.map((member) => member.id));
        page = answer.next?.page;
        if (joined < 2) {
          await pause(3);
          const late = await server.addMember(org.organizationId, `late-${joined}-${newId(6).toLowerCase()}@example.com`, 'read');
          expected.push(late.userId);
          joined++;
        }
      } while (page);
      // Ascending, members who join later come after the cursor: every one of them is listed once.
      expect(ascending).toEqual(expected);

      const descending: string[] = [];
      for await (const member of paginate((cursor) => client.GET('/orgs/{organizationId}/members', {
        params: { ...path(org.organizationId), query: { limit: 3, ...(cursor ? { page: cursor } : {}) } },
      }))) {
        descending.push(member.id);
        if (descending.length === 1) await server.addMember(org.organizationId, `newest-${newId(6).toLowerCase()}@example.com`, 'read');
      }
      // Newest first, a member who joins during the walk sorts before the cursor and is not repeated.
      expect(descending).toEqual([...expected].reverse());
    });

    it('rejects bad parameters with 400 naming the parameter', async () => {
      const org = await organization();
      const get = async (query: Record<string, unknown>) => {
        const result = await org.admin.client.GET('/orgs/{organizationId}/members', { params: { ...path(org.organizationId), query: query as never } });
        expect(result.response.status).toBe(400);
        return (result.error as { error: { message: string } }).error.message;
      };
      expect(await get({ limit: 1001 })).toBe('query.limit must be <= 1000');
      expect(await get({ limit: 0 })).toMatch(/^query\.limit/);
      expect(await get({ role: 'owner' })).toMatch(/^query\.role/);
      expect(await get({ sort: 'name' })).toMatch(/^query\.sort/);
      expect(await get({ order: 'up' })).toMatch(/^query\.order/);
      expect(await get({ search: 'x'.repeat(257) })).toMatch(/^query\.search/);
      expect(await get({ page: 'bm90LWEtY3Vyc29y' })).toBe('query.page is not a valid page cursor');
      expect(await get({ colour: 'blue' })).toMatch(/^query\.colour/);
      const path129 = await org.admin.client.GET('/orgs/{organizationId}/members', { params: path('x'.repeat(129)) });
      expect(path129.response.status).toBe(400);
    });

    it('answers 401 without a token, 404 to another organization and 403 to a guest', async () => {
      const org = await organization({ guest: null });
      const other = await organization();
      expect((await server.client().GET('/orgs/{organizationId}/members', { params: path(org.organizationId) })).response.status).toBe(401);
      const foreign = await other.admin.client.GET('/orgs/{organizationId}/members', { params: path(org.organizationId) });
      expect(foreign.response.status).toBe(404);
      const guest = await org.people.guest!.client.GET('/orgs/{organizationId}/members', { params: path(org.organizationId) });
      expect(guest.response.status).toBe(403);
      expect(guest.error).toEqual({ error: { code: 403, message: 'Guests cannot list the members of the organization' } });
    });
  });

  describe('getMemberInOrganizationById', () => {
    it('answers a member to members, and a guest their own membership only', async () => {
      const org = await organization({ reader: 'read', guest: null });
      const member = await unwrap(org.people.reader!.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.admin.userId) }));
      expect(member).toMatchObject({ object: 'member', id: org.admin.userId, role: 'admin', teams: 0, spaces: 0 });
      expect(member.user.email).toBeUndefined();
      const self = await unwrap(org.people.guest!.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.guest!.userId) }));
      expect(self).toMatchObject({ id: org.people.guest!.userId, role: null, user: { email: org.people.guest!.email } });
      const other = await org.people.guest!.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.admin.userId) });
      expect(other.response.status).toBe(403);
    });

    it('answers 404 for a user who is not a member, 404 to another organization and 401 without a token', async () => {
      const org = await organization();
      const other = await organization();
      const stranger = await org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, other.admin.userId) });
      expect(stranger.response.status).toBe(404);
      expect(stranger.error).toEqual({ error: { code: 404, message: 'No member of this organization has this id' } });
      expect((await other.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.admin.userId) })).response.status).toBe(404);
      expect((await server.client().GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.admin.userId) })).response.status).toBe(401);
      expect((await org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, 'u'.repeat(129)) })).response.status).toBe(400);
    });
  });

  describe('updateMemberInOrganizationById', () => {
    const patch = (client: QuireClient, organizationId: string, userId: string, body: unknown) =>
      client.PATCH('/orgs/{organizationId}/members/{userId}', { params: path(organizationId, userId), body: body as never });

    it('changes the role; null makes the member a guest', async () => {
      const org = await organization({ writer: 'edit' });
      const promoted = await unwrap(patch(org.admin.client, org.organizationId, org.people.writer!.userId, { role: 'review' }));
      expect(promoted).toMatchObject({ id: org.people.writer!.userId, role: 'review', user: { email: org.people.writer!.email } });
      const guest = await unwrap(patch(org.admin.client, org.organizationId, org.people.writer!.userId, { role: null }));
      expect(guest.role).toBeNull();
      const guests = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', { params: { ...path(org.organizationId), query: { role: 'guest' } } }));
      expect(guests.items.map((member) => member.id)).toEqual([org.people.writer!.userId]);
      const organizationView = await unwrap(org.people.writer!.client.GET('/orgs/{organizationId}', { params: path(org.organizationId) }));
      expect(organizationView.permissions.listMembers).toBe(false);
    });

    it('refuses to demote the last admin (409) and changes nothing; with another admin it may', async () => {
      const org = await organization({ second: 'read' });
      const last = await patch(org.admin.client, org.organizationId, org.admin.userId, { role: 'edit' });
      expect(last.response.status).toBe(409);
      expect((last.error as { error: { message: string } }).error.message).toMatch(/last admin/);
      const unchanged = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.admin.userId) }));
      expect(unchanged.role).toBe('admin');

      await unwrap(patch(org.admin.client, org.organizationId, org.people.second!.userId, { role: 'admin' }));
      const demoted = await unwrap(patch(org.admin.client, org.organizationId, org.admin.userId, { role: null }));
      expect(demoted.role).toBeNull();
      const now = await patch(org.people.second!.client, org.organizationId, org.people.second!.userId, { role: 'read' });
      expect(now.response.status).toBe(409);
    });

    it('keeps one admin when two admins demote each other at the same time', async () => {
      const org = await organization({ second: 'admin' });
      const results = await Promise.all([
        patch(org.admin.client, org.organizationId, org.people.second!.userId, { role: 'read' }),
        patch(org.people.second!.client, org.organizationId, org.admin.userId, { role: 'read' }),
      ]);
      // Whichever runs second finds its caller no longer an admin (403) or itself the last admin (409).
      expect(results.filter((result) => result.response.status === 200)).toHaveLength(1);
      const admins = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', { params: { ...path(org.organizationId), query: { role: 'admin' } } }));
      expect(admins.count).toBe(1);
    });

    it('validates the body: role required, known roles only, no other fields', async () => {
      const org = await organization({ writer: 'edit' });
      const message = async (body: unknown) => {
        const result = await patch(org.admin.client, org.organizationId, org.people.writer!.userId, body);
        expect(result.response.status).toBe(400);
        return (result.error as { error: { message: string } }).error.message;
      };
      expect(await message({})).toBe('body.role is required');
      expect(await message({ role: 'owner' })).toMatch(/^body\.role/);
      expect(await message({ role: 'read', disabled: true })).toBe('body.disabled is not allowed');
      const unchanged = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.writer!.userId) }));
      expect(unchanged.role).toBe('edit');
    });

    it('answers 403 to non-admins, 404 for a non-member or another organization, 401 without a token', async () => {
      const org = await organization({ creator: 'create', writer: 'edit' });
      const other = await organization();
      const forbidden = await patch(org.people.creator!.client, org.organizationId, org.people.writer!.userId, { role: 'read' });
      expect(forbidden.response.status).toBe(403);
      expect((await patch(org.admin.client, org.organizationId, other.admin.userId, { role: 'read' })).response.status).toBe(404);
      expect((await patch(other.admin.client, org.organizationId, org.people.writer!.userId, { role: 'read' })).response.status).toBe(404);
      expect((await patch(server.client(), org.organizationId, org.people.writer!.userId, { role: 'read' })).response.status).toBe(401);
    });
  });

  describe('removeMemberFromOrganizationById', () => {
    const remove = (client: QuireClient, organizationId: string, userId: string) =>
      client.DELETE('/orgs/{organizationId}/members/{userId}', { params: path(organizationId, userId) });

    it('removes the member and their team memberships; 204 again when already gone', async () => {
      const org = await organization({ writer: 'edit', reader: 'read' });
      const team = await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams', {
        params: path(org.organizationId), body: { title: 'Writers', members: [org.people.writer!.userId, org.people.reader!.userId] },
      }));
      expect(team.members).toBe(2);
      expect((await remove(org.admin.client, org.organizationId, org.people.writer!.userId)).response.status).toBe(204);
      expect((await org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.writer!.userId) })).response.status).toBe(404);
      const after = await unwrap(org.admin.client.GET('/orgs/{organizationId}/teams/{teamId}', { params: { path: { organizationId: org.organizationId, teamId: team.id } } }));
      expect(after.members).toBe(1);
      // The removed user lost access to the organization.
      expect((await org.people.writer!.client.GET('/orgs/{organizationId}', { params: path(org.organizationId) })).response.status).toBe(404);
      expect((await remove(org.admin.client, org.organizationId, org.people.writer!.userId)).response.status).toBe(204);
      expect((await remove(org.admin.client, org.organizationId, 'neverAMember0000000')).response.status).toBe(204);
    });

    it('refuses to remove the last admin (409)', async () => {
      const org = await organization({ reader: 'read' });
      const result = await remove(org.admin.client, org.organizationId, org.admin.userId);
      expect(result.response.status).toBe(409);
      expect((await org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.admin.userId) })).response.status).toBe(200);
    });

    it('answers 403 to non-admins, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ reader: 'read', writer: 'edit' });
      const other = await organization();
      expect((await remove(org.people.writer!.client, org.organizationId, org.people.reader!.userId)).response.status).toBe(403);
      expect((await remove(other.admin.client, org.organizationId, org.people.reader!.userId)).response.status).toBe(404);
      expect((await remove(server.client(), org.organizationId, org.people.reader!.userId)).response.status).toBe(401);
      expect((await org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.reader!.userId) })).response.status).toBe(200);
    });
  });

  describe('setUserAsSSOMemberForOrganization', () => {
    const setSso = (client: QuireClient, organizationId: string, userId: string) =>
      client.POST('/orgs/{organizationId}/members/{userId}/sso', { params: path(organizationId, userId) });

    it('marks the member as an SSO member', async () => {
      const org = await organization({ reader: 'read' });
      const member = await unwrap(setSso(org.admin.client, org.organizationId, org.people.reader!.userId));
      expect(member).toMatchObject({ id: org.people.reader!.userId, sso: true, role: 'read' });
      const again = await unwrap(org.people.reader!.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.reader!.userId) }));
      expect(again.sso).toBe(true);
    });

    it('answers 404 for a non-member or another organization, 403 to non-admins, 401 without a token', async () => {
      const org = await organization({ reader: 'read' });
      const other = await organization();
      expect((await setSso(org.admin.client, org.organizationId, other.admin.userId)).response.status).toBe(404);
      expect((await setSso(other.admin.client, org.organizationId, org.people.reader!.userId)).response.status).toBe(404);
      expect((await setSso(org.people.reader!.client, org.organizationId, org.people.reader!.userId)).response.status).toBe(403);
      expect((await setSso(server.client(), org.organizationId, org.people.reader!.userId)).response.status).toBe(401);
      const unchanged = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.reader!.userId) }));
      expect(unchanged.sso).toBe(false);
    });
  });

  describe('listSpacesForOrganizationMember and the spaces count', () => {
    /**
     * open (inherits: everyone with a role), editable (level edit), closed (level null: admins only),
     * inner (inherits from a collection whose level is null: admins only), deleted (in no list).
     */
    async function withSpaces() {
      const org = await organization({ reader: 'read', writer: 'edit', guest: null });
      const client = org.admin.client;
      const createSpace = async (title: string, parent?: string) =>
        unwrap(client.POST('/orgs/{organizationId}/spaces', { params: path(org.organizationId), body: { title, ...(parent ? { parent } : {}) } }));
      const setLevel = (spaceId: string, defaultLevel: 'edit' | null) =>
        unwrap(client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId } }, body: { defaultLevel } }));
      const open = await createSpace('Open');
      await pause(3);
      const editable = await createSpace('Editable');
      await setLevel(editable.id, 'edit');
      await pause(3);
      const closed = await createSpace('Closed');
      await setLevel(closed.id, null);
      const collection = await unwrap(client.POST('/orgs/{organizationId}/collections', { params: path(org.organizationId), body: { title: 'Private' } }));
      await unwrap(client.PATCH('/collections/{collectionId}', { params: { path: { collectionId: collection.id } }, body: { defaultLevel: null } }));
      await pause(3);
      const inner = await createSpace('Inner', collection.id);
      const deleted = await createSpace('Deleted');
      expect((await client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: deleted.id } } })).response.status).toBe(204);
      return { org, spaces: { open, editable, closed, inner } };
    }
    const memberSpaces = (client: QuireClient, organizationId: string, userId: string, query: Record<string, unknown> = {}) =>
      client.GET('/orgs/{organizationId}/members/{userId}/spaces', { params: { ...path(organizationId, userId), query: query as never } });

    it('counts the live spaces each member can reach', async () => {
      const { org } = await withSpaces();
      const list = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members', { params: path(org.organizationId) }));
      const spacesOf = Object.fromEntries(list.items.map((member) => [member.id, member.spaces]));
      expect(spacesOf).toEqual({ [org.admin.userId]: 4, [org.people.reader!.userId]: 2, [org.people.writer!.userId]: 2, [org.people.guest!.userId]: 0 });
      const reader = await unwrap(org.people.reader!.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.reader!.userId) }));
      expect(reader.spaces).toBe(2);
    });

    it("lists a member's spaces newest first with the member's role on each", async () => {
      const { org, spaces } = await withSpaces();
      const reader = await unwrap(memberSpaces(org.admin.client, org.organizationId, org.people.reader!.userId));
      expect(reader.count).toBe(2);
      expect(reader.items.map((item) => [item.space.id, item.permission])).toEqual([[spaces.editable.id, 'edit'], [spaces.open.id, 'read']]);
      // The space itself is shown as the caller sees it.
      expect(reader.items[0]!.space.permissions.admin).toBe(true);

      const admin = await unwrap(memberSpaces(org.admin.client, org.organizationId, org.admin.userId, { order: 'asc' }));
      expect(admin.items.map((item) => [item.space.id, item.permission])).toEqual([
        [spaces.open.id, 'admin'], [spaces.editable.id, 'admin'], [spaces.closed.id, 'admin'], [spaces.inner.id, 'admin'],
      ]);
      const self = await unwrap(memberSpaces(org.people.writer!.client, org.organizationId, org.people.writer!.userId));
      expect(self.items.map((item) => [item.space.id, item.permission, item.space.permissions.edit])).toEqual([[spaces.editable.id, 'edit', true], [spaces.open.id, 'edit', true]]);
    });

    it('shows another member only the spaces the caller can see too', async () => {
      const { org, spaces } = await withSpaces();
      const adminAsSeenByReader = await unwrap(memberSpaces(org.people.reader!.client, org.organizationId, org.admin.userId));
      expect(adminAsSeenByReader.count).toBe(2);
      expect(adminAsSeenByReader.items.map((item) => [item.space.id, item.permission, item.space.permissions.admin])).toEqual([
        [spaces.editable.id, 'admin', false], [spaces.open.id, 'admin', false],
      ]);
      expect(await unwrap(memberSpaces(org.people.guest!.client, org.organizationId, org.people.guest!.userId))).toEqual({ count: 0, items: [] });
    });

    it('pages through the spaces while spaces are created between pages', async () => {
      const { org, spaces } = await withSpaces();
      const seen: string[] = [];
      let page: string | undefined;
      const created: string[] = [];
      do {
        const answer = await unwrap(memberSpaces(org.admin.client, org.organizationId, org.admin.userId, { order: 'asc', limit: 3, ...(page ? { page } : {}) }));
        seen.push(...answer.items.map((item) => item.space.id));
        page = answer.next?.page;
        if (page && created.length === 0) {
          await pause(3);
          created.push((await unwrap(org.admin.client.POST('/orgs/{organizationId}/spaces', { params: path(org.organizationId), body: { title: 'Later' } }))).id);
        }
      } while (page);
      expect(seen).toEqual([spaces.open.id, spaces.editable.id, spaces.closed.id, spaces.inner.id, ...created]);

      const descending: string[] = [];
      for await (const item of paginate((cursor) => memberSpaces(org.admin.client, org.organizationId, org.admin.userId, { limit: 2, ...(cursor ? { page: cursor } : {}) }) as never)) {
        descending.push((item as { space: { id: string } }).space.id);
        if (descending.length === 1) await unwrap(org.admin.client.POST('/orgs/{organizationId}/spaces', { params: path(org.organizationId), body: { title: 'Newest' } }));
      }
      expect(descending).toEqual([...seen].reverse());
    });

    it('answers 403 to a guest asking about someone else, 404 for a non-member and another organization, 401 without a token, 400 for bad parameters', async () => {
      const org = await organization({ guest: null, reader: 'read' });
      const other = await organization();
      expect((await memberSpaces(org.people.guest!.client, org.organizationId, org.people.reader!.userId)).response.status).toBe(403);
      expect((await memberSpaces(org.admin.client, org.organizationId, other.admin.userId)).response.status).toBe(404);
      expect((await memberSpaces(other.admin.client, org.organizationId, org.people.reader!.userId)).response.status).toBe(404);
      expect((await memberSpaces(server.client(), org.organizationId, org.people.reader!.userId)).response.status).toBe(401);
      for (const query of [{ limit: 1001 }, { order: 'newest' }, { page: 'bm90LWEtY3Vyc29y' }, { title: 'x' }]) {
        expect((await memberSpaces(org.admin.client, org.organizationId, org.people.reader!.userId, query)).response.status).toBe(400);
      }
    });
  });

  describe('updateOrganizationMemberLastSeenAt', () => {
    it('records the last seen time and answers claims signed with the stored server secret', async () => {
      const org = await organization({ writer: 'edit' });
      const team = await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams', {
        params: path(org.organizationId), body: { title: 'Claims', members: [org.people.writer!.userId] },
      }));
      const before = Date.now();
      const answer = await unwrap(org.people.writer!.client.POST('/orgs/{organizationId}/ping', { params: path(org.organizationId) }));
      // The claims are signed with the key the server generated and stored: the stored key is the subject.
      const stored = await findServerSecret(server.db, VISITOR_CLAIMS_KEY);
      expect(stored).toBeDefined();
      const { payload, protectedHeader } = await jwtVerify(answer.serviceVisitorClaims!, new TextEncoder().encode(stored!), { algorithms: ['HS256'] });
      expect(protectedHeader.alg).toBe('HS256');
      expect(payload).toMatchObject({ sub: org.people.writer!.userId, organization: org.organizationId, role: 'edit', teams: [team.id] });
      expect(payload.iat).toBeGreaterThanOrEqual(Math.floor(before / 1000) - 1);
      expect(payload.exp).toBeGreaterThan(payload.iat!);
      await expect(jwtVerify(answer.serviceVisitorClaims!, new TextEncoder().encode('some other secret of enough length!!'))).rejects.toThrow();

      const member = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: path(org.organizationId, org.people.writer!.userId) }));
      expect(Date.parse(member.lastSeenAt!)).toBeGreaterThanOrEqual(before - 5);
    });

    it('answers a guest too, with a null role and no teams', async () => {
      const org = await organization({ guest: null });
      const answer = await unwrap(org.people.guest!.client.POST('/orgs/{organizationId}/ping', { params: path(org.organizationId) }));
      expect(decodeJwt(answer.serviceVisitorClaims!)).toMatchObject({ sub: org.people.guest!.userId, role: null, teams: [] });
    });

    it('answers 404 to a non-member and 401 without a token', async () => {
      const org = await organization();
      const other = await organization();
      expect((await other.admin.client.POST('/orgs/{organizationId}/ping', { params: path(org.organizationId) })).response.status).toBe(404);
      expect((await server.client().POST('/orgs/{organizationId}/ping', { params: path(org.organizationId) })).response.status).toBe(401);
    });
  });
});

describeEachDialect('members: visitor claims with QUIRE_JWT_SECRET', (dialect) => {
  const secret = 'an operator-chosen secret of 32+ bytes';
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, env: { QUIRE_JWT_SECRET: secret } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('signs with the configured secret and stores none', async () => {
    const owner = await server.bootstrap();
    const answer = await unwrap(server.client(owner.token).POST('/orgs/{organizationId}/ping', { params: { path: { organizationId: owner.organizationId } } }));
    const { payload } = await jwtVerify(answer.serviceVisitorClaims!, new TextEncoder().encode(secret));
    expect(payload).toMatchObject({ sub: owner.userId, organization: owner.organizationId, role: 'admin', teams: [] });
    // Other secrets (download URLs, Git credentials) may be stored; the claims key must not be.
    expect(await findServerSecret(server.db, VISITOR_CLAIMS_KEY)).toBeUndefined();
  });

  it('refuses a short secret at start', () => {
    expect(() => loadConfig({ QUIRE_JWT_SECRET: 'too short' })).toThrow(/QUIRE_JWT_SECRET must be at least 32 bytes/);
  });
});
