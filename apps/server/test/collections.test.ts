import { paginate, unwrap, type QuireClient } from '@quire/client';
import type { Collection, Space } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { registerSpaceDepartureCheck, SPACE_PURGE_JOB } from '../src/services/space-lifecycle.js';
import { describeEachDialect } from './dialects.js';
import { createCollection, createSpace, expectError, newMember, newOrg as createOrg, type TestOrg, useTestServer } from './helpers.js';
import { storedJobs } from './storage-facts.js';

const PUBLIC_URL = 'https://docs.example.com';

describeEachDialect('collections', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });

  type Org = TestOrg;

  const newOrg = (title = 'Collections org'): Promise<Org> => createOrg(server, title);

  async function member(org: Org, role: RoleOrGuest): Promise<QuireClient> {
    return (await newMember(server, org, role)).client;
  }

  const orgPath = (org: Org) => ({ params: { path: { organizationId: org.organizationId } } });
  const collectionPath = (collectionId: string) => ({ params: { path: { collectionId } } });

  async function titles(client: QuireClient, organizationId: string, nested?: boolean): Promise<string[]> {
    const out: string[] = [];
    for await (const collection of paginate((page) => client.GET('/orgs/{organizationId}/collections', {
      params: { path: { organizationId }, query: { limit: 2, ...(nested === undefined ? {} : { nested }), ...(page ? { page } : {}) } },
    }))) out.push(collection.title);
    return out;
  }

  async function spaceTitles(client: QuireClient, collectionId: string): Promise<string[]> {
    const page = await unwrap(client.GET('/collections/{collectionId}/spaces', { params: { path: { collectionId }, query: { limit: 1000 } } }));
    return page.items.map((space) => space.title);
  }

  describe('createCollection', () => {
    it('creates collections at the top level and inside others, answered with urls and permissions', async () => {
      const org = await newOrg();
      const created = await org.client.POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: {} });
      expect(created.response.status).toBe(201);
      const top = created.data!;
      expect(top).toEqual({
        object: 'collection', id: top.id, title: '', organization: org.organizationId, defaultLevel: 'inherit',
        urls: { location: `${PUBLIC_URL}/v1/collections/${top.id}`, app: `${PUBLIC_URL}/o/${org.organizationId}/c/${top.id}` },
        permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
      });
      const child = await createCollection(org, { title: 'Child', parent: top.id });
      expect(child).toMatchObject({ title: 'Child', parent: top.id });
      const grandchild = await createCollection(org, { title: 'Grandchild', parent: child.id });
      expect(await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(grandchild.id)))).toEqual(grandchild);
    });

    it('refuses invalid bodies with 400 naming the field, and unknown or foreign parents with 404', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const foreign = await createCollection(other);
      const post = (body: unknown) => org.client.POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: body as never });
      expectError(await post({ title: 'x'.repeat(51) }), 400, /body\.title/);
      expectError(await post({ parent: '' }), 400, /body\.parent/);
      expectError(await post({ description: 'not here' }), 400, 'body.description is not allowed');
      expectError(await post({ parent: 'doesNotExist' }), 404, 'No collection matches body.parent');
      expectError(await post({ parent: foreign.id }), 404, 'No collection matches body.parent');
      expect(await titles(org.client, org.organizationId)).toEqual([]);
    });

    it('answers 401 without a token, 404 for another organization, 403 below the create role or its collection equivalent', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      expectError(await server.client().POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: {} }), 401);
      expectError(await other.client.POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: {} }), 404);
      expectError(await (await member(org, 'review')).POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: {} }), 403);
      const creator = await member(org, 'create');
      const mine = await unwrap(creator.POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: { title: 'Mine' } }));
      expect(mine.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });

      const open = await createCollection(org, { title: 'Open' });
      await unwrap(org.client.PATCH('/collections/{collectionId}', { ...collectionPath(open.id), body: { defaultLevel: 'create' } }));
      const editor = await member(org, 'edit');
      expectError(await editor.POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: {} }), 403);
      expect((await unwrap(editor.POST('/orgs/{organizationId}/collections', { ...orgPath(org), body: { parent: open.id } }))).parent).toBe(open.id);
    });
  });

  describe('getCollectionById', () => {
    it('answers the collection with the permissions of the caller, 404 for another organization exactly like a missing one, 401 without a token', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const collection = await createCollection(org);
      expect(await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(collection.id)))).toEqual(collection);
      const foreignGet = await other.client.GET('/collections/{collectionId}', collectionPath(collection.id));
      const missingGet = await other.client.GET('/collections/{collectionId}', collectionPath('doesNotExist000'));
      expectError(foreignGet, 404);
      expect(foreignGet.error).toEqual(missingGet.error);
      expectError(await server.client().GET('/collections/{collectionId}', collectionPath(collection.id)), 401);
      const reader = await member(org, 'read');
      expect((await unwrap(reader.GET('/collections/{collectionId}', collectionPath(collection.id)))).permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    });
  });

  describe('listCollectionsInOrganizationById', () => {
    it('lists nested collections by default, only the top level with nested=false, across pages with inserts between them', async () => {
      const org = await newOrg();
      const a = await createCollection(org, { title: 'A' });
      await createCollection(org, { title: 'A1', parent: a.id });
      const b = await createCollection(org, { title: 'B' });
      await createCollection(org, { title: 'B1', parent: b.id });
      await createCollection(org, { title: 'C' });

      const path = { organizationId: org.organizationId };
      const first = await unwrap(org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { limit: 2 } } }));
      expect(first.count).toBe(5);
      expect(first.items.map((item) => item.title)).toEqual(['A', 'A1']);
      await createCollection(org, { title: 'D' });
      const second = await unwrap(org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { limit: 2, page: first.next!.page } } }));
      expect(second.items.map((item) => item.title)).toEqual(['B', 'B1']);
      await createCollection(org, { title: 'C1', parent: a.id });
      const third = await unwrap(org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { limit: 2, page: second.next!.page } } }));
      expect(third.items.map((item) => item.title)).toEqual(['C', 'D']);
      const fourth = await unwrap(org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { limit: 2, page: third.next!.page } } }));
      expect(fourth.items.map((item) => item.title)).toEqual(['C1']);
      expect(fourth.next).toBeUndefined();

      expect(await titles(org.client, org.organizationId, false)).toEqual(['A', 'B', 'C', 'D']);
      const topOnly = await unwrap(org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { nested: false } } }));
      expect(topOnly.count).toBe(4);
      expect(topOnly.items.every((item) => item.parent === undefined)).toBe(true);
    });

    it('shows members what their default levels let them see, guests nothing, administrators everything', async () => {
      const org = await newOrg();
      const closed = await createCollection(org, { title: 'Closed' });
      await unwrap(org.client.PATCH('/collections/{collectionId}', { ...collectionPath(closed.id), body: { defaultLevel: null } }));
      await createCollection(org, { title: 'Closed child', parent: closed.id });
      const reopened = await createCollection(org, { title: 'Reopened', parent: closed.id });
      await unwrap(org.client.PATCH('/collections/{collectionId}', { ...collectionPath(reopened.id), body: { defaultLevel: 'read' } }));
      await createCollection(org, { title: 'Open' });

      const editor = await member(org, 'edit');
      expect(await titles(editor, org.organizationId)).toEqual(['Reopened', 'Open']);
      expectError(await editor.GET('/collections/{collectionId}', collectionPath(closed.id)), 404);
      expect((await unwrap(editor.GET('/collections/{collectionId}', collectionPath(reopened.id)))).permissions.create).toBe(false);
      expect(await titles(await member(org, null), org.organizationId)).toEqual([]);
      expect(await titles(org.client, org.organizationId)).toEqual(['Closed', 'Closed child', 'Reopened', 'Open']);
    });

    it('refuses bad paging and nested values with 400; 401 without a token, 404 for another organization', async () => {
      const org = await newOrg();
      const path = { organizationId: org.organizationId };
      expectError(await org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { limit: 1001 } } }), 400, 'query.limit must be <= 1000');
      expectError(await org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { nested: 'sometimes' as never } } }), 400, /query\.nested/);
      expectError(await org.client.GET('/orgs/{organizationId}/collections', { params: { path, query: { page: Buffer.from(JSON.stringify(['only-one-key'])).toString('base64url') } } }), 400, 'query.page is not a valid page cursor');
      expectError(await server.client().GET('/orgs/{organizationId}/collections', { params: { path } }), 401);
      expectError(await (await newOrg('Other')).client.GET('/orgs/{organizationId}/collections', { params: { path } }), 404);
    });
  });

  describe('updateCollectionById', () => {
    it('changes title, description and default level; an empty description removes it', async () => {
      const org = await newOrg();
      const collection = await createCollection(org, { title: 'Old' });
      const patch = (body: Record<string, unknown>) => unwrap(org.client.PATCH('/collections/{collectionId}', { ...collectionPath(collection.id), body: body as never }));
      expect(await patch({ title: 'New' })).toMatchObject({ title: 'New', defaultLevel: 'inherit' });
      expect(await patch({ description: 'About things' })).toMatchObject({ title: 'New', description: 'About things' });
      expect((await patch({ description: '' })).description).toBeUndefined();
      expect(await patch({ defaultLevel: null })).toMatchObject({ defaultLevel: null });
      expect(await patch({ defaultLevel: 'review' })).toMatchObject({ defaultLevel: 'review' });
      expect(await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(collection.id)))).toMatchObject({ title: 'New', defaultLevel: 'review' });
    });

    it('refuses invalid bodies with 400 naming the field; 401, 404 for another organization, 403 below admin', async () => {
      const org = await newOrg();
      const collection = await createCollection(org, { title: 'Same' });
      const patch = (client: QuireClient, body: unknown) => client.PATCH('/collections/{collectionId}', { ...collectionPath(collection.id), body: body as never });
      expectError(await patch(org.client, {}), 400, /body/);
      expectError(await patch(org.client, { title: 'x'.repeat(51) }), 400, /body\.title/);
      expectError(await patch(org.client, { description: 'x'.repeat(101) }), 400, /body\.description/);
      expectError(await patch(org.client, { defaultLevel: 'owner' }), 400, /body\.defaultLevel/);
      expectError(await patch(org.client, { parent: null }), 400, 'body.parent is not allowed');
      expectError(await patch(server.client(), { title: 'x' }), 401);
      expectError(await patch((await newOrg('Other')).client, { title: 'x' }), 404);
      expectError(await patch(await member(org, 'create'), { title: 'x' }), 403, 'You need the admin permission of this collection');
      expect((await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(collection.id)))).title).toBe('Same');
    });
  });

  describe('listSpacesInCollectionById', () => {
    it('lists the spaces directly inside, in their order, across pages with inserts between them', async () => {
      const org = await newOrg();
      const collection = await createCollection(org);
      const inner = await createCollection(org, { parent: collection.id });
      await createSpace(org, { title: 'Nested deeper', parent: inner.id });
      await createSpace(org, { title: 'Top level' });
      for (const title of ['S1', 'S2', 'S3', 'S4']) await createSpace(org, { title, parent: collection.id });
      const path = { collectionId: collection.id };
      const first = await unwrap(org.client.GET('/collections/{collectionId}/spaces', { params: { path, query: { limit: 3 } } }));
      expect(first).toMatchObject({ count: 4 });
      expect(first.items.map((space) => space.title)).toEqual(['S1', 'S2', 'S3']);
      await createSpace(org, { title: 'S5', parent: collection.id });
      const second = await unwrap(org.client.GET('/collections/{collectionId}/spaces', { params: { path, query: { limit: 3, page: first.next!.page } } }));
      expect(second.items.map((space) => space.title)).toEqual(['S4', 'S5']);
      expect(second.next).toBeUndefined();
    });

    it('leaves out deleted spaces and spaces hidden from the caller; 400, 401 and 404 as for every list', async () => {
      const org = await newOrg();
      const collection = await createCollection(org);
      await createSpace(org, { title: 'Kept', parent: collection.id });
      const gone = await createSpace(org, { title: 'Gone', parent: collection.id });
      const hidden = await createSpace(org, { title: 'Hidden', parent: collection.id });
      await unwrap(org.client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: gone.id } } }));
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: hidden.id } }, body: { defaultLevel: null } }));
      expect(await spaceTitles(org.client, collection.id)).toEqual(['Kept', 'Hidden']);
      expect(await spaceTitles(await member(org, 'read'), collection.id)).toEqual(['Kept']);

      const path = { collectionId: collection.id };
      expectError(await org.client.GET('/collections/{collectionId}/spaces', { params: { path, query: { limit: 1001 } } }), 400, 'query.limit must be <= 1000');
      expectError(await server.client().GET('/collections/{collectionId}/spaces', { params: { path } }), 401);
      expectError(await (await newOrg('Other')).client.GET('/collections/{collectionId}/spaces', { params: { path } }), 404);
      await unwrap(org.client.PATCH('/collections/{collectionId}', { ...collectionPath(collection.id), body: { defaultLevel: null } }));
      expectError(await (await member(org, 'read')).GET('/collections/{collectionId}/spaces', { params: { path } }), 404);
    });
  });

  describe('deleteCollectionById', () => {
    it('deletes nested collections and soft-deletes every space inside, which restore to the top level', async () => {
      const org = await newOrg();
      const outer = await createCollection(org, { title: 'Outer' });
      const inner = await createCollection(org, { title: 'Inner', parent: outer.id });
      const survivor = await createCollection(org, { title: 'Survivor' });
      const outerSpace = await createSpace(org, { title: 'Outer space', parent: outer.id });
      const innerSpace = await createSpace(org, { title: 'Inner space', parent: inner.id });
      const elsewhere = await createSpace(org, { title: 'Elsewhere', parent: survivor.id });

      expect((await org.client.DELETE('/collections/{collectionId}', collectionPath(outer.id))).response.status).toBe(204);
      expectError(await org.client.GET('/collections/{collectionId}', collectionPath(outer.id)), 404);
      expectError(await org.client.GET('/collections/{collectionId}', collectionPath(inner.id)), 404);
      expect(await titles(org.client, org.organizationId)).toEqual(['Survivor']);
      const spaces = await unwrap(org.client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } } }));
      expect(spaces.items.map((space) => space.id)).toEqual([elsewhere.id]);
      for (const space of [outerSpace, innerSpace]) {
        expect((await unwrap(org.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }))).deletedAt).toBeDefined();
      }
      // One purge job for both spaces, queued with the deletion: the queue shows nowhere but in storage.
      const [job, ...more] = await storedJobs(server, SPACE_PURGE_JOB, innerSpace.id);
      expect(more).toEqual([]);
      expect((JSON.parse(job!.payload) as { spaceIds: string[] }).spaceIds.sort()).toEqual([outerSpace.id, innerSpace.id].sort());

      const restored = await unwrap(org.client.POST('/spaces/{spaceId}/restore', { params: { path: { spaceId: innerSpace.id } } }));
      expect(restored.parent).toBeUndefined();
      expect(restored.visibility).toBe('private');
      expect((await org.client.DELETE('/collections/{collectionId}', collectionPath(outer.id))).response.status).toBe(204);
    });

    it('answers 204 when absent, 401 without a token, 404 for another organization, 403 below admin', async () => {
      const org = await newOrg();
      const collection = await createCollection(org);
      expect((await org.client.DELETE('/collections/{collectionId}', collectionPath('neverExisted000'))).response.status).toBe(204);
      expectError(await server.client().DELETE('/collections/{collectionId}', collectionPath(collection.id)), 401);
      expectError(await (await newOrg('Other')).client.DELETE('/collections/{collectionId}', collectionPath(collection.id)), 404);
      expectError(await (await member(org, 'create')).DELETE('/collections/{collectionId}', collectionPath(collection.id)), 403);
      expect((await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(collection.id)))).id).toBe(collection.id);
    });
  });

  describe('moveCollection', () => {
    it('reorders siblings with before and after, moves into another collection and back to the top level', async () => {
      const org = await newOrg();
      const made: Record<string, Collection> = {};
      for (const title of ['A', 'B', 'C', 'D']) made[title] = await createCollection(org, { title });
      const move = (title: string, body: Record<string, unknown>) => org.client.POST('/collections/{collectionId}/move', { ...collectionPath(made[title]!.id), body: body as never });
      const pointer = (title: string) => ({ type: 'collection' as const, collection: made[title]!.id });

      await unwrap(move('D', { position: { before: pointer('A') } }));
      expect(await titles(org.client, org.organizationId, false)).toEqual(['D', 'A', 'B', 'C']);
      await unwrap(move('D', { position: { after: pointer('B') } }));
      expect(await titles(org.client, org.organizationId, false)).toEqual(['A', 'B', 'D', 'C']);
      await unwrap(move('A', { position: { after: pointer('C') } }));
      expect(await titles(org.client, org.organizationId, false)).toEqual(['B', 'D', 'C', 'A']);
      // Spaces share the order: a collection can go right after a space.
      const space = await createSpace(org, { title: 'Space' });
      await unwrap(move('B', { position: { after: { type: 'space', space: space.id } } }));
      expect(await titles(org.client, org.organizationId, false)).toEqual(['D', 'C', 'A', 'B']);
      expectError(await move('B', {}), 400);

      const moved = await unwrap(move('C', { parent: made.A!.id }));
      expect(moved.parent).toBe(made.A!.id);
      await unwrap(move('D', { parent: made.A!.id, position: { before: pointer('C') } }));
      expect(await titles(org.client, org.organizationId, false)).toEqual(['A', 'B']);
      const spaceInside = await createSpace(org, { title: 'Inside', parent: made.D!.id });
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: spaceInside.id } } }))).parent).toBe(made.D!.id);
      const back = await unwrap(move('D', { parent: null, position: { before: pointer('B') } }));
      expect(back.parent).toBeUndefined();
      expect(await titles(org.client, org.organizationId, false)).toEqual(['A', 'D', 'B']);
      expect(await spaceTitles(org.client, made.D!.id)).toEqual(['Inside']);
    });

    it('answers 400 moving into itself or a descendant, 409 when nothing changes, 404 for what cannot be found', async () => {
      const org = await newOrg();
      const top = await createCollection(org, { title: 'Top' });
      const child = await createCollection(org, { title: 'Child', parent: top.id });
      const grandchild = await createCollection(org, { title: 'Grandchild', parent: child.id });
      const next = await createCollection(org, { title: 'Next' });
      const move = (collectionId: string, body: unknown) => org.client.POST('/collections/{collectionId}/move', { ...collectionPath(collectionId), body: body as never });

      expectError(await move(top.id, { parent: top.id }), 400, 'body.parent is the collection itself or one of the collections inside it');
      expectError(await move(top.id, { parent: grandchild.id }), 400, 'body.parent is the collection itself or one of the collections inside it');
      expectError(await move(next.id, { parent: null }), 409);
      expectError(await move(top.id, { position: { before: { type: 'collection', collection: next.id } } }), 409);
      expectError(await move(child.id, { parent: top.id }), 409);
      expectError(await move(top.id, { position: { before: { type: 'collection', collection: child.id } } }), 400, 'body.position.before must name a sibling under the destination parent');
      expectError(await move(top.id, { parent: 'doesNotExist' }), 404, 'No collection matches body.parent');
      expectError(await move(top.id, { position: { after: { type: 'space', space: 'doesNotExist' } } }), 404);
      expectError(await move(top.id, { parent: '' }), 400, /body\.parent/);
      expectError(await move(top.id, { parent: null, title: 'x' }), 400, 'body.title is not allowed');
      expect((await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(grandchild.id)))).parent).toBe(child.id);
      expect(await titles(org.client, org.organizationId, false)).toEqual(['Top', 'Next']);
    });

    it('answers 401, 404 for another organization, 403 below admin and without create permission at the destination', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const collection = await createCollection(org, { title: 'Mine' });
      const target = await createCollection(org, { title: 'Target' });
      const body = { parent: target.id };
      expectError(await server.client().POST('/collections/{collectionId}/move', { ...collectionPath(collection.id), body }), 401);
      expectError(await other.client.POST('/collections/{collectionId}/move', { ...collectionPath(collection.id), body }), 404);
      expectError(await (await member(org, 'create')).POST('/collections/{collectionId}/move', { ...collectionPath(collection.id), body }), 403);
      // Admin of the collection through its default level, but only an editor of the organization and of the target.
      await unwrap(org.client.PATCH('/collections/{collectionId}', { ...collectionPath(collection.id), body: { defaultLevel: 'admin' } }));
      const editor = await member(org, 'edit');
      expectError(await editor.POST('/collections/{collectionId}/move', { ...collectionPath(collection.id), body }), 403, 'You need the create permission of the destination collection');
      expect((await editor.POST('/collections/{collectionId}/move', { ...collectionPath(collection.id), body: { position: { after: { type: 'collection', collection: target.id } } } })).response.status).toBe(200);
    });
  });

  describe('transferCollection', () => {
    it('moves the collection and everything inside it to the top level of another organization', async () => {
      const org = await newOrg('Source');
      const target = await newOrg('Target');
      const email = (await unwrap(org.client.GET('/user'))).email!;
      await server.addMember(target.organizationId, email, 'admin');
      await createCollection(target, { title: 'Already there' });
      const parent = await createCollection(org, { title: 'Parent' });
      const moving = await createCollection(org, { title: 'Moving', parent: parent.id });
      const inner = await createCollection(org, { title: 'Inner', parent: moving.id });
      const space = await createSpace(org, { title: 'Inside', parent: inner.id });
      const deletedSpace = await createSpace(org, { title: 'Deleted inside', parent: moving.id });
      await unwrap(org.client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: deletedSpace.id } } }));

      const moved = await unwrap(org.client.POST('/collections/{collectionId}/transfer', { ...collectionPath(moving.id), body: { organization: target.organizationId } }));
      expect(moved).toMatchObject({ id: moving.id, organization: target.organizationId });
      expect(moved.parent).toBeUndefined();
      expect(await titles(org.client, org.organizationId)).toEqual(['Parent']);
      expect(await titles(target.client, target.organizationId)).toEqual(['Already there', 'Moving', 'Inner']);
      expect(await titles(target.client, target.organizationId, false)).toEqual(['Already there', 'Moving']);
      expect(await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(inner.id)))).toMatchObject({ organization: target.organizationId, parent: moving.id });
      expect(await unwrap(org.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }))).toMatchObject({ organization: target.organizationId, parent: inner.id });
      const restored = await unwrap(org.client.POST('/spaces/{spaceId}/restore', { params: { path: { spaceId: deletedSpace.id } } }));
      expect(restored).toMatchObject({ organization: target.organizationId, parent: moving.id });
      expectError(await org.client.POST('/collections/{collectionId}/transfer', { ...collectionPath(moving.id), body: { organization: target.organizationId } }), 409, 'The collection already belongs to this organization');
    });

    it('needs admin of the collection and createContent of the target; 404 for unknown targets; 412 when a space may not leave', async () => {
      const org = await newOrg('Source');
      const readerTarget = await newOrg('Reader target');
      const stranger = await newOrg('Stranger');
      const email = (await unwrap(org.client.GET('/user'))).email!;
      await server.addMember(readerTarget.organizationId, email, 'read');
      const collection = await createCollection(org, { title: 'Staying' });
      const space = await createSpace(org, { parent: collection.id });
      const transfer = (client: QuireClient, body: unknown) => client.POST('/collections/{collectionId}/transfer', { ...collectionPath(collection.id), body: body as never });

      expectError(await transfer(org.client, {}), 400, 'body.organization is required');
      expectError(await transfer(org.client, { organization: readerTarget.organizationId, parent: null }), 400, 'body.parent is not allowed');
      expectError(await transfer(server.client(), { organization: readerTarget.organizationId }), 401);
      expectError(await transfer(stranger.client, { organization: stranger.organizationId }), 404);
      expectError(await transfer(org.client, { organization: stranger.organizationId }), 404, 'No organization matches body.organization');
      expectError(await transfer(org.client, { organization: readerTarget.organizationId }), 403, /createContent/);
      const creator = await member(org, 'create');
      expectError(await transfer(creator, { organization: readerTarget.organizationId }), 403, 'You need the admin permission of this collection');

      const target = await newOrg('Target');
      await server.addMember(target.organizationId, email, 'create');
      const unregister = registerSpaceDepartureCheck(async (_db, { organizationId, spaceIds }) =>
        (organizationId === org.organizationId && spaceIds.includes(space.id) ? 'A space of the collection is published on a docs site of its organization' : undefined));
      try {
        expectError(await transfer(org.client, { organization: target.organizationId }), 412, 'A space of the collection is published on a docs site of its organization');
      } finally {
        unregister();
      }
      expect((await unwrap(org.client.GET('/collections/{collectionId}', collectionPath(collection.id)))).organization).toBe(org.organizationId);
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }))).organization).toBe(org.organizationId);
      expect((await unwrap(transfer(org.client, { organization: target.organizationId }))).organization).toBe(target.organizationId);
    });
  });
});
