import { paginate, unwrap, type QuireClient } from '@quire/client';
import type { Space } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { JobRunner } from '../src/jobs/runner.js';
import { spacePurgeJob } from '../src/jobs/space-purge-job.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { registerSpaceDepartureCheck, SPACE_PURGE_JOB, SPACE_RETENTION_MS } from '../src/services/space-lifecycle.js';
import { findSpaceById } from '../src/stores/space-store.js';
import { describeEachDialect } from './dialects.js';
import { createCollection, createSpace, expectError, newMember, newOrg as createOrg, type TestMember, type TestOrg, useTestServer } from './helpers.js';
import { countStoredRows, storedJob, storedJobs, storedRevision, storedSpacePositions } from './storage-facts.js';
import { backdateSpaceDeletion, requeueJobs, setJobsDueAt } from './storage-setup.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const PUBLIC_URL = 'https://docs.example.com';

describeEachDialect('spaces', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });

  type Org = TestOrg;

  const newOrg = (title = 'Spaces org'): Promise<Org> => createOrg(server, title);
  const member = (org: Org, role: RoleOrGuest): Promise<TestMember> => newMember(server, org, role);

  const spacePath = (spaceId: string) => ({ params: { path: { spaceId } } });

  async function listAll(client: QuireClient, organizationId: string): Promise<Space[]> {
    const all: Space[] = [];
    for await (const space of paginate((page) => client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId }, query: { limit: 1000, ...(page ? { page } : {}) } } }))) all.push(space);
    return all;
  }

  async function collectionSpaces(client: QuireClient, collectionId: string): Promise<string[]> {
    const page = await unwrap(client.GET('/collections/{collectionId}/spaces', { params: { path: { collectionId }, query: { limit: 1000 } } }));
    return page.items.map((space) => space.title);
  }

  describe('createSpace', () => {
    it('creates a space with the defaults, an initial empty revision and zero counters', async () => {
      const org = await newOrg();
      const result = await org.client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } }, body: {} });
      expect(result.response.status).toBe(201);
      const space = result.data!;
      expect(space).toMatchObject({
        object: 'space', title: '', emoji: '', visibility: 'private', editMode: 'live', mergeRules: { type: 'inherit' },
        organization: org.organizationId, defaultLevel: 'inherit', comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0,
      });
      expect(space.parent).toBeUndefined();
      expect(space.deletedAt).toBeUndefined();
      expect(space.urls.location).toBe(`${PUBLIC_URL}/v1/spaces/${space.id}`);
      expect(space.urls.app).toBe(`${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}`);
      expect(space.permissions).toEqual({
        view: true, access: true, admin: true, viewInviteLinks: true, edit: true, triggerGitSync: true, comment: true, merge: true, review: true, installIntegration: true,
      });

      const content = await unwrap(org.client.GET('/spaces/{spaceId}/content', spacePath(space.id)));
      expect(content).toMatchObject({ id: space.revision, type: 'edits', parents: [], pages: [], files: [] });
      // Who made the first revision is stored only: no API object shows it.
      expect(await storedRevision(server, space.revision)).toMatchObject({ space_id: space.id, created_by: org.userId, change_request_id: null });
    });

    it('takes title, emoji, language and edit mode, and puts a space in a collection as in-collection', async () => {
      const org = await newOrg();
      const collection = await createCollection(org, { title: 'Guides' });
      const space = await createSpace(org, { title: 'API', emoji: '📘', parent: collection.id });
      expect(space).toMatchObject({ title: 'API', emoji: '📘', parent: collection.id, visibility: 'in-collection' });
      const locked = await unwrap(org.client.POST('/orgs/{organizationId}/spaces', {
        params: { path: { organizationId: org.organizationId } }, body: { title: 'Locked', language: 'pt-br', editMode: 'locked' },
      }));
      expect(locked).toMatchObject({ language: 'pt-br', editMode: 'locked' });
      expect(locked.permissions).toMatchObject({ admin: true, edit: false, merge: false, comment: true });
    });

    it('refuses invalid bodies with 400 naming the field', async () => {
      const org = await newOrg();
      const post = (body: unknown) => org.client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } }, body: body as never });
      expectError(await post({ title: 'x'.repeat(51) }), 400, /body\.title/);
      expectError(await post({ emoji: 'x'.repeat(51) }), 400, /body\.emoji/);
      expectError(await post({ language: 'xx' }), 400, /body\.language/);
      expectError(await post({ editMode: 'frozen' }), 400, /body\.editMode/);
      expectError(await post({ parent: '' }), 400, /body\.parent/);
      expectError(await post({ visibility: 'public' }), 400, 'body.visibility is not allowed');
      expect(await listAll(org.client, org.organizationId)).toEqual([]);
    });

    it('answers 401 without a token, 404 for another organization, 404 for an unknown parent and 403 below the create role', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const otherCollection = await createCollection(other);
      const body = { title: 'x' };
      const path = { params: { path: { organizationId: org.organizationId } } };
      expectError(await server.client().POST('/orgs/{organizationId}/spaces', { ...path, body }), 401);
      expectError(await other.client.POST('/orgs/{organizationId}/spaces', { ...path, body }), 404);
      expectError(await org.client.POST('/orgs/{organizationId}/spaces', { ...path, body: { parent: 'doesNotExist' } }), 404, 'No collection matches body.parent');
      expectError(await org.client.POST('/orgs/{organizationId}/spaces', { ...path, body: { parent: otherCollection.id } }), 404, 'No collection matches body.parent');
      for (const role of ['edit', 'review', 'read'] as const) {
        const someone = await member(org, role);
        expectError(await someone.client.POST('/orgs/{organizationId}/spaces', { ...path, body }), 403);
      }
      const creator = await member(org, 'create');
      const created = await unwrap(creator.client.POST('/orgs/{organizationId}/spaces', { ...path, body }));
      expect(created.permissions).toMatchObject({ view: true, admin: false, edit: true, merge: true });
      expect((await listAll(org.client, org.organizationId)).map((space) => space.id)).toEqual([created.id]);
    });

    it('lets a member create in a collection whose default level gives them create, not at the top level', async () => {
      const org = await newOrg();
      const collection = await createCollection(org);
      await unwrap(org.client.PATCH('/collections/{collectionId}', { params: { path: { collectionId: collection.id } }, body: { defaultLevel: 'create' } }));
      const editor = await member(org, 'edit');
      const path = { params: { path: { organizationId: org.organizationId } } };
      expectError(await editor.client.POST('/orgs/{organizationId}/spaces', { ...path, body: {} }), 403);
      const inside = await unwrap(editor.client.POST('/orgs/{organizationId}/spaces', { ...path, body: { parent: collection.id } }));
      expect(inside.parent).toBe(collection.id);
    });
  });

  describe('getSpaceById', () => {
    it('answers the space with permissions by role, and 404 for another organization exactly like a missing space', async () => {
      const org = await newOrg();
      const space = await createSpace(org, { title: 'Handbook' });
      expect(await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(space.id)))).toEqual(space);
      const withKey = await org.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id }, query: { shareKey: 'some-share-key' } } });
      expect(withKey.data?.id).toBe(space.id);

      const expectations: Array<[RoleOrGuest, Partial<Space['permissions']>]> = [
        ['create', { view: true, admin: false, edit: true, merge: true, review: true, comment: true, viewInviteLinks: false, installIntegration: false }],
        ['review', { view: true, admin: false, edit: true, merge: true, review: true }],
        ['edit', { view: true, edit: true, triggerGitSync: true, merge: false, review: false, comment: true }],
        ['comment', { view: true, access: true, edit: false, comment: true, review: false }],
        ['read', { view: true, access: true, edit: false, comment: false, triggerGitSync: false }],
      ];
      for (const [role, permissions] of expectations) {
        const someone = await member(org, role);
        const seen = await unwrap(someone.client.GET('/spaces/{spaceId}', spacePath(space.id)));
        expect(seen.permissions, String(role)).toMatchObject(permissions);
      }
      const guest = await member(org, null);
      expectError(await guest.client.GET('/spaces/{spaceId}', spacePath(space.id)), 404);

      const other = await newOrg('Other');
      const foreign = await other.client.GET('/spaces/{spaceId}', spacePath(space.id));
      const missing = await other.client.GET('/spaces/{spaceId}', spacePath('doesNotExist0000'));
      expectError(foreign, 404);
      expect(foreign.error).toEqual(missing.error);
      expectError(await server.client().GET('/spaces/{spaceId}', spacePath(space.id)), 401);
      expectError(await org.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id }, query: { shareKey: '' } } }), 400, /query\.shareKey/);
    });

    it('follows default levels: a space or collection level of null hides it from members, a role replaces theirs', async () => {
      const org = await newOrg();
      const reader = await member(org, 'read');
      const writer = await member(org, 'edit');
      const closed = await createCollection(org, { title: 'Closed' });
      await unwrap(org.client.PATCH('/collections/{collectionId}', { params: { path: { collectionId: closed.id } }, body: { defaultLevel: null } }));
      const inClosed = await createSpace(org, { title: 'In closed', parent: closed.id });
      const openedInClosed = await createSpace(org, { title: 'Opened in closed', parent: closed.id });
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { ...spacePath(openedInClosed.id), body: { defaultLevel: 'comment' } }));
      const hidden = await createSpace(org, { title: 'Hidden' });
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { ...spacePath(hidden.id), body: { defaultLevel: null } }));
      const raised = await createSpace(org, { title: 'Raised' });
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { ...spacePath(raised.id), body: { defaultLevel: 'edit' } }));
      const plain = await createSpace(org, { title: 'Plain' });

      expectError(await reader.client.GET('/spaces/{spaceId}', spacePath(inClosed.id)), 404);
      expectError(await reader.client.GET('/spaces/{spaceId}', spacePath(hidden.id)), 404);
      expect((await unwrap(reader.client.GET('/spaces/{spaceId}', spacePath(openedInClosed.id)))).permissions).toMatchObject({ comment: true, edit: false });
      expect((await unwrap(reader.client.GET('/spaces/{spaceId}', spacePath(raised.id)))).permissions).toMatchObject({ edit: true });
      expect((await unwrap(writer.client.GET('/spaces/{spaceId}', spacePath(plain.id)))).permissions).toMatchObject({ edit: true });
      // Administrators see and administrate everything.
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(hidden.id)))).permissions.admin).toBe(true);

      // Lists show exactly what the reads show.
      const visible = (await listAll(reader.client, org.organizationId)).map((space) => space.title).sort();
      expect(visible).toEqual(['Opened in closed', 'Plain', 'Raised']);
      expect((await listAll(org.client, org.organizationId)).map((space) => space.title).sort()).toEqual(['Hidden', 'In closed', 'Opened in closed', 'Plain', 'Raised']);
      const guest = await member(org, null);
      expect(await listAll(guest.client, org.organizationId)).toEqual([]);
    });
  });

  describe('listSpacesInOrganizationById', () => {
    it('pages through every space once, in creation order, while spaces are created between pages', async () => {
      const org = await newOrg();
      const collection = await createCollection(org);
      const titles: string[] = [];
      for (let index = 0; index < 7; index++) {
        titles.push(`S${index}`);
        await createSpace(org, { title: `S${index}`, ...(index % 3 === 0 ? { parent: collection.id } : {}) });
      }
      const path = { organizationId: org.organizationId };
      const first = await unwrap(org.client.GET('/orgs/{organizationId}/spaces', { params: { path, query: { limit: 3 } } }));
      expect(first.count).toBe(7);
      expect(first.items.map((space) => space.title)).toEqual(['S0', 'S1', 'S2']);
      await createSpace(org, { title: 'S7' });
      const second = await unwrap(org.client.GET('/orgs/{organizationId}/spaces', { params: { path, query: { limit: 3, page: first.next!.page } } }));
      expect(second.items.map((space) => space.title)).toEqual(['S3', 'S4', 'S5']);
      await createSpace(org, { title: 'S8' });
      const third = await unwrap(org.client.GET('/orgs/{organizationId}/spaces', { params: { path, query: { limit: 3, page: second.next!.page } } }));
      expect(third.items.map((space) => space.title)).toEqual(['S6', 'S7', 'S8']);
      expect(third.count).toBe(9);
      expect(third.next).toBeUndefined();
    });

    it('leaves deleted spaces out and refuses bad paging with 400; 401 without a token, 404 for another organization', async () => {
      const org = await newOrg();
      const kept = await createSpace(org, { title: 'Kept' });
      const gone = await createSpace(org, { title: 'Gone' });
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(gone.id)));
      const page = await unwrap(org.client.GET('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } } }));
      expect(page.items.map((space) => space.id)).toEqual([kept.id]);
      expect(page.count).toBe(1);
      const path = { organizationId: org.organizationId };
      expectError(await org.client.GET('/orgs/{organizationId}/spaces', { params: { path, query: { limit: 1001 } } }), 400, 'query.limit must be <= 1000');
      expectError(await org.client.GET('/orgs/{organizationId}/spaces', { params: { path, query: { limit: 0 } } }), 400, /query\.limit/);
      expectError(await org.client.GET('/orgs/{organizationId}/spaces', { params: { path, query: { page: 'bm90LWEtY3Vyc29y' } } }), 400, 'query.page is not a valid page cursor');
      expectError(await server.client().GET('/orgs/{organizationId}/spaces', { params: { path } }), 401);
      const other = await newOrg('Other');
      expectError(await other.client.GET('/orgs/{organizationId}/spaces', { params: { path } }), 404);
    });
  });

  describe('updateSpaceById', () => {
    it('changes each setting, keeps the others, and reports a locked space as not editable', async () => {
      const org = await newOrg();
      const reviewer = await member(org, 'review');
      const space = await createSpace(org, { title: 'Before', emoji: '🐢' });
      const patch = (body: Record<string, unknown>) => unwrap(org.client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body: body as never }));

      const titled = await patch({ title: 'After' });
      expect(titled).toMatchObject({ title: 'After', emoji: '🐢', editMode: 'live' });
      expect(Date.parse(titled.updatedAt)).toBeGreaterThanOrEqual(Date.parse(space.updatedAt));
      expect(await patch({ language: 'ja' })).toMatchObject({ language: 'ja', title: 'After' });
      expect(await patch({ emoji: null })).toMatchObject({ emoji: '' });
      expect(await patch({ emoji: '🦊' })).toMatchObject({ emoji: '🦊' });
      expect(await patch({ emoji: '' })).toMatchObject({ emoji: '' });
      expect(await patch({ defaultLevel: 'comment' })).toMatchObject({ defaultLevel: 'comment' });
      expect(await patch({ defaultLevel: 'inherit' })).toMatchObject({ defaultLevel: 'inherit' });
      const rules = { type: 'rules' as const, rules: [{ rule: 'require_specific_reviewers' as const, users: [reviewer.userId] }, { rule: 'require_change_request_subject' as const }] };
      expect((await patch({ mergeRules: rules })).mergeRules).toEqual(rules);
      expect((await patch({ mergeRules: { type: 'none' } })).mergeRules).toEqual({ type: 'none' });

      const locked = await patch({ editMode: 'locked' });
      expect(locked.editMode).toBe('locked');
      expect(locked.permissions).toMatchObject({ admin: true, edit: false, merge: false, triggerGitSync: false, comment: true, review: true });
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(space.id)))).editMode).toBe('locked');
      expect((await unwrap(reviewer.client.GET('/spaces/{spaceId}', spacePath(space.id)))).permissions).toMatchObject({ edit: false, merge: false });
      const live = await patch({ editMode: 'live' });
      expect(live.permissions).toMatchObject({ edit: true, merge: true });
    });

    it('refuses invalid bodies with 400 naming the field and changes nothing', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const space = await createSpace(org, { title: 'Same' });
      const patch = (body: unknown) => org.client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body: body as never });
      expectError(await patch({}), 400, /body/);
      expectError(await patch({ title: 'x'.repeat(51) }), 400, /body\.title/);
      expectError(await patch({ emoji: 'x'.repeat(51) }), 400, /body\.emoji/);
      expectError(await patch({ language: 'klingon' }), 400, /body\.language/);
      expectError(await patch({ editMode: 'frozen' }), 400, /body\.editMode/);
      expectError(await patch({ defaultLevel: 'owner' }), 400, /body\.defaultLevel/);
      expectError(await patch({ mergeRules: { type: 'rules' } }), 400, /body\.mergeRules/);
      expectError(await patch({ mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers' }] } }), 400, /body\.mergeRules/);
      expectError(await patch({ visibility: 'public' }), 400, 'body.visibility is not allowed');
      expectError(await patch({ title: 'New', mergeRules: { type: 'rules', rules: [{ rule: 'allow_bypass', users: [other.userId] }] } }), 400, 'body.mergeRules.rules.0.users.0 is not a member of the organization');
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(space.id)))).title).toBe('Same');
    });

    it('answers 401 without a token, 404 for another organization or a deleted space, 403 below admin', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const body = { title: 'x' };
      expectError(await server.client().PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body }), 401);
      expectError(await (await newOrg('Other')).client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body }), 404);
      for (const role of ['create', 'edit', 'read'] as const) {
        expectError(await (await member(org, role)).client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body }), 403, 'You need the admin permission of this space');
      }
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      expectError(await org.client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body }), 404);
    });
  });

  describe('deleteSpaceById', () => {
    it('deletes, keeps the space readable with deletedAt, queues its purge, and 204s when absent', async () => {
      const org = await newOrg();
      const space = await createSpace(org, { title: 'Doomed' });
      const deleted = await org.client.DELETE('/spaces/{spaceId}', spacePath(space.id));
      expect(deleted.response.status).toBe(204);
      const seen = await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(space.id)));
      expect(seen.deletedAt).toBeDefined();
      expect(seen.permissions).toMatchObject({ view: true, admin: true, edit: false, comment: false });
      expect(await listAll(org.client, org.organizationId)).toEqual([]);
      expect((await org.client.DELETE('/spaces/{spaceId}', spacePath(space.id))).response.status).toBe(204);
      expect((await org.client.DELETE('/spaces/{spaceId}', spacePath('neverExisted000'))).response.status).toBe(204);

      // The purge is queued with the deletion, due when the retention ends: the queue shows nowhere but in storage.
      const [job, ...more] = await storedJobs(server, SPACE_PURGE_JOB, space.id);
      expect(more).toEqual([]);
      expect(JSON.parse(job!.payload)).toEqual({ spaceIds: [space.id] });
      expect(Date.parse(job!.run_at)).toBe(Date.parse(seen.deletedAt!) + SPACE_RETENTION_MS);

      // Other operations treat a deleted space as absent.
      expectError(await org.client.POST('/spaces/{spaceId}/duplicate', spacePath(space.id)), 404);
      expectError(await org.client.POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { parent: null } }), 404);
    });

    it('answers 401, 404 for another organization and 403 below admin', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const space = await createSpace(org);
      const editor = await member(org, 'create');
      expectError(await server.client().DELETE('/spaces/{spaceId}', spacePath(space.id)), 401);
      expectError(await other.client.DELETE('/spaces/{spaceId}', spacePath(space.id)), 404);
      expectError(await editor.client.DELETE('/spaces/{spaceId}', spacePath(space.id)), 403);
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(space.id)))).deletedAt).toBeUndefined();
    });
  });

  describe('restoreSpace', () => {
    it('restores a deleted space as it was, and refuses one that is not deleted with 409', async () => {
      const org = await newOrg();
      const space = await createSpace(org, { title: 'Doomed' });
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      const restored = await unwrap(org.client.POST('/spaces/{spaceId}/restore', spacePath(space.id)));
      expect(restored.deletedAt).toBeUndefined();
      expect(restored).toMatchObject({ id: space.id, title: 'Doomed', revision: space.revision });
      expect((await listAll(org.client, org.organizationId)).map((item) => item.id)).toEqual([space.id]);
      expectError(await org.client.POST('/spaces/{spaceId}/restore', spacePath(space.id)), 409, 'The space is not deleted');
    });

    it('answers 401, 404 for another organization or an unknown space, and 403 below admin', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const space = await createSpace(org);
      const editor = await member(org, 'create');
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      expectError(await server.client().POST('/spaces/{spaceId}/restore', spacePath(space.id)), 401);
      expectError(await other.client.POST('/spaces/{spaceId}/restore', spacePath(space.id)), 404);
      expectError(await editor.client.POST('/spaces/{spaceId}/restore', spacePath(space.id)), 403);
      expectError(await org.client.POST('/spaces/{spaceId}/restore', spacePath('neverExisted000')), 404);
    });
  });

  describe('deleteSpaceById after the 7 days of retention', () => {
    it('a space past its 7 days is gone: unreadable, not restorable, and the queued job removes it for good', async () => {
      const org = await newOrg();
      const space = await createSpace(org, { title: 'Expired' });
      const restoredLater = await createSpace(org, { title: 'Restored' });
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(restoredLater.id)));
      await unwrap(org.client.POST('/spaces/{spaceId}/restore', spacePath(restoredLater.id)));

      // A job that runs before the retention ends (a clock that lags, a manual run) removes nothing.
      // Time travel: the purge jobs are made due now, and later put back in the queue, in storage.
      const ours = [...await storedJobs(server, SPACE_PURGE_JOB, space.id), ...await storedJobs(server, SPACE_PURGE_JOB, restoredLater.id)].map((job) => job.id);
      expect(ours).toHaveLength(2);
      const dueNow = () => setJobsDueAt(server, ours, new Date(Date.now() - 1000));
      await dueNow();
      const early = new JobRunner({ services: server.running.services, handlers: { [SPACE_PURGE_JOB]: spacePurgeJob() } });
      while (await early.runOnce()) { /* drain */ }
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(space.id)))).deletedAt).toBeDefined();

      // Eight days later.
      const later = Date.now() + 8 * DAY_MS;
      await requeueJobs(server, ours);
      await dueNow();
      const runner = new JobRunner({ services: server.running.services, handlers: { [SPACE_PURGE_JOB]: spacePurgeJob({ now: () => later }) } });
      while (await runner.runOnce()) { /* drain */ }
      expect(await Promise.all(ours.map(async (id) => (await storedJob(server, id)).status))).toEqual(['succeeded', 'succeeded']);
      // Removed for good: neither the space nor its revisions are left in storage.
      expect(await findSpaceById(server.db, space.id)).toBeUndefined();
      expect(await countStoredRows(server, 'revisions', space.id)).toBe(0);
      expectError(await org.client.GET('/spaces/{spaceId}', spacePath(space.id)), 404);
      expectError(await org.client.POST('/spaces/{spaceId}/restore', spacePath(space.id)), 404);
      expect((await org.client.DELETE('/spaces/{spaceId}', spacePath(space.id))).response.status).toBe(204);
      // The restored space was left alone.
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(restoredLater.id)))).title).toBe('Restored');
    });

    it('treats a space deleted more than 7 days ago as gone even before its job has run', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      await backdateSpaceDeletion(server, space.id, new Date(Date.now() - 7 * DAY_MS - 60_000));
      expectError(await org.client.GET('/spaces/{spaceId}', spacePath(space.id)), 404);
      expectError(await org.client.POST('/spaces/{spaceId}/restore', spacePath(space.id)), 404);
    });
  });

  describe('duplicateSpace', () => {
    it('copies the settings next to the original and shares its content: one revision row, no new content objects', async () => {
      const org = await newOrg();
      const collection = await createCollection(org);
      const first = await createSpace(org, { title: 'First', parent: collection.id });
      const original = await createSpace(org, { title: 'Original', emoji: '📗', parent: collection.id });
      await createSpace(org, { title: 'Last', parent: collection.id });
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { ...spacePath(original.id), body: { language: 'fr', editMode: 'locked', defaultLevel: 'comment', mergeRules: { type: 'none' } } }));
      // Sharing the content is a fact of storage: one new revision row over the same root, no new object.
      const objectsBefore = await countStoredRows(server, 'content_objects');
      const revisionsBefore = await countStoredRows(server, 'revisions');

      const result = await org.client.POST('/spaces/{spaceId}/duplicate', spacePath(original.id));
      expect(result.response.status).toBe(201);
      const copy = result.data!;
      expect(copy.id).not.toBe(original.id);
      expect(copy.revision).not.toBe(original.revision);
      expect(copy).toMatchObject({
        title: 'Original', emoji: '📗', language: 'fr', editMode: 'locked', defaultLevel: 'comment', mergeRules: { type: 'none' },
        visibility: 'in-collection', parent: collection.id, comments: 0, changeRequests: 0,
      });
      expect(await countStoredRows(server, 'content_objects')).toBe(objectsBefore);
      expect(await countStoredRows(server, 'revisions')).toBe(revisionsBefore + 1);
      const [from, to] = await Promise.all([original.revision, copy.revision].map((id) => storedRevision(server, id)));
      expect(to!.root).toBe(from!.root);
      expect(to!.space_id).toBe(copy.id);
      expect(await collectionSpaces(org.client, collection.id)).toEqual(['First', 'Original', 'Original', 'Last']);
      expect(first.id).toBeTruthy();
    });

    it('answers 401, 404 for another organization, and 403 without create permission where the copy goes', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      expectError(await server.client().POST('/spaces/{spaceId}/duplicate', spacePath(space.id)), 401);
      expectError(await (await newOrg('Other')).client.POST('/spaces/{spaceId}/duplicate', spacePath(space.id)), 404);
      expectError(await (await member(org, 'edit')).client.POST('/spaces/{spaceId}/duplicate', spacePath(space.id)), 403);
      expect((await (await member(org, 'create')).client.POST('/spaces/{spaceId}/duplicate', spacePath(space.id))).response.status).toBe(201);
    });
  });

  describe('moveSpace', () => {
    it('reorders a collection with before and after, moves between collections and to the top level', async () => {
      const org = await newOrg();
      const shelf = await createCollection(org, { title: 'Shelf' });
      const box = await createCollection(org, { title: 'Box' });
      const spaces: Record<string, Space> = {};
      for (const title of ['A', 'B', 'C', 'D']) spaces[title] = await createSpace(org, { title, parent: shelf.id });
      const move = (title: string, body: Record<string, unknown>) => org.client.POST('/spaces/{spaceId}/move', { ...spacePath(spaces[title]!.id), body: body as never });

      await unwrap(move('D', { position: { before: { type: 'space', space: spaces.A!.id } } }));
      expect(await collectionSpaces(org.client, shelf.id)).toEqual(['D', 'A', 'B', 'C']);
      await unwrap(move('D', { position: { after: { type: 'space', space: spaces.B!.id } } }));
      expect(await collectionSpaces(org.client, shelf.id)).toEqual(['A', 'B', 'D', 'C']);
      await unwrap(move('A', { position: { after: { type: 'space', space: spaces.D!.id }, before: { type: 'space', space: spaces.C!.id } } }));
      expect(await collectionSpaces(org.client, shelf.id)).toEqual(['B', 'D', 'A', 'C']);
      await unwrap(move('B', { parent: shelf.id }));
      expect(await collectionSpaces(org.client, shelf.id)).toEqual(['D', 'A', 'C', 'B']);

      const moved = await unwrap(move('A', { parent: box.id }));
      expect(moved).toMatchObject({ parent: box.id, visibility: 'in-collection' });
      expect(await collectionSpaces(org.client, box.id)).toEqual(['A']);
      expect(await collectionSpaces(org.client, shelf.id)).toEqual(['D', 'C', 'B']);

      const top = await unwrap(move('C', { parent: null }));
      expect(top.parent).toBeUndefined();
      expect(top.visibility).toBe('private');
      // At the top level spaces are siblings of collections (Shelf, Box, then C): place C between them.
      await unwrap(move('C', { position: { after: { type: 'collection', collection: shelf.id } } }));
      expectError(await move('C', { position: { before: { type: 'collection', collection: box.id } } }), 409);
      expectError(await move('C', { position: { after: { type: 'collection', collection: shelf.id } } }), 409);
      expect((await unwrap(move('C', { position: { before: { type: 'collection', collection: shelf.id } } }))).parent).toBeUndefined();
      expectError(await move('C', { parent: null, position: { before: { type: 'collection', collection: shelf.id } } }), 409);
    });

    it('keeps positions distinct when creates and moves in one organization run concurrently', async () => {
      const org = await newOrg();
      const shelf = await createCollection(org, { title: 'Shelf' });
      const created = await Promise.all(Array.from({ length: 12 }, (_, index) => createSpace(org, { title: `C${index}`, parent: shelf.id })));
      // Concurrent creations land in any order: take the anchor and the movers from the order they got, so
      // that no mover already sits right after the anchor (that move would rightly be a 409).
      const byTitle = new Map(created.map((space) => [space.title, space]));
      const landed = (await collectionSpaces(org.client, shelf.id)).map((title) => byTitle.get(title)!);
      const anchor = landed[0]!;
      const movers = landed.slice(6);
      const moved = await Promise.all(movers.map((space) => org.client.POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { position: { after: { type: 'space', space: anchor.id } } } })));
      expect(moved.map((result) => result.response.status)).toEqual([200, 200, 200, 200, 200, 200]);
      // No two spaces share an order key (ties would list in an arbitrary order): keys are stored only.
      expect(new Set(await storedSpacePositions(server, shelf.id)).size).toBe(12);
      const order = await collectionSpaces(org.client, shelf.id);
      expect(order).toHaveLength(12);
      expect(order[0]).toBe(anchor.title);
      expect(order.slice(1, 7).sort()).toEqual(movers.map((space) => space.title).sort());
    });

    it('answers 409 when nothing would change, 400 for a pointer that is not a sibling, 404 for what cannot be found', async () => {
      const org = await newOrg();
      const shelf = await createCollection(org);
      const elsewhere = await createCollection(org);
      const first = await createSpace(org, { title: 'First', parent: shelf.id });
      const second = await createSpace(org, { title: 'Second', parent: shelf.id });
      const outside = await createSpace(org, { title: 'Outside', parent: elsewhere.id });
      const move = (spaceId: string, body: unknown) => org.client.POST('/spaces/{spaceId}/move', { ...spacePath(spaceId), body: body as never });

      expectError(await move(second.id, { parent: shelf.id }), 409);
      expectError(await move(first.id, { position: { before: { type: 'space', space: second.id } } }), 409);
      expectError(await move(second.id, { position: { after: { type: 'space', space: first.id } } }), 409);
      expectError(await move(first.id, { position: { before: { type: 'space', space: first.id } } }), 400, /body\.position\.before/);
      expectError(await move(first.id, { position: { before: { type: 'space', space: outside.id } } }), 400, 'body.position.before must name a sibling under the destination parent');
      expectError(await move(first.id, { position: { before: { type: 'space', space: 'doesNotExist' } } }), 404, 'No space matches body.position.before.space');
      expectError(await move(first.id, { position: { after: { type: 'collection', collection: 'doesNotExist' } } }), 404, 'No collection matches body.position.after.collection');
      expectError(await move(first.id, { parent: 'doesNotExist' }), 404, 'No collection matches body.parent');
      const third = await createSpace(org, { title: 'Third', parent: shelf.id });
      expectError(await move(third.id, { position: { after: { type: 'space', space: first.id }, before: { type: 'space', space: third.id } } }), 400);
      expectError(await move(first.id, { position: { after: { type: 'space', space: first.id }, before: { type: 'space', space: third.id } } }), 400);
      expectError(await move(third.id, { position: { before: { type: 'space', space: first.id }, after: { type: 'space', space: second.id } } }), 400, /next to each other/);
      expectError(await move(first.id, {}), 400, /body/);
      expectError(await move(first.id, { parent: '' }), 400, /body\.parent/);
      expectError(await move(first.id, { position: { before: { type: 'page', page: 'x' } } }), 400, /body\.position/);
      expectError(await move(first.id, { parent: null, extra: 1 }), 400, 'body.extra is not allowed');
      expect(await collectionSpaces(org.client, shelf.id)).toEqual(['First', 'Second', 'Third']);
    });

    it('answers 401, 404 for another organization, 403 below admin and without create permission at the destination', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const shelf = await createCollection(org);
      const space = await createSpace(org, { parent: shelf.id });
      expectError(await server.client().POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { parent: null } }), 401);
      expectError(await other.client.POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { parent: null } }), 404);
      const otherCollection = await createCollection(other);
      expectError(await org.client.POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { parent: otherCollection.id } }), 404);
      expectError(await (await member(org, 'create')).client.POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { parent: null } }), 403);
      // Admin of the space through its default level, but only an editor of the organization.
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body: { defaultLevel: 'admin' } }));
      const editor = await member(org, 'edit');
      expectError(await editor.client.POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { parent: null } }), 403, /createContent/);
      const sibling = await createSpace(org, { parent: shelf.id });
      expect((await editor.client.POST('/spaces/{spaceId}/move', { ...spacePath(space.id), body: { position: { after: { type: 'space', space: sibling.id } } } })).response.status).toBe(200);
    });
  });

  describe('transferSpace', () => {
    it('moves the space to another organization where the caller can create, optionally into a collection', async () => {
      const org = await newOrg();
      const target = await newOrg('Target');
      const email = (await unwrap(org.client.GET('/user'))).email!;
      await server.addMember(target.organizationId, email, 'admin');
      const shelf = await createCollection(org);
      const space = await createSpace(org, { title: 'Travelling', parent: shelf.id });
      const targetCollection = await createCollection(target, { title: 'Arrivals' });

      const moved = await unwrap(org.client.POST('/spaces/{spaceId}/transfer', { ...spacePath(space.id), body: { organization: target.organizationId } }));
      expect(moved).toMatchObject({ organization: target.organizationId, visibility: 'private', revision: space.revision });
      expect(moved.parent).toBeUndefined();
      expect(await listAll(org.client, org.organizationId)).toEqual([]);
      expect((await listAll(target.client, target.organizationId)).map((item) => item.id)).toContain(space.id);
      expect((await unwrap(target.client.GET('/spaces/{spaceId}/content', spacePath(space.id)))).id).toBe(space.revision);

      const inCollection = await unwrap(org.client.POST('/spaces/{spaceId}/transfer', { ...spacePath(space.id), body: { organization: target.organizationId, collection: targetCollection.id } }));
      expect(inCollection).toMatchObject({ organization: target.organizationId, parent: targetCollection.id });
      expect(await collectionSpaces(target.client, targetCollection.id)).toEqual(['Travelling']);
      expectError(await org.client.POST('/spaces/{spaceId}/transfer', { ...spacePath(space.id), body: { organization: target.organizationId, collection: targetCollection.id } }), 409);
      const backToTop = await unwrap(org.client.POST('/spaces/{spaceId}/transfer', { ...spacePath(space.id), body: { organization: target.organizationId } }));
      expect(backToTop.parent).toBeUndefined();
      expectError(await org.client.POST('/spaces/{spaceId}/transfer', { ...spacePath(space.id), body: { organization: target.organizationId } }), 409, 'The space is already in this place');
    });

    it('answers 404 for unknown targets, 403 without rights on either side, 412 when the space may not leave, 400 for bad bodies', async () => {
      const org = await newOrg();
      const readerOrg = await newOrg('Reader target');
      const stranger = await newOrg('Stranger');
      const email = (await unwrap(org.client.GET('/user'))).email!;
      await server.addMember(readerOrg.organizationId, email, 'read');
      const space = await createSpace(org, { title: 'Stay' });
      const transfer = (client: QuireClient, body: unknown) => client.POST('/spaces/{spaceId}/transfer', { ...spacePath(space.id), body: body as never });

      expectError(await transfer(org.client, {}), 400, 'body.organization is required');
      expectError(await transfer(org.client, { organization: '' }), 400, /body\.organization/);
      expectError(await transfer(org.client, { organization: readerOrg.organizationId, extra: true }), 400, 'body.extra is not allowed');
      expectError(await transfer(server.client(), { organization: readerOrg.organizationId }), 401);
      expectError(await transfer(stranger.client, { organization: stranger.organizationId }), 404);
      expectError(await transfer(org.client, { organization: stranger.organizationId }), 404, 'No organization matches body.organization');
      expectError(await transfer(org.client, { organization: readerOrg.organizationId }), 403, /createContent/);
      const strangerCollection = await createCollection(stranger);
      expectError(await transfer(org.client, { organization: org.organizationId, collection: strangerCollection.id }), 404, 'No collection matches body.collection');
      expectError(await transfer((await member(org, 'create')).client, { organization: org.organizationId, collection: 'x' }), 403);

      const target = await newOrg('Target');
      await server.addMember(target.organizationId, email, 'create');
      const unregister = registerSpaceDepartureCheck(async (_db, { spaceIds }) => (spaceIds.includes(space.id) ? 'The space is published on a docs site of its organization' : undefined));
      try {
        expectError(await transfer(org.client, { organization: target.organizationId }), 412, 'The space is published on a docs site of its organization');
        // Moving within the organization is not leaving it.
        const shelf = await createCollection(org);
        expect((await unwrap(transfer(org.client, { organization: org.organizationId, collection: shelf.id }))).parent).toBe(shelf.id);
      } finally {
        unregister();
      }
      expect((await unwrap(org.client.GET('/spaces/{spaceId}', spacePath(space.id)))).organization).toBe(org.organizationId);
      expect((await unwrap(transfer(org.client, { organization: target.organizationId }))).organization).toBe(target.organizationId);
    });
  });
});
