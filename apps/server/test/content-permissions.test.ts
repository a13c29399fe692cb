import { unwrap, type QuireClient } from '@quire/client';
import type { Collection, Space } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createCollection, createSpace, expectError, organizationWithPeople, useTestServer, type OrgPerson } from './helpers.js';

/*
 * Content permissions (roles granted on spaces and collections to users and teams), through the generated
 * client: each grant path
 * (user on a space, team on a collection, guest on one space) and its removal, with what follows from them
 * (reads, permissions, lists and counts, member spaces, Team.spaces) checked after each step.
 */
describeEachDialect('content permissions', (dialect) => {
  const server = useTestServer({ dialect });

  interface Setup {
    organizationId: string;
    admin: OrgPerson;
    guest: OrgPerson;
    reader: OrgPerson;
    editor: OrgPerson;
  }

  async function setup(): Promise<Setup> {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Grants org', { guest: null, reader: 'read', editor: 'edit' });
    return { organizationId, admin, guest: people.guest!, reader: people.reader!, editor: people.editor! };
  }
  const org = (s: Setup) => ({ organizationId: s.organizationId, client: s.admin.client });

  const spacePath = (spaceId: string) => ({ params: { path: { spaceId } } });
  const getSpace = (client: QuireClient, spaceId: string) => client.GET('/spaces/{spaceId}', spacePath(spaceId));
  const visibleSpaces = async (client: QuireClient, organizationId: string) => {
    const page = await unwrap(client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId }, query: { limit: 1000 } } }));
    return { count: page.count, ids: page.items.map((item) => item.id).sort() };
  };
  const memberSpaces = async (s: Setup, userId: string) => {
    const member = await unwrap(s.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: s.organizationId, userId } } }));
    const listed = await unwrap(s.admin.client.GET('/orgs/{organizationId}/members/{userId}/spaces', { params: { path: { organizationId: s.organizationId, userId } } }));
    return { count: member.spaces, listed: listed.items.map((item) => [item.space.id, item.permission]).sort() };
  };
  const inviteToSpace = (client: QuireClient, spaceId: string, body: { role: 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read'; users?: string[]; teams?: string[] }) =>
    client.POST('/spaces/{spaceId}/permissions', { ...spacePath(spaceId), body });
  const inviteToCollection = (client: QuireClient, collectionId: string, body: { role: 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read'; users?: string[]; teams?: string[] }) =>
    client.POST('/collections/{collectionId}/permissions', { params: { path: { collectionId } }, body });
  const newTeam = async (s: Setup, members: string[]) => {
    await unwrap(s.admin.client.PUT('/orgs/{organizationId}/teams', { params: { path: { organizationId: s.organizationId } }, body: { title: 'Writers', members } }));
    const teams = await unwrap(s.admin.client.GET('/orgs/{organizationId}/teams', { params: { path: { organizationId: s.organizationId } } }));
    return teams.items.find((team) => team.title === 'Writers')!;
  };
  const team = (s: Setup, teamId: string) => unwrap(s.admin.client.GET('/orgs/{organizationId}/teams/{teamId}', { params: { path: { organizationId: s.organizationId, teamId } } }));

  describe('inviteToSpace', () => {
    it('grants a guest one space: they see it with that role, nothing else, and counts follow', async () => {
      const s = await setup();
      const [shared, other] = [await createSpace(org(s), { title: 'Shared' }), await createSpace(org(s), { title: 'Other' })];
      expectError(await getSpace(s.guest.client, shared.id), 404);
      expect(await memberSpaces(s, s.guest.userId)).toEqual({ count: 0, listed: [] });
      const granted = await inviteToSpace(s.admin.client, shared.id, { role: 'edit', users: [s.guest.userId] });
      expect(granted.response.status).toBe(204);
      const seen = await unwrap(getSpace(s.guest.client, shared.id));
      expect(seen.permissions).toMatchObject({ view: true, edit: true, merge: false, admin: false });
      expectError(await getSpace(s.guest.client, other.id), 404);
      expect(await visibleSpaces(s.guest.client, s.organizationId)).toEqual({ count: 1, ids: [shared.id] });
      expect(await memberSpaces(s, s.guest.userId)).toEqual({ count: 1, listed: [[shared.id, 'edit']] });
      // The guest can now work in it: a change request of their own.
      expect((await s.guest.client.POST('/spaces/{spaceId}/change-requests', { ...spacePath(shared.id), body: {} })).response.status).toBe(201);
    });

    it('raises a member above their organization role but never lowers it; refuses outsiders, unknown teams and non-admins', async () => {
      const s = await setup();
      const space = await createSpace(org(s));
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'review', users: [s.reader.userId] }));
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'read', users: [s.editor.userId] }));
      expect((await unwrap(getSpace(s.reader.client, space.id))).permissions).toMatchObject({ review: true, merge: true });
      expect((await unwrap(getSpace(s.editor.client, space.id))).permissions).toMatchObject({ edit: true });
      const other = await organizationWithPeople(server, 'Other org', {});
      expectError(await inviteToSpace(s.admin.client, space.id, { role: 'read', users: [other.admin.userId] }), 400, /body\.users\.0/);
      expectError(await inviteToSpace(s.admin.client, space.id, { role: 'read', teams: ['no-such-team'] }), 400, /body\.teams\.0/);
      expectError(await inviteToSpace(s.admin.client, space.id, { role: 'read' }), 400);
      expectError(await inviteToSpace(s.editor.client, space.id, { role: 'admin', users: [s.editor.userId] }), 403);
      expectError(await inviteToSpace(other.admin.client, space.id, { role: 'read', users: [other.admin.userId] }), 404);
      // A space admin by grant may grant in turn.
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'admin', users: [s.editor.userId] }));
      expect((await inviteToSpace(s.editor.client, space.id, { role: 'comment', users: [s.guest.userId] })).response.status).toBe(204);
    });
  });

  /** A space granted `edit` to a team (the reader in it) and to the guest: what the two lists split. */
  async function spaceGrantedToTeamAndGuest() {
    const s = await setup();
    const space = await createSpace(org(s));
    const writers = await newTeam(s, [s.reader.userId]);
    await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'edit', teams: [writers.id], users: [s.guest.userId] }));
    return { s, space, writers };
  }

  /** A collection holding a space, granted `read` to a team (the guest in it). */
  async function collectionGrantedToTeam() {
    const s = await setup();
    const collection = await createCollection(org(s));
    await createSpace(org(s), { parent: collection.id });
    const writers = await newTeam(s, [s.guest.userId]);
    await unwrap(inviteToCollection(s.admin.client, collection.id, { role: 'read', teams: [writers.id] }));
    return { s, collection, writers };
  }

  describe('listUserPermissionsInSpace', () => {
    it('lists the users granted a role on the space (not teams), to its admins only', async () => {
      const { s, space, writers } = await spaceGrantedToTeamAndGuest();
      const listed = await unwrap(s.admin.client.GET('/spaces/{spaceId}/permissions/users', spacePath(space.id)));
      expect(listed.count).toBe(1);
      expect(listed.items.map((item) => [item.user.id, item.permission])).toEqual([[s.guest.userId, 'edit']]);
      expect(listed.items[0]!.user).toMatchObject({ object: 'user', id: s.guest.userId, email: expect.any(String) });
      expectError(await s.reader.client.GET('/spaces/{spaceId}/permissions/users', spacePath(space.id)), 403);
      const other = await organizationWithPeople(server, 'Other org', {});
      expectError(await other.admin.client.GET('/spaces/{spaceId}/permissions/users', spacePath(space.id)), 404);
    });
  });

  describe('listTeamPermissionsInSpace', () => {
    it('lists the teams granted a role on the space, as teams, to its admins only', async () => {
      const { s, space, writers } = await spaceGrantedToTeamAndGuest();
      const listed = await unwrap(s.admin.client.GET('/spaces/{spaceId}/permissions/teams', spacePath(space.id)));
      expect(listed.count).toBe(1);
      expect(listed.items[0]).toMatchObject({ permission: 'edit', team: { object: 'team', id: writers.id, title: 'Writers', members: 1, spaces: 1 } });
      expectError(await s.reader.client.GET('/spaces/{spaceId}/permissions/teams', spacePath(space.id)), 403);
    });
  });

  describe('listPermissionsAggregateInSpace', () => {
    it('answers everyone who sees the space with the role their requests get there, by user id; role filters', async () => {
      const s = await setup();
      const collection = await createCollection(org(s));
      const space = await createSpace(org(s), { parent: collection.id });
      const writers = await newTeam(s, [s.reader.userId]);
      await unwrap(inviteToCollection(s.admin.client, collection.id, { role: 'review', teams: [writers.id] }));
      const aggregate = async (query: { role?: 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read'; limit?: number; page?: string } = {}) =>
        unwrap(s.admin.client.GET('/spaces/{spaceId}/permissions/aggregate', { params: { path: { spaceId: space.id }, query } }));
      const roles = (page: { items: Array<{ user: { id: string }; permission: string }> }) => page.items.map((item) => [item.user.id, item.permission]);
      const byId = (pairs: string[][]) => [...pairs].sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
      // The guest has nothing here; the reader is raised by their team's grant on the collection above.
      expect(roles(await aggregate())).toEqual(byId([[s.admin.userId, 'admin'], [s.reader.userId, 'review'], [s.editor.userId, 'edit']]));
      // Each role is the one the member's own requests get.
      expect((await unwrap(getSpace(s.reader.client, space.id))).permissions).toMatchObject({ review: true });
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'comment', users: [s.guest.userId] }));
      await unwrap(s.admin.client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body: { defaultLevel: null } }));
      expect(roles(await aggregate())).toEqual(byId([[s.admin.userId, 'admin'], [s.guest.userId, 'comment'], [s.reader.userId, 'review']]));
      expectError(await getSpace(s.editor.client, space.id), 404);
      expect(roles(await aggregate({ role: 'review' }))).toEqual([[s.reader.userId, 'review']]);
      const first = await aggregate({ limit: 2 });
      expect(first.count).toBe(3);
      const second = await aggregate({ limit: 2, page: first.next!.page });
      expect([...roles(first), ...roles(second)]).toEqual(roles(await aggregate()));
      expect(second.next).toBeUndefined();
      expectError(await s.reader.client.GET('/spaces/{spaceId}/permissions/aggregate', spacePath(space.id)), 403);
    });
  });

  describe('updateUserPermissionInSpace', () => {
    it('changes a user grant at once; null removes it; 404 without a grant', async () => {
      const s = await setup();
      const space = await createSpace(org(s));
      const path = { params: { path: { spaceId: space.id, userId: s.guest.userId } } };
      expectError(await s.admin.client.PATCH('/spaces/{spaceId}/permissions/users/{userId}', { ...path, body: { role: 'read' } }), 404);
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'edit', users: [s.guest.userId] }));
      expect((await s.admin.client.PATCH('/spaces/{spaceId}/permissions/users/{userId}', { ...path, body: { role: 'read' } })).response.status).toBe(204);
      expect((await unwrap(getSpace(s.guest.client, space.id))).permissions).toMatchObject({ view: true, edit: false });
      expectError(await s.admin.client.PATCH('/spaces/{spaceId}/permissions/users/{userId}', { ...path, body: { role: 'owner' as 'read' } }), 400);
      expect((await s.admin.client.PATCH('/spaces/{spaceId}/permissions/users/{userId}', { ...path, body: { role: null } })).response.status).toBe(204);
      expectError(await getSpace(s.guest.client, space.id), 404);
    });
  });

  describe('removeUserFromSpace', () => {
    it('removes a user grant at once (205), then answers 204: nothing left to remove', async () => {
      const s = await setup();
      const space = await createSpace(org(s));
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'comment', users: [s.guest.userId] }));
      const path = { params: { path: { spaceId: space.id, userId: s.guest.userId } } };
      expectError(await s.reader.client.DELETE('/spaces/{spaceId}/permissions/users/{userId}', path), 403);
      expect((await s.admin.client.DELETE('/spaces/{spaceId}/permissions/users/{userId}', path)).response.status).toBe(205);
      expectError(await getSpace(s.guest.client, space.id), 404);
      expect(await memberSpaces(s, s.guest.userId)).toEqual({ count: 0, listed: [] });
      expect((await s.admin.client.DELETE('/spaces/{spaceId}/permissions/users/{userId}', path)).response.status).toBe(204);
    });
  });

  describe('updateTeamPermissionInSpace', () => {
    it('changes what a team grant gives its members at once', async () => {
      const s = await setup();
      const space = await createSpace(org(s));
      const writers = await newTeam(s, [s.guest.userId]);
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'read', teams: [writers.id] }));
      expect((await team(s, writers.id)).spaces).toBe(1);
      const path = { params: { path: { spaceId: space.id, teamId: writers.id } } };
      expect((await s.admin.client.PATCH('/spaces/{spaceId}/permissions/teams/{teamId}', { ...path, body: { role: 'edit' } })).response.status).toBe(204);
      expect((await unwrap(getSpace(s.guest.client, space.id))).permissions.edit).toBe(true);
    });
  });

  describe('removeTeamFromSpace', () => {
    it('removes a team grant: its members lose the space and the team counts none', async () => {
      const s = await setup();
      const space = await createSpace(org(s));
      const writers = await newTeam(s, [s.guest.userId]);
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'read', teams: [writers.id] }));
      const path = { params: { path: { spaceId: space.id, teamId: writers.id } } };
      expect((await s.admin.client.DELETE('/spaces/{spaceId}/permissions/teams/{teamId}', path)).response.status).toBe(205);
      expectError(await getSpace(s.guest.client, space.id), 404);
      expect((await team(s, writers.id)).spaces).toBe(0);
      expect((await s.admin.client.DELETE('/spaces/{spaceId}/permissions/teams/{teamId}', path)).response.status).toBe(204);
    });
  });

  describe('inviteToCollection', () => {
    it('grants a team a collection: its members get every space inside, counts follow, leaving the team takes it away at once', async () => {
      const s = await setup();
      const collection: Collection = await createCollection(org(s), { title: 'Guides' });
      const inner: Collection = await createCollection(org(s), { title: 'Deeper', parent: collection.id });
      const spaces: Space[] = [
        await createSpace(org(s), { title: 'One', parent: collection.id }),
        await createSpace(org(s), { title: 'Two', parent: inner.id }),
      ];
      const outside = await createSpace(org(s), { title: 'Outside' });
      const writers = await newTeam(s, [s.guest.userId, s.reader.userId]);
      expect((await inviteToCollection(s.admin.client, collection.id, { role: 'edit', teams: [writers.id] })).response.status).toBe(204);
      expect((await team(s, writers.id)).spaces).toBe(2);
      const ids = spaces.map((space) => space.id).sort();
      expect(await visibleSpaces(s.guest.client, s.organizationId)).toEqual({ count: 2, ids });
      expect(await memberSpaces(s, s.guest.userId)).toEqual({ count: 2, listed: ids.map((id) => [id, 'edit']).sort() });
      expect((await unwrap(getSpace(s.reader.client, spaces[1]!.id))).permissions.edit).toBe(true);
      expect((await unwrap(getSpace(s.reader.client, outside.id))).permissions.edit).toBe(false);
      const seenCollection = await unwrap(s.guest.client.GET('/collections/{collectionId}', { params: { path: { collectionId: inner.id } } }));
      expect(seenCollection.permissions).toMatchObject({ view: true, admin: false });
      const collections = await unwrap(s.guest.client.GET('/orgs/{organizationId}/collections', { params: { path: { organizationId: s.organizationId } } }));
      expect(collections.items.map((item) => item.id).sort()).toEqual([collection.id, inner.id].sort());

      // Leaving the team removes what it gave, at once.
      expect((await s.admin.client.DELETE('/orgs/{organizationId}/teams/{teamId}/members/{userId}', { params: { path: { organizationId: s.organizationId, teamId: writers.id, userId: s.guest.userId } } })).response.status).toBe(204);
      expectError(await getSpace(s.guest.client, spaces[0]!.id), 404);
      expect(await visibleSpaces(s.guest.client, s.organizationId)).toEqual({ count: 0, ids: [] });
      expect(await memberSpaces(s, s.guest.userId)).toEqual({ count: 0, listed: [] });
      expect((await team(s, writers.id)).spaces).toBe(2);
      expectError(await inviteToCollection(s.reader.client, collection.id, { role: 'read', users: [s.reader.userId] }), 403);
    });

    it('leaving the organization removes a member grant for good', async () => {
      const s = await setup();
      const collection = await createCollection(org(s));
      const space = await createSpace(org(s), { parent: collection.id });
      await unwrap(inviteToCollection(s.admin.client, collection.id, { role: 'admin', users: [s.guest.userId] }));
      expect((await unwrap(getSpace(s.guest.client, space.id))).permissions.admin).toBe(true);
      expect((await s.admin.client.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: s.organizationId, userId: s.guest.userId } } })).response.status).toBe(204);
      expectError(await getSpace(s.guest.client, space.id), 404);
      const listed = await unwrap(s.admin.client.GET('/collections/{collectionId}/permissions/users', { params: { path: { collectionId: collection.id } } }));
      expect(listed.count).toBe(0);
    });
  });

  describe('listUserPermissionsInCollection', () => {
    it('lists the users granted a role on the collection to its admins', async () => {
      const s = await setup();
      const collection = await createCollection(org(s));
      await unwrap(inviteToCollection(s.admin.client, collection.id, { role: 'comment', users: [s.guest.userId, s.reader.userId] }));
      const listed = await unwrap(s.admin.client.GET('/collections/{collectionId}/permissions/users', { params: { path: { collectionId: collection.id }, query: { limit: 1 } } }));
      expect(listed.count).toBe(2);
      expect(listed.items).toHaveLength(1);
      expect(listed.items[0]!.permission).toBe('comment');
      const rest = await unwrap(s.admin.client.GET('/collections/{collectionId}/permissions/users', { params: { path: { collectionId: collection.id }, query: { page: listed.next!.page } } }));
      expect([listed.items[0]!.user.id, rest.items[0]!.user.id].sort()).toEqual([s.guest.userId, s.reader.userId].sort());
      expectError(await s.guest.client.GET('/collections/{collectionId}/permissions/users', { params: { path: { collectionId: collection.id } } }), 403);
    });
  });

  describe('listTeamPermissionsInCollection', () => {
    it('lists the teams granted a role on the collection to its admins', async () => {
      const { s, collection, writers } = await collectionGrantedToTeam();
      const listed = await unwrap(s.admin.client.GET('/collections/{collectionId}/permissions/teams', { params: { path: { collectionId: collection.id } } }));
      expect(listed.items).toEqual([{ permission: 'read', team: await team(s, writers.id) }]);
      expectError(await s.reader.client.GET('/collections/{collectionId}/permissions/teams', { params: { path: { collectionId: collection.id } } }), 403);
    });
  });

  describe('listPermissionsAggregateInCollection', () => {
    it('answers everyone who sees the collection with their role there', async () => {
      const s = await setup();
      const parent = await createCollection(org(s));
      const collection = await createCollection(org(s), { parent: parent.id });
      await unwrap(inviteToCollection(s.admin.client, parent.id, { role: 'create', users: [s.guest.userId] }));
      await unwrap(s.admin.client.PATCH('/collections/{collectionId}', { params: { path: { collectionId: collection.id } }, body: { defaultLevel: 'comment' } }));
      const listed = await unwrap(s.admin.client.GET('/collections/{collectionId}/permissions/aggregate', { params: { path: { collectionId: collection.id } } }));
      const expected = [[s.admin.userId, 'admin'], [s.guest.userId, 'create'], [s.reader.userId, 'comment'], [s.editor.userId, 'comment']].sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
      expect(listed.items.map((item) => [item.user.id, item.permission])).toEqual(expected);
      expect((await unwrap(s.admin.client.GET('/collections/{collectionId}/permissions/aggregate', { params: { path: { collectionId: collection.id }, query: { role: 'create' } } }))).items.map((item) => item.user.id)).toEqual([s.guest.userId]);
      expectError(await s.guest.client.GET('/collections/{collectionId}/permissions/aggregate', { params: { path: { collectionId: collection.id } } }), 403);
    });
  });

  describe('listPermissionsAggregateInSite', () => {
    it("answers every reader of the site with their organization role, or a published space's higher one", async () => {
      const s = await setup();
      const space = await createSpace(org(s));
      const sitePath = { params: { path: { organizationId: s.organizationId, siteId: '' } } };
      const site = await unwrap(s.admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: s.organizationId } }, body: { title: 'Docs' } as never }));
      sitePath.params.path.siteId = site.id;
      await unwrap(s.admin.client.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...sitePath, body: { spaceId: space.id } as never }));
      await unwrap(inviteToSpace(s.admin.client, space.id, { role: 'edit', users: [s.reader.userId] }));
      const listed = await unwrap(s.admin.client.GET('/orgs/{organizationId}/sites/{siteId}/permissions/aggregate', sitePath));
      const organization = { type: 'organization', organization: s.organizationId };
      const expected = [
        { user: s.admin.userId, permission: 'admin', origin: organization },
        { user: s.guest.userId, permission: null, origin: organization },
        { user: s.reader.userId, permission: 'edit', origin: { type: 'space', space: space.id } },
        { user: s.editor.userId, permission: 'edit', origin: organization },
      ].sort((a, b) => (a.user < b.user ? -1 : 1));
      expect(listed.items.map((item) => ({ user: item.user.id, permission: item.permission, origin: item.origin }))).toEqual(expected);
      expectError(await s.editor.client.GET('/orgs/{organizationId}/sites/{siteId}/permissions/aggregate', sitePath), 403);
      const other = await organizationWithPeople(server, 'Other org', {});
      expectError(await other.admin.client.GET('/orgs/{organizationId}/sites/{siteId}/permissions/aggregate', sitePath), 404);
    });
  });

  describe('updateUserPermissionInCollection', () => {
    it('changes the role a user has on every space inside', async () => {
      const s = await setup();
      const collection = await createCollection(org(s));
      const space = await createSpace(org(s), { parent: collection.id });
      await unwrap(inviteToCollection(s.admin.client, collection.id, { role: 'read', users: [s.guest.userId] }));
      const path = { params: { path: { collectionId: collection.id, userId: s.guest.userId } } };
      expect((await s.admin.client.PATCH('/collections/{collectionId}/permissions/users/{userId}', { ...path, body: { role: 'edit' } })).response.status).toBe(204);
      expect((await unwrap(getSpace(s.guest.client, space.id))).permissions.edit).toBe(true);
      expectError(await s.admin.client.PATCH('/collections/{collectionId}/permissions/users/{userId}', { params: { path: { collectionId: collection.id, userId: s.reader.userId } }, body: { role: 'edit' } }), 404);
    });
  });

  describe('removeUserFromCollection', () => {
    it('removes a user grant on a collection (205)', async () => {
      const s = await setup();
      const collection = await createCollection(org(s));
      const space = await createSpace(org(s), { parent: collection.id });
      await unwrap(inviteToCollection(s.admin.client, collection.id, { role: 'read', users: [s.guest.userId] }));
      const path = { params: { path: { collectionId: collection.id, userId: s.guest.userId } } };
      expect((await s.admin.client.DELETE('/collections/{collectionId}/permissions/users/{userId}', path)).response.status).toBe(205);
      expectError(await getSpace(s.guest.client, space.id), 404);
    });
  });

  describe('updateTeamPermissionInCollection', () => {
    it('changes a team grant on a collection', async () => {
      const s = await setup();
      const collection = await createCollection(org(s));
      const space = await createSpace(org(s), { parent: collection.id });
      const writers = await newTeam(s, [s.guest.userId]);
      await unwrap(inviteToCollection(s.admin.client, collection.id, { role: 'read', teams: [writers.id] }));
      const path = { params: { path: { collectionId: collection.id, teamId: writers.id } } };
      expect((await s.admin.client.PATCH('/collections/{collectionId}/permissions/teams/{teamId}', { ...path, body: { role: 'review' } })).response.status).toBe(204);
      expect((await unwrap(getSpace(s.guest.client, space.id))).permissions.review).toBe(true);
    });
  });

  describe('removeTeamFromCollection', () => {
    it('removes a team grant on a collection (205) and the team counts no spaces, then answers 204', async () => {
      const { s, collection, writers } = await collectionGrantedToTeam();
      expect((await team(s, writers.id)).spaces).toBe(1);
      const path = { params: { path: { collectionId: collection.id, teamId: writers.id } } };
      expect((await s.admin.client.DELETE('/collections/{collectionId}/permissions/teams/{teamId}', path)).response.status).toBe(205);
      expect((await team(s, writers.id)).spaces).toBe(0);
      expect((await s.admin.client.DELETE('/collections/{collectionId}/permissions/teams/{teamId}', path)).response.status).toBe(204);
    });
  });

  describe("a guest's (then a member's) list of the organization's spaces", () => {
    /** Every page of the guest's list, two at a time: ids in the list's order, and the counts the pages gave. */
    const guestPages = async (s: Setup) => {
      const ids: string[] = [];
      const counts = new Set<number>();
      let page: string | undefined;
      do {
        const result = await unwrap(s.guest.client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId: s.organizationId }, query: { limit: 2, ...(page ? { page } : {}) } } }));
        ids.push(...result.items.map((item) => item.id));
        counts.add(result.count ?? -1);
        page = result.next?.page;
      } while (page);
      return { count: [...counts], ids };
    };

    it('follows every change of what they reach at the next request: grants, teams, moves, deletions, their role, default levels', async () => {
      const s = await setup();
      const guides = await createCollection(org(s), { title: 'Guides' });
      const deeper = await createCollection(org(s), { title: 'Deeper', parent: guides.id });
      const [inGuides, inDeeper, top, other] = [
        await createSpace(org(s), { title: 'In guides', parent: guides.id }),
        await createSpace(org(s), { title: 'In deeper', parent: deeper.id }),
        await createSpace(org(s), { title: 'Top' }),
        await createSpace(org(s), { title: 'Other' }),
      ];
      // Each step lists the guest's spaces first, so that what changes next changes a list already read.
      const expectList = async (spaces: Space[]) => {
        expect(await guestPages(s)).toEqual({ count: [spaces.length], ids: spaces.map((space) => space.id) });
      };
      await expectList([]);
      const readers = await newTeam(s, [s.guest.userId]);
      await unwrap(inviteToCollection(s.admin.client, guides.id, { role: 'read', teams: [readers.id] }));
      await expectList([inGuides, inDeeper]);
      await unwrap(inviteToSpace(s.admin.client, top.id, { role: 'comment', users: [s.guest.userId] }));
      await expectList([inGuides, inDeeper, top]);
      const added = await createSpace(org(s), { title: 'Added', parent: deeper.id });
      await expectList([inGuides, inDeeper, top, added]);

      // Moves: a space out of the granted tree, a whole collection out and back in.
      await unwrap(s.admin.client.POST('/spaces/{spaceId}/move', { ...spacePath(inDeeper.id), body: { parent: null } }));
      await expectList([inGuides, top, added]);
      await unwrap(s.admin.client.POST('/collections/{collectionId}/move', { params: { path: { collectionId: deeper.id } }, body: { parent: null } }));
      await expectList([inGuides, top]);
      await unwrap(s.admin.client.POST('/collections/{collectionId}/move', { params: { path: { collectionId: deeper.id } }, body: { parent: guides.id } }));
      await expectList([inGuides, top, added]);

      // A space deleted, then restored.
      await unwrap(s.admin.client.DELETE('/spaces/{spaceId}', spacePath(inGuides.id)));
      await expectList([top, added]);
      await unwrap(s.admin.client.POST('/spaces/{spaceId}/restore', spacePath(inGuides.id)));
      await expectList([inGuides, top, added]);

      // The team: left, joined again, deleted.
      const teamMembers = { params: { path: { organizationId: s.organizationId, teamId: readers.id } } };
      await unwrap(s.admin.client.PUT('/orgs/{organizationId}/teams/{teamId}/members', { ...teamMembers, body: { remove: [s.guest.userId] } }));
      await expectList([top]);
      await unwrap(s.admin.client.PUT('/orgs/{organizationId}/teams/{teamId}/members', { ...teamMembers, body: { add: [s.guest.userId] } }));
      await expectList([inGuides, top, added]);
      await unwrap(s.admin.client.DELETE('/orgs/{organizationId}/teams/{teamId}', teamMembers));
      await expectList([top]);

      // Their role: a member reads what the default levels open (every space here, until a space and then a
      // collection are closed), a guest again only the grant.
      const member = { params: { path: { organizationId: s.organizationId, userId: s.guest.userId } } };
      await unwrap(s.admin.client.PATCH('/orgs/{organizationId}/members/{userId}', { ...member, body: { role: 'read' } }));
      await expectList([inGuides, inDeeper, top, other, added]);
      await unwrap(s.admin.client.PATCH('/spaces/{spaceId}', { ...spacePath(other.id), body: { defaultLevel: null } }));
      await expectList([inGuides, inDeeper, top, added]);
      await unwrap(s.admin.client.PATCH('/collections/{collectionId}', { params: { path: { collectionId: guides.id } }, body: { defaultLevel: null } }));
      await expectList([inDeeper, top]);
      await unwrap(s.admin.client.PATCH('/orgs/{organizationId}/members/{userId}', { ...member, body: { role: null } }));
      await expectList([top]);
      await unwrap(s.admin.client.DELETE('/spaces/{spaceId}/permissions/users/{userId}', { params: { path: { spaceId: top.id, userId: s.guest.userId } } }));
      await expectList([]);
    });
  });
});
