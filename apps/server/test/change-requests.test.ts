import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { paginate, unwrap, type QuireClient } from '@quire/client';
import type { ChangeRequest, ChangeRequestContentChange, Space } from '@quire/api-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/ids.js';
import { fetchPdf, makePng } from './support/pdf-fixtures.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { SEARCH_REINDEX_JOB } from '../src/services/search-reindex.js';
import { describeEachDialect } from './dialects.js';
import { createSpace as createSpaceIn, expectError, healthzWhile, newMember, newOrg as createOrg, type TestMember, type TestOrg } from './helpers.js';
import { readPages, readRevision } from './content-fixtures.js';
import { startTestServer, type TestServer } from './server.js';
import { blobsInDatabase, countStoredRows, storedJobs, storedRevision, storedRevisionsOfChangeRequest, storedTree } from './storage-facts.js';
import { setConversationsIssuesCluster } from './storage-setup.js';

describeEachDialect('change requests', (dialect) => {
  let server: TestServer;
  /** A server that refuses local URLs (QUIRE_ALLOW_LOCAL_URLS=false), for the file URL guard. */
  let strictServer: TestServer;
  /** A local web server the file-by-URL changes download from. */
  let files: Server;
  let filesUrl: string;
  const png = makePng(3, 2, (x, y) => [x * 80, y * 100, 50]);

  beforeAll(async () => {
    [server, strictServer] = await Promise.all([
      startTestServer({ dialect }),
      startTestServer({ dialect, env: { QUIRE_ALLOW_LOCAL_URLS: 'false' } }),
    ]);
    files = createServer((req, res) => {
      if (req.url === '/logo.png') {
        res.writeHead(200, { 'Content-Type': 'image/png' });
        res.end(png);
      } else if (req.url === '/big.bin') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        res.end(Buffer.alloc(1024 * 1024 + 1, 7));
      } else {
        res.writeHead(404);
        res.end('missing');
      }
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all([server?.close(), strictServer?.close()]);
    await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
  });

  type Org = TestOrg;

  const newOrg = (on: TestServer = server, title = 'Change requests org'): Promise<Org> => createOrg(on, title);
  const member = (org: Org, role: RoleOrGuest, on: TestServer = server): Promise<TestMember> => newMember(on, org, role);
  const createSpace = (org: Org, body: { title?: string; parent?: string } = {}): Promise<Space> => createSpaceIn(org, { title: 'Docs', ...body });

  async function getSpace(client: QuireClient, spaceId: string): Promise<Space> {
    return unwrap(client.GET('/spaces/{spaceId}', { params: { path: { spaceId } } }));
  }

  const crPath = (spaceId: string, changeRequestId: string | number) => ({ params: { path: { spaceId, changeRequestId: String(changeRequestId) } } });

  async function createCr(client: QuireClient, spaceId: string, body: { subject?: string } = {}): Promise<ChangeRequest> {
    return unwrap(client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body }));
  }

  async function getCr(client: QuireClient, spaceId: string, id: string | number): Promise<ChangeRequest> {
    return unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(spaceId, id)));
  }

  function edit(client: QuireClient, spaceId: string, id: string | number, changes: unknown[]) {
    return client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { ...crPath(spaceId, id), body: { changes: changes as ChangeRequestContentChange[] } });
  }

  async function editOk(client: QuireClient, spaceId: string, id: string | number, changes: unknown[]) {
    return unwrap(edit(client, spaceId, id, changes));
  }

  function setStatus(client: QuireClient, spaceId: string, id: string | number, status: 'draft' | 'open' | 'archived') {
    return client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(spaceId, id), body: { status } });
  }

  function merge(client: QuireClient, spaceId: string, id: string | number) {
    return client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', crPath(spaceId, id));
  }

  function update(client: QuireClient, spaceId: string, id: string | number) {
    return client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/update', crPath(spaceId, id));
  }

  /** Lets the clock move on, so that writes made one after the other get different `updatedAt` (ms) values. */
  const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

  /** The pages of the space's main content, parents first, with their markdown. */
  const mainPages = (client: QuireClient, spaceId: string) => readPages(client, { spaceId });
  /** The pages of a change request's content, parents first, with their markdown. */
  const crPages = (client: QuireClient, spaceId: string, changeRequestId: string) => readPages(client, { spaceId, changeRequestId });

  /** The space's counters must equal what its change requests' statuses say. */
  async function expectCountersExact(client: QuireClient, spaceId: string, expected?: { total: number; open: number; draft: number }): Promise<void> {
    const inStatus = async (status: 'draft' | 'open' | 'archived' | 'merged') => {
      let count = 0;
      for await (const _cr of paginate((page) => client.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query: { status, limit: 100, ...(page ? { page } : {}) } } }))) count++;
      return count;
    };
    const [open, draft, archived, merged] = await Promise.all([inStatus('open'), inStatus('draft'), inStatus('archived'), inStatus('merged')]);
    const actual = { total: open + draft + archived + merged, open, draft };
    if (expected) expect(actual).toEqual(expected);
    const space = await getSpace(client, spaceId);
    expect({ total: space.changeRequests, open: space.changeRequestsOpen, draft: space.changeRequestsDraft }).toEqual(actual);
  }

  /** A space whose main content holds pages `alpha` and `beta` (merged from a first change request). */
  async function spaceWithPages(org: Org): Promise<{ space: Space; alpha: string; beta: string }> {
    const space = await createSpace(org);
    const cr = await createCr(org.client, space.id, { subject: 'Seed' });
    const result = await editOk(org.client, space.id, cr.id, [
      { operation: 'insert_page', title: 'Alpha', document: { markdown: 'a1\na2\na3\na4\na5' }, ref: 'alpha' },
      { operation: 'insert_page', title: 'Beta', document: { markdown: 'b1\nb2\nb3' }, ref: 'beta' },
    ]);
    expect((await unwrap(merge(org.client, space.id, cr.id))).result).toBe('merge');
    const [alpha, beta] = result.changes.map((change) => change.page);
    return { space: await getSpace(org.client, space.id), alpha: alpha!, beta: beta! };
  }

  describe('createChangeRequest', () => {
    it('creates a draft numbered in its space from the current main revision, and counts it', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const result = await org.client.POST('/spaces/{spaceId}/change-requests', {
        params: { path: { spaceId: space.id } },
        body: { subject: 'Fix typos', description: { object: 'document', data: { schemaVersion: 1 }, nodes: [] } },
      });
      expect(result.response.status).toBe(201);
      const cr = result.data!;
      expect(cr).toMatchObject({
        object: 'change-request', number: 1, status: 'draft', subject: 'Fix typos', space: space.id,
        revision: space.revision, revisionInitial: space.revision, comments: 0, outdated: false,
        description: { object: 'document', data: { schemaVersion: 1 }, nodes: [] },
      });
      expect(cr.createdBy).toMatchObject({ object: 'user', id: org.userId });
      expect(cr.createdBy.email).toBeDefined();
      expect(cr.revisionMergedAncestor).toBeUndefined();
      expect(cr.revisionMerged).toBeUndefined();
      expect(cr.urls.location).toMatch(new RegExp(`/v1/spaces/${space.id}/change-requests/${cr.id}$`));
      const second = await createCr(org.client, space.id);
      expect(second).toMatchObject({ number: 2, subject: '' });
      expect(second.description).toBeUndefined();
      await expectCountersExact(org.client, space.id, { total: 2, open: 0, draft: 2 });
    });

    it('numbers 50 concurrent creations 1 to 50 with no gap or duplicate', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const created = await Promise.all(Array.from({ length: 50 }, (_, i) => createCr(org.client, space.id, { subject: `CR ${i}` })));
      expect(created.map((cr) => cr.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      await expectCountersExact(org.client, space.id, { total: 50, open: 0, draft: 50 });
      // Another space counts from 1 again.
      expect((await createCr(org.client, (await createSpace(org)).id)).number).toBe(1);
    });

    it('refuses invalid bodies with 400 naming the field', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const post = (body: unknown) => org.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: body as never });
      expectError(await post({ subject: 'x'.repeat(101) }), 400, /body\.subject/);
      expectError(await post({ status: 'open' }), 400, 'body.status is not allowed');
      expectError(await post({ description: { object: 'text' } }), 400, /body\.description/);
      // Nothing written: no row a list could miss, whatever its status.
      expect(await countStoredRows(server, 'change_requests', space.id)).toBe(0);
      await expectCountersExact(org.client, space.id, { total: 0, open: 0, draft: 0 });
    });

    it('answers 401 without a token, 404 for another organization or an unknown space, 403 below edit and on a locked space', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const path = { params: { path: { spaceId: space.id } }, body: {} };
      expectError(await server.client().POST('/spaces/{spaceId}/change-requests', path), 401);
      const other = await newOrg(server, 'Other');
      expectError(await other.client.POST('/spaces/{spaceId}/change-requests', path), 404);
      expectError(await org.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: 'nope' } }, body: {} }), 404);
      const commenter = await member(org, 'comment');
      expectError(await commenter.client.POST('/spaces/{spaceId}/change-requests', path), 403, /edit permission/);
      const editor = await member(org, 'edit');
      expect((await editor.client.POST('/spaces/{spaceId}/change-requests', path)).response.status).toBe(201);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'locked' } }));
      expectError(await org.client.POST('/spaces/{spaceId}/change-requests', path), 403, /locked/);
      await expectCountersExact(org.client, space.id, { total: 1, open: 0, draft: 1 });
    });
  });

  describe('getChangeRequestById', () => {
    it('finds a request by id or by number, in its own space only', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const other = await createSpace(org);
      const cr = await createCr(org.client, space.id, { subject: 'One' });
      await createCr(org.client, other.id);
      expect(await getCr(org.client, space.id, cr.id)).toEqual(cr);
      expect(await getCr(org.client, space.id, 1)).toEqual(cr);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(space.id, 2)), 404);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(other.id, cr.id)), 404);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(space.id, 'unknown')), 404);
      const reader = await member(org, 'read');
      const seen = await getCr(reader.client, space.id, 1);
      expect(seen.id).toBe(cr.id);
      // E-mail addresses are for the user and organization admins only.
      expect(seen.createdBy.email).toBeUndefined();
      expectError(await server.client().GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(space.id, cr.id)), 401);
      const stranger = await newOrg(server, 'Stranger');
      expectError(await stranger.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(space.id, cr.id)), 404);
    });
  });

  describe('listChangeRequestsForSpace and the same filters on listChangeRequestsForOrganization', () => {
    it('lists open requests by default, newest activity first, with every filter', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const editor = await member(org, 'edit');
      const first = await createCr(org.client, space.id, { subject: 'first' });
      await tick();
      const second = await createCr(editor.client, space.id, { subject: 'second' });
      await tick();
      const third = await createCr(org.client, space.id, { subject: 'third' });
      const list = (query: Record<string, unknown> = {}, client = org.client) =>
        unwrap(client.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id }, query: query as never } }));

      expect(await list()).toEqual({ count: 0, items: [] });
      expect((await list({ status: 'draft' })).items.map((cr) => cr.subject)).toEqual(['third', 'second', 'first']);
      await tick();
      await unwrap(setStatus(org.client, space.id, first.id, 'open'));
      await tick();
      await unwrap(setStatus(org.client, space.id, second.id, 'open'));
      const open = await list();
      expect(open.count).toBe(2);
      expect(open.items.map((cr) => cr.subject)).toEqual(['second', 'first']);
      expect((await list({ status: 'draft' })).items.map((cr) => cr.id)).toEqual([third.id]);

      expect((await list({ creator: editor.userId })).items.map((cr) => cr.id)).toEqual([second.id]);
      // The editor contributes to the first request by editing it; the creator contributes by creating.
      await editOk(editor.client, space.id, first.id, [{ operation: 'insert_page', title: 'By editor', document: { markdown: 'hi' } }]);
      expect((await list({ contributor: editor.userId })).items.map((cr) => cr.id)).toEqual([first.id, second.id]);
      expect((await list({ contributor: org.userId })).items.map((cr) => cr.id)).toEqual([first.id]);
      expect((await list({ contributor: editor.userId, creator: org.userId })).items.map((cr) => cr.id)).toEqual([first.id]);

      await unwrap(editor.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { params: { path: { spaceId: space.id, changeRequestId: second.id } }, body: { users: [org.userId] } }));
      // No operation links clusters yet: the stored field still filters.
      await setConversationsIssuesCluster(server, first.id, 'cluster-1');
      expect((await list({ requestedReviewer: org.userId })).items.map((cr) => cr.id)).toEqual([second.id]);
      expect((await list({ requestedReviewer: editor.userId })).items).toEqual([]);
      const clustered = await list({ conversationsIssuesCluster: 'cluster-1' });
      expect(clustered.items.map((cr) => cr.id)).toEqual([first.id]);
      expect(clustered.items[0]!.conversationsIssuesCluster).toBe('cluster-1');

      const orgList = await unwrap(org.client.GET('/orgs/{organizationId}/change-requests', { params: { path: { organizationId: org.organizationId }, query: { status: 'open', creator: editor.userId } } }));
      expect(orgList.items.map((cr) => cr.id)).toEqual([second.id]);
    });

    it('refuses bad queries, and answers 401 and 404 like every read', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const get = (query: Record<string, unknown>) => org.client.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id }, query: query as never } });
      expectError(await get({ limit: 1001 }), 400, /query\.limit/);
      expectError(await get({ status: 'closed' }), 400, /query\.status/);
      expectError(await get({ creator: '' }), 400, /query\.creator/);
      expectError(await get({ page: 'not-a-cursor' }), 400, /query\.page/);
      expectError(await get({ sort: 'asc' }), 400, /query\.sort/);
      const orgGet = (query: Record<string, unknown>) => org.client.GET('/orgs/{organizationId}/change-requests', { params: { path: { organizationId: org.organizationId }, query: query as never } });
      expectError(await orgGet({ limit: 1001 }), 400, /query\.limit/);
      expectError(await orgGet({ status: 'closed' }), 400, /query\.status/);
      expectError(await server.client().GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } } }), 401);
      expectError(await server.client().GET('/orgs/{organizationId}/change-requests', { params: { path: { organizationId: org.organizationId } } }), 401);
      const other = await newOrg(server, 'Other');
      expectError(await other.client.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } } }), 404);
      expectError(await other.client.GET('/orgs/{organizationId}/change-requests', { params: { path: { organizationId: org.organizationId } } }), 404);
    });

    it('pages through a list with inserts in between, never repeating or skipping', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const existing: string[] = [];
      for (let i = 0; i < 7; i++) {
        existing.push((await createCr(org.client, space.id, { subject: `cr ${i}` })).id);
        await tick();
      }
      const seen: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const result = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests', {
          params: { path: { spaceId: space.id }, query: { status: 'draft', limit: 3, ...(page ? { page } : {}) } },
        }));
        expect(result.count).toBe(7 + pages);
        seen.push(...result.items.map((cr) => cr.id));
        page = result.next?.page;
        pages++;
        // A request created now is newer than everything listed: it goes before the cursor, never into a later page.
        await tick();
        await createCr(org.client, space.id, { subject: `inserted ${pages}` });
      } while (page);
      expect(pages).toBe(3);
      expect(seen).toEqual([...existing].reverse());

      const all: string[] = [];
      for await (const cr of paginate((p) => org.client.GET('/orgs/{organizationId}/change-requests', {
        params: { path: { organizationId: org.organizationId }, query: { status: 'draft', limit: 4, ...(p ? { page: p } : {}) } },
      }))) all.push(cr.id);
      expect(all).toHaveLength(10);
      expect(new Set(all).size).toBe(10);
    });
  });

  describe('listChangeRequestsForOrganization', () => {
    it('lists across the spaces of the organization the caller can see, without deleted spaces', async () => {
      const org = await newOrg();
      const visible = await createSpace(org, { title: 'Visible' });
      const hidden = await createSpace(org, { title: 'Hidden' });
      const deleted = await createSpace(org, { title: 'Deleted' });
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: hidden.id } }, body: { defaultLevel: null } }));
      const inVisible = await createCr(org.client, visible.id);
      await tick();
      const inHidden = await createCr(org.client, hidden.id);
      await createCr(org.client, deleted.id);
      await org.client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: deleted.id } } });
      const otherOrg = await newOrg(server, 'Elsewhere');
      await createCr(otherOrg.client, (await createSpace(otherOrg)).id);

      const list = async (client: QuireClient) => (await unwrap(client.GET('/orgs/{organizationId}/change-requests', {
        params: { path: { organizationId: org.organizationId }, query: { status: 'draft' } },
      }))).items.map((cr) => cr.id);
      expect(await list(org.client)).toEqual([inHidden.id, inVisible.id]);
      const reader = await member(org, 'read');
      expect(await list(reader.client)).toEqual([inVisible.id]);
      const guest = await member(org, null);
      expect(await list(guest.client)).toEqual([]);
    });
  });

  describe('updateChangeRequestById', () => {
    it('changes subject, description and status, keeping the space counters exact', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id, { subject: 'Before' });
      const patch = (body: Record<string, unknown>) => org.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(space.id, cr.number), body: body as never });
      const renamed = await unwrap(patch({ subject: 'After', description: { object: 'document', data: {}, nodes: [] } }));
      expect(renamed).toMatchObject({ id: cr.id, subject: 'After', status: 'draft', description: { object: 'document', nodes: [] } });
      expect(renamed.updatedAt >= cr.updatedAt).toBe(true);
      await expectCountersExact(org.client, space.id, { total: 1, open: 0, draft: 1 });
      expect((await unwrap(patch({ status: 'open' }))).status).toBe('open');
      await expectCountersExact(org.client, space.id, { total: 1, open: 1, draft: 0 });
      expect((await unwrap(patch({ status: 'open' }))).status).toBe('open');
      await expectCountersExact(org.client, space.id, { total: 1, open: 1, draft: 0 });
      expect((await unwrap(patch({ status: 'archived' }))).status).toBe('archived');
      await expectCountersExact(org.client, space.id, { total: 1, open: 0, draft: 0 });
      expect((await unwrap(patch({ status: 'draft', subject: '' }))).subject).toBe('');
      await expectCountersExact(org.client, space.id, { total: 1, open: 0, draft: 1 });

      expectError(await patch({}), 400, /body/);
      expectError(await patch({ status: 'merged' }), 400, /body\.status/);
      expectError(await patch({ subject: 'x'.repeat(101) }), 400, /body\.subject/);
      expectError(await patch({ number: 4 }), 400, 'body.number is not allowed');
    });

    it('answers 401, 404, 403 below edit, and 409 once merged', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const body = { subject: 'x' };
      expectError(await server.client().PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(space.id, cr.id), body }), 401);
      const other = await newOrg(server, 'Other');
      expectError(await other.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(space.id, cr.id), body }), 404);
      expectError(await org.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(space.id, 99), body }), 404);
      const reader = await member(org, 'comment');
      expectError(await reader.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(space.id, cr.id), body }), 403);
      await unwrap(setStatus(org.client, space.id, cr.id, 'open'));
      await unwrap(merge(org.client, space.id, cr.id));
      expectError(await org.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(space.id, cr.id), body }), 409, /merged/);
      expectError(await setStatus(org.client, space.id, cr.id, 'open'), 409);
      expect((await getCr(org.client, space.id, cr.id)).status).toBe('merged');
      await expectCountersExact(org.client, space.id, { total: 1, open: 0, draft: 0 });
    });
  });

  describe('updateChangeRequestContent', () => {
    it('refuses file names that would break the file\'s download address (`.`, `..`, slashes, percent-encodings of them, control characters) with 400, inserting nothing', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const path = crPath(space.id, cr.id);
      for (const name of ['.', '..', 'a/b.png', '../x.png', 'a\\b.png', '%2E%2E', 'a%2Fb.png', 'a%5cb.png', 'a\nb.png', 'a\u007fb.png']) {
        const answer = await org.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { ...path, body: { changes: [{ operation: 'insert_files', files: [{ name, base64: png.toString('base64') }] }] } as never });
        expectError(answer, 400, /pattern/);
      }
      expect((await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', path))).items).toEqual([]);
      // Dots elsewhere and percent signs stay names.
      const kept = await editOk(org.client, space.id, cr.id, [{ operation: 'insert_files', files: [{ name: '...', base64: png.toString('base64') }, { name: '100%.png', base64: png.toString('base64') }] }]);
      expect(kept.insertedFiles!.map((file) => file.name)).toEqual(['...', '100%.png']);
    });

    it('takes a file of the largest size (1 MB) inline, though its base64 passes the default body limit of 1 MB', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const largest = Buffer.alloc(1024 * 1024, 3);
      const kept = await editOk(org.client, space.id, cr.id, [{ operation: 'insert_files', files: [{ name: 'largest.bin', base64: largest.toString('base64') }] }]);
      expect(kept.insertedFiles!.map((file) => [file.name, file.size])).toEqual([['largest.bin', largest.byteLength]]);
    });

    it('applies a batch made against `revision` only while that is still the request\'s revision: 412 and nothing changed once another edit landed, even two racing from the same one', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const path = crPath(space.id, cr.id);
      const conditional = (revision: string, markdown: string, page?: string) =>
        org.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
          ...path,
          body: { revision, changes: [page ? { operation: 'update_page', page, document: { markdown } } : { operation: 'insert_page', title: 'Guide', ref: 'guide', document: { markdown } }] },
        });
      const base = (await getCr(org.client, space.id, cr.id)).revision;
      const created = await unwrap(conditional(base, 'First version.\n'));
      const pageId = created.changes[0]!.page;
      const started = created.changeRequest.revision;
      expect(started).not.toBe(base);

      // Someone else edits the request; a save still resting on the revision before theirs is refused.
      await editOk(org.client, space.id, cr.id, [{ operation: 'update_page', page: pageId, document: { markdown: 'Their version.\n' } }]);
      const theirs = (await getCr(org.client, space.id, cr.id)).revision;
      expectError(await conditional(started, 'My version.\n', pageId), 412, /was edited since revision/);
      expectError(await conditional('no-such-revision', 'My version.\n', pageId), 412, /was edited since revision/);
      const kept = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { spaceId: space.id, changeRequestId: cr.id, pageId }, query: { format: 'markdown' } } }));
      expect(kept.markdown).toBe('Their version.\n');
      expect((await getCr(org.client, space.id, cr.id)).revision).toBe(theirs);

      // Two saves racing from the same revision: exactly one lands, the other is told, none is lost silently.
      const raced = await Promise.all([conditional(theirs, 'Racer A.\n', pageId), conditional(theirs, 'Racer B.\n', pageId)]);
      const statuses = raced.map((answer) => answer.response.status).sort();
      expect(statuses).toEqual([200, 412]);
      const winner = raced.find((answer) => answer.response.status === 200)!.data!;
      const stored = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { spaceId: space.id, changeRequestId: cr.id, pageId }, query: { format: 'markdown' } } }));
      expect(stored.markdown).toBe(winner === raced[0]!.data ? 'Racer A.\n' : 'Racer B.\n');
      expect((await getCr(org.client, space.id, cr.id)).revision).toBe(winner.changeRequest.revision);

      // An empty precondition is bad input.
      expectError(await conditional('', 'x\n', pageId), 400, /revision/);
    });

    it('applies a batch as one new revision of the request, leaving main untouched', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const revisionsBefore = await countStoredRows(server, 'revisions', space.id);
      const result = await editOk(org.client, space.id, cr.number, [
        { operation: 'insert_page', title: 'Guide', document: { markdown: '# Guide' }, ref: 'guide' },
        { operation: 'insert_page', title: 'API', document: { markdown: 'Endpoints' }, ref: 'api', into: 'guide' },
        { operation: 'update_page', page: 'guide', document: { markdown: '# Guide\n\nSee [the API](ref:api).' } },
        { operation: 'update_page', page: 'api', title: 'API reference', slug: 'api' },
        { operation: 'insert_page', title: 'Scratch', document: { markdown: 'tmp' }, ref: 'scratch' },
        { operation: 'delete_page', page: 'scratch' },
      ]);
      expect(result.changes.map((change) => change.object)).toEqual(['created_page', 'created_page', 'updated_page', 'updated_page', 'created_page', 'deleted_page']);
      expect(result.changes[0]).toMatchObject({ ref: 'guide' });
      expect(result.insertedFiles).toBeUndefined();
      const updated = result.changeRequest;
      expect(updated.revision).not.toBe(cr.revision);
      expect(updated.revisionInitial).toBe(cr.revision);
      expect(updated.outdated).toBe(false);
      // The whole batch is one revision: a fact of storage, revisions are not listed.
      expect(await countStoredRows(server, 'revisions', space.id)).toBe(revisionsBefore + 1);
      expect(await readRevision(org.client, { spaceId: space.id, changeRequestId: cr.id })).toMatchObject({ id: updated.revision, type: 'edits', parents: [cr.revision] });
      // Who made it, and for which request, is stored only.
      expect(await storedRevision(server, updated.revision)).toMatchObject({ change_request_id: cr.id, created_by: org.userId });

      const pages = await crPages(org.client, space.id, cr.id);
      const [guide, api] = [result.changes[0]!.page, result.changes[1]!.page];
      expect(pages.map((page) => [page.id, page.title, page.path])).toEqual([[guide, 'Guide', 'guide'], [api, 'API reference', 'guide/api']]);
      expect(pages[0]!.markdown).toContain(`(/pages/${api})`);
      expect(await mainPages(org.client, space.id)).toEqual([]);
      expect((await getCr(org.client, space.id, cr.id)).revision).toBe(updated.revision);
    });

    it('is all or nothing: a bad 10th change leaves no trace', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      // "No trace" is a fact of storage: no revision and no content object written.
      const before = { revisions: await countStoredRows(server, 'revisions', space.id), objects: await countStoredRows(server, 'content_objects'), cr: await getCr(org.client, space.id, cr.id) };
      const changes: unknown[] = Array.from({ length: 9 }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `unique body ${newId()}` } }));
      changes.push({ operation: 'update_page', page: 'no-such-page', title: 'x' });
      expectError(await edit(org.client, space.id, cr.id, changes), 400, /changes\[9\]/);
      expect(await countStoredRows(server, 'revisions', space.id)).toBe(before.revisions);
      expect(await countStoredRows(server, 'content_objects')).toBe(before.objects);
      expect(await getCr(org.client, space.id, cr.id)).toEqual(before.cr);
      // A slug taken among siblings, a move into itself: each names its change.
      expectError(await edit(org.client, space.id, cr.id, [
        { operation: 'insert_page', title: 'A', slug: 'same', document: { markdown: '' } },
        { operation: 'insert_page', title: 'B', slug: 'same', document: { markdown: '' } },
      ]), 400, /changes\[1\].*slug/);
      expectError(await edit(org.client, space.id, cr.id, [
        { operation: 'insert_page', title: 'A', document: { markdown: '' }, ref: 'a' },
        { operation: 'update_page', page: 'a', into: 'a' },
      ]), 400, /changes\[1\]/);
      expect(await getCr(org.client, space.id, cr.id)).toEqual(before.cr);
    });

    it('starts each edit from the request\'s content as stored: a batch refused half-way leaves none of its changes to the next edit', async () => {
      // Edits start from the tree the request's last edit left in the process (services/working-trees.ts),
      // which a batch changes in place: one refused after some of its changes applied must not be reused.
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const created = await editOk(org.client, space.id, cr.id, [
        { operation: 'insert_page', title: 'Alpha', document: { markdown: 'alpha 1\n' }, ref: 'alpha' },
        { operation: 'insert_page', title: 'Beta', document: { markdown: 'beta 1\n' }, ref: 'beta' },
      ]);
      const [alpha, beta] = created.changes.map((change) => change.page);
      await editOk(org.client, space.id, cr.id, [{ operation: 'update_page', page: alpha, document: { markdown: 'alpha 2\n' } }]);
      expectError(await edit(org.client, space.id, cr.id, [
        { operation: 'update_page', page: alpha, title: 'Renamed', document: { markdown: 'alpha refused\n' } },
        { operation: 'delete_page', page: beta },
        { operation: 'insert_page', title: 'Gamma', document: { markdown: 'gamma\n' } },
        { operation: 'update_page', page: 'no-such-page', title: 'x' },
      ]), 400, /changes\[3\]/);
      await editOk(org.client, space.id, cr.id, [{ operation: 'update_page', page: beta, document: { markdown: 'beta 2\n' } }]);
      const pages = await crPages(org.client, space.id, cr.id);
      expect(pages.map((page) => [page.title, page.markdown])).toEqual([['Alpha', 'alpha 2\n'], ['Beta', 'beta 2\n']]);
      await editOk(org.client, space.id, cr.id, [{ operation: 'update_page', page: alpha, title: 'Alpha 3' }]);
      expect((await crPages(org.client, space.id, cr.id)).map((page) => [page.title, page.markdown])).toEqual([['Alpha 3', 'alpha 2\n'], ['Beta', 'beta 2\n']]);
    });

    it('refuses content past the content limits with a 400 naming the limit, and keeps content at the limit readable', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const before = await getCr(org.client, space.id, cr.id);
      // Stored with 200 once, these made every later document read and PDF of the request answer 500.
      const lists = `${'- '.repeat(2000)}deep`;
      const quotes = `${'>'.repeat(5000)} deep`;
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Lists', document: { markdown: lists } }]), 400, /changes\[0\]: document\.markdown nests quotes and lists up to 2000 levels deep; the limit is 32 levels/);
      expectError(await edit(org.client, space.id, cr.id, [
        { operation: 'insert_page', title: 'Fine', document: { markdown: 'fine' }, ref: 'fine' },
        { operation: 'update_page', page: 'fine', document: { markdown: quotes } },
      ]), 400, /changes\[1\]: .*the limit is 32 levels/);
      const emphasis = `${'*a '.repeat(120)}x${' a*'.repeat(120)}`;
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Inline', document: { markdown: emphasis } }]), 400, /the limit is 100 levels/);
      expect(await getCr(org.client, space.id, cr.id)).toEqual(before);

      const atLimit = Array.from({ length: 32 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
      const { changes } = await editOk(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Deep', document: { markdown: atLimit } }]);
      const page = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', {
        params: { path: { spaceId: space.id, changeRequestId: cr.id, pageId: changes[0]!.page }, query: { format: 'document' } },
      }));
      expect(JSON.stringify(page.document)).toContain('level 31');
      const { url } = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', { params: { path: { spaceId: space.id, changeRequestId: cr.id } } }));
      expect((await fetch(url.replace(/^https?:\/\/[^/]+/, server.url))).status).toBe(200);
    });

    it('keeps /healthz answering within 100 ms (p95) while the largest allowed page is written', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const paragraph = (i: number) => `Paragraph ${i} with *some* **text**, \`code\`, a [link](https://example.com/${i}) and [a page](../p${i}.md).`;
      let markdown = '';
      for (let i = 0; markdown.length < 999_000; i++) markdown += `${paragraph(i)}\n\n`;
      markdown = markdown.slice(0, 1_000_000);
      const started = performance.now();
      const { result, answers, p95, max } = await healthzWhile(server.url, edit(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Largest', document: { markdown } }]));
      expect(result.response.status).toBe(200);
      const writeMs = performance.now() - started;
      console.log(`Write of a page of 1,000,000 characters: ${writeMs.toFixed(0)} ms; /healthz meanwhile: ${answers} answers, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
      expect(answers).toBeGreaterThan(5);
      expect(p95).toBeLessThan(100);
      // Stored as written, links made stable where they could be (none of these pages exist).
      const page = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', {
        params: { path: { spaceId: space.id, changeRequestId: cr.id, pageId: result.data!.changes[0]!.page }, query: { format: 'markdown' } },
      }));
      expect(page.markdown).toBe(markdown);
      // Past the limits, refused from the worker thread with the limit named, like smaller content.
      const deep = `${'>'.repeat(40)} deep\n\n${markdown.slice(0, 50_000)}`;
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Deep', document: { markdown: deep } }]), 400, /changes\[0\]: document\.markdown nests quotes and lists up to 40 levels deep; the limit is 32 levels/);
    }, 300_000);

    it('validates the batch against the contract', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      expectError(await edit(org.client, space.id, cr.id, []), 400, /body\.changes/);
      const tooMany = Array.from({ length: 51 }, () => ({ operation: 'delete_page', page: 'x' }));
      expectError(await edit(org.client, space.id, cr.id, tooMany), 400, /body\.changes/);
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'x'.repeat(101), document: { markdown: '' } }]), 400, /body\.changes/);
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'rename_page', page: 'x' }]), 400, /body\.changes/);
      expectError(await org.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { ...crPath(space.id, cr.id), body: {} as never }), 400, /body\.changes is required/);
    });

    it('adds files given in base64 or by URL, with their bytes in the blob storage and a working download URL', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const text = Buffer.from('hello, file');
      const result = await editOk(org.client, space.id, cr.id, [
        { operation: 'insert_files', files: [
          { name: 'hello.txt', base64: text.toString('base64'), ref: 'hello' },
          { name: 'logo.png', url: `${filesUrl}/logo.png`, ref: 'logo' },
        ] },
        { operation: 'insert_page', title: 'Files', document: { markdown: 'Read [hello](ref:hello).\n\n![Logo](ref:logo)' } },
      ]);
      const inserted = result.insertedFiles!;
      expect(inserted.map((file) => [file.name, file.contentType, file.size])).toEqual([['hello.txt', 'text/plain', text.length], ['logo.png', 'image/png', png.length]]);
      expect(inserted[1]!.dimensions).toEqual({ width: 3, height: 2 });
      for (const [file, bytes] of [[inserted[0]!, text], [inserted[1]!, png]] as const) {
        const download = await fetch(file.downloadURL.replace(/^https?:\/\/[^/]+/, server.url));
        expect(download.status).toBe(200);
        expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
      }
      const content = await readRevision(org.client, { spaceId: space.id, changeRequestId: cr.id });
      expect(content.files.map((file) => file.id)).toEqual(inserted.map((file) => file.id));
      // Where the bytes are kept is the subject: in the blob storage, not in the database.
      const blobs = (await storedTree(server, result.changeRequest.revision)).files.map((file) => file.blob);
      expect(blobs).toHaveLength(2);
      expect(await blobsInDatabase(server, blobs)).toEqual([]);
      const [page] = await crPages(org.client, space.id, cr.id);
      expect(page!.markdown).toContain(`/files/${inserted[0]!.id}`);
      expect(page!.markdown).toContain(`/files/${inserted[1]!.id}`);
    });

    it('refuses files over 1 MB, failed downloads, and local URLs unless allowed', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const before = await getCr(org.client, space.id, cr.id);
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'insert_files', files: [{ name: 'big.bin', url: `${filesUrl}/big.bin` }] }]), 400, /changes\[0\]\.files\[0\]\.url.*1 MB/);
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'insert_files', files: [{ name: 'x.png', url: `${filesUrl}/missing.png` }] }]), 400, /HTTP 404/);
      expectError(await edit(org.client, space.id, cr.id, [{ operation: 'insert_files', files: [{ name: 'x', base64: '***' }] }]), 400, /base64/);
      expect(await getCr(org.client, space.id, cr.id)).toEqual(before);

      const strictOrg = await newOrg(strictServer);
      const strictSpace = await unwrap(strictOrg.client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: strictOrg.organizationId } }, body: {} }));
      const strictCr = await unwrap(strictOrg.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: strictSpace.id } }, body: {} }));
      expectError(await edit(strictOrg.client, strictSpace.id, strictCr.id, [{ operation: 'insert_files', files: [{ name: 'logo.png', url: `${filesUrl}/logo.png` }] }]), 400, /QUIRE_ALLOW_LOCAL_URLS/);
      const fine = await unwrap(edit(strictOrg.client, strictSpace.id, strictCr.id, [{ operation: 'insert_files', files: [{ name: 'a.txt', base64: Buffer.from('a').toString('base64') }] }]));
      expect(fine.insertedFiles).toHaveLength(1);
    });

    it('answers 401, 404, 403 below edit or on a locked space, and 409 when archived or merged', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const change = [{ operation: 'insert_page', title: 'P', document: { markdown: 'p' } }];
      expectError(await edit(server.client(), space.id, cr.id, change), 401);
      expectError(await edit((await newOrg(server, 'Other')).client, space.id, cr.id, change), 404);
      expectError(await edit(org.client, space.id, 42, change), 404);
      expectError(await edit((await member(org, 'comment')).client, space.id, cr.id, change), 403);
      expect((await edit((await member(org, 'edit')).client, space.id, cr.id, change)).response.status).toBe(200);

      await unwrap(setStatus(org.client, space.id, cr.id, 'archived'));
      expectError(await edit(org.client, space.id, cr.id, change), 409, /archived/);
      await unwrap(setStatus(org.client, space.id, cr.id, 'open'));
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'locked' } }));
      expectError(await edit(org.client, space.id, cr.id, change), 403, /locked/);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'live' } }));
      await unwrap(merge(org.client, space.id, cr.id));
      expectError(await edit(org.client, space.id, cr.id, change), 409, /merged/);
    });
  });

  describe('mergeChangeRequest', () => {
    it('merges a request into main as a merge revision, marks it merged and queues the search reindex', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      await unwrap(setStatus(org.client, space.id, cr.id, 'open'));
      const edited = await editOk(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Hello', document: { markdown: 'world' } }]);
      await expectCountersExact(org.client, space.id, { total: 1, open: 1, draft: 0 });
      const result = await merge(org.client, space.id, cr.number);
      expect(result.response.status).toBe(200);
      const merged = result.data!;
      expect(merged.result).toBe('merge');
      const after = await getSpace(org.client, space.id);
      expect(after.revision).toBe(merged.revision);
      // As in the public API, a merge revision names the change request it merged.
      expect(await readRevision(org.client, { spaceId: space.id })).toMatchObject({
        id: merged.revision, type: 'merge', parents: [space.revision, edited.changeRequest.revision],
        mergedFrom: { object: 'change-request', id: cr.id, number: cr.number, status: 'merged' },
      });
      // The request a revision was made for is stored only.
      expect((await storedRevision(server, merged.revision)).change_request_id).toBe(cr.id);
      expect((await mainPages(org.client, space.id)).map((page) => [page.title, page.markdown])).toEqual([['Hello', 'world']]);
      const mergedCr = await getCr(org.client, space.id, cr.id);
      expect(mergedCr).toMatchObject({ status: 'merged', revisionMerged: merged.revision, outdated: false });
      await expectCountersExact(org.client, space.id, { total: 1, open: 0, draft: 0 });
      // The reindex is queued in the merge's own transaction; the queue shows nowhere but in storage.
      const jobs = await storedJobs(server, SEARCH_REINDEX_JOB, space.id);
      expect(jobs.map((job) => JSON.parse(job.payload))).toContainEqual({ spaceId: space.id });
      expectError(await merge(org.client, space.id, cr.id), 409, /merged/);
    });

    it('merges two requests with disjoint edits cleanly, one after the other', async () => {
      const org = await newOrg();
      const { space, alpha, beta } = await spaceWithPages(org);
      const one = await createCr(org.client, space.id, { subject: 'one' });
      const two = await createCr(org.client, space.id, { subject: 'two' });
      await editOk(org.client, space.id, one.id, [{ operation: 'update_page', page: alpha, document: { markdown: 'a1 changed\na2\na3\na4\na5' } }]);
      await editOk(org.client, space.id, two.id, [
        { operation: 'update_page', page: alpha, document: { markdown: 'a1\na2\na3\na4\na5 changed' } },
        { operation: 'update_page', page: beta, title: 'Beta renamed' },
        { operation: 'insert_page', title: 'Gamma', document: { markdown: 'g' } },
      ]);
      expect((await unwrap(merge(org.client, space.id, one.id))).result).toBe('merge');
      expect((await getCr(org.client, space.id, two.id)).outdated).toBe(true);
      const second = await unwrap(merge(org.client, space.id, two.id));
      expect(second.result).toBe('merge');
      const main = await mainPages(org.client, space.id);
      expect(main.map((page) => [page.title, page.markdown])).toEqual([
        ['Alpha', 'a1 changed\na2\na3\na4\na5 changed'],
        ['Beta renamed', 'b1\nb2\nb3'],
        ['Gamma', 'g'],
      ]);
      await expectCountersExact(org.client, space.id, { total: 3, open: 0, draft: 0 });
    });

    it('answers the conflicts of overlapping edits and changes nothing', async () => {
      const org = await newOrg();
      const { space, alpha } = await spaceWithPages(org);
      const one = await createCr(org.client, space.id);
      const two = await createCr(org.client, space.id);
      await editOk(org.client, space.id, one.id, [{ operation: 'update_page', page: alpha, title: 'Alpha one', document: { markdown: 'a1\nONE\na3\na4\na5' } }]);
      const twoEdited = await editOk(org.client, space.id, two.id, [{ operation: 'update_page', page: alpha, title: 'Alpha two', document: { markdown: 'a1\nTWO\na3\na4\na5' } }]);
      await unwrap(merge(org.client, space.id, one.id));
      const mainBefore = await getSpace(org.client, space.id);
      // "Changes nothing" is a fact of storage too: no revision written, no job queued.
      const revisionsBefore = await countStoredRows(server, 'revisions', space.id);
      const jobsBefore = await countStoredRows(server, 'jobs');

      const result = await unwrap(merge(org.client, space.id, two.id));
      expect(result).toEqual({
        result: 'conflicts',
        revision: mainBefore.revision,
        conflicts: [
          { page: alpha, path: 'alpha', title: 'Alpha two', kind: 'content' },
          { page: alpha, path: 'alpha', title: 'Alpha two', kind: 'title' },
        ],
      });
      expect(await getSpace(org.client, space.id)).toEqual(mainBefore);
      expect(await countStoredRows(server, 'revisions', space.id)).toBe(revisionsBefore);
      expect(await countStoredRows(server, 'jobs')).toBe(jobsBefore);
      expect(await getCr(org.client, space.id, two.id)).toMatchObject({ status: 'draft', revision: twoEdited.changeRequest.revision, outdated: true });
      await expectCountersExact(org.client, space.id, { total: 3, open: 0, draft: 1 });
    });

    it('answers 401, 404, 403 below review and on a locked space', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      expectError(await merge(server.client(), space.id, cr.id), 401);
      expectError(await merge((await newOrg(server, 'Other')).client, space.id, cr.id), 404);
      expectError(await merge(org.client, space.id, 7), 404);
      expectError(await merge((await member(org, 'edit')).client, space.id, cr.id), 403, /merge permission/);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'locked' } }));
      expectError(await merge(org.client, space.id, cr.id), 403, /locked/);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'live' } }));
      expect((await unwrap(merge((await member(org, 'review')).client, space.id, cr.id))).result).toBe('merge');
      expect(await getCr(org.client, space.id, cr.id)).toMatchObject({ status: 'merged' });
      await expectCountersExact(org.client, space.id, { total: 1, open: 0, draft: 0 });
    });
  });

  describe('updateChangeRequest', () => {
    it('brings main into the request, so it is no longer outdated and merges main-side edits', async () => {
      const org = await newOrg();
      const { space, alpha, beta } = await spaceWithPages(org);
      const mine = await createCr(org.client, space.id);
      await editOk(org.client, space.id, mine.id, [{ operation: 'update_page', page: alpha, document: { markdown: 'a1 mine\na2\na3\na4\na5' } }]);
      const upToDate = await unwrap(update(org.client, space.id, mine.id));
      const current = await getCr(org.client, space.id, mine.id);
      expect(upToDate).toEqual({ result: 'update', revision: current.revision });
      expect(current.revisionMergedAncestor).toBeUndefined();

      const theirs = await createCr(org.client, space.id);
      await editOk(org.client, space.id, theirs.id, [{ operation: 'update_page', page: beta, document: { markdown: 'b1 main\nb2\nb3' } }]);
      await unwrap(merge(org.client, space.id, theirs.id));
      const main = await getSpace(org.client, space.id);
      expect((await getCr(org.client, space.id, mine.id)).outdated).toBe(true);

      const updated = await unwrap(update(org.client, space.id, mine.number));
      expect(updated.result).toBe('update');
      const after = await getCr(org.client, space.id, mine.id);
      expect(after).toMatchObject({ revision: updated.revision, revisionMergedAncestor: main.revision, outdated: false, revisionInitial: mine.revisionInitial });
      expect(await readRevision(org.client, { spaceId: space.id, changeRequestId: mine.id })).toMatchObject({ id: updated.revision, type: 'update', parents: [current.revision, main.revision] });
      // The request a revision was made for is stored only.
      expect((await storedRevision(server, updated.revision)).change_request_id).toBe(mine.id);
      expect((await crPages(org.client, space.id, mine.id)).map((page) => page.markdown)).toEqual(['a1 mine\na2\na3\na4\na5', 'b1 main\nb2\nb3']);
      // Main itself did not move, and the merge now uses the update as its base.
      expect((await getSpace(org.client, space.id)).revision).toBe(main.revision);
      expect((await unwrap(merge(org.client, space.id, mine.id))).result).toBe('merge');
      expect((await mainPages(org.client, space.id)).map((page) => page.markdown)).toEqual(['a1 mine\na2\na3\na4\na5', 'b1 main\nb2\nb3']);
    });

    it('answers conflicts and changes nothing; 401, 404, 403 when locked, 409 when merged', async () => {
      const org = await newOrg();
      const { space, alpha } = await spaceWithPages(org);
      const mine = await createCr(org.client, space.id);
      const theirs = await createCr(org.client, space.id);
      await editOk(org.client, space.id, mine.id, [{ operation: 'delete_page', page: alpha }]);
      await editOk(org.client, space.id, theirs.id, [{ operation: 'update_page', page: alpha, document: { markdown: 'changed on main' } }]);
      await unwrap(merge(org.client, space.id, theirs.id));
      const before = await getCr(org.client, space.id, mine.id);
      const result = await unwrap(update(org.client, space.id, mine.id));
      expect(result).toEqual({ result: 'conflicts', revision: before.revision, conflicts: [{ page: alpha, path: 'alpha', title: 'Alpha', kind: 'deleted' }] });
      expect(await getCr(org.client, space.id, mine.id)).toEqual(before);

      expectError(await update(server.client(), space.id, mine.id), 401);
      expectError(await update((await newOrg(server, 'Other')).client, space.id, mine.id), 404);
      expectError(await update((await member(org, 'comment')).client, space.id, mine.id), 403);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'locked' } }));
      expectError(await update(org.client, space.id, mine.id), 403, /locked/);
      expectError(await update(org.client, space.id, theirs.id), 403, /locked/);
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { editMode: 'live' } }));
      expectError(await update(org.client, space.id, theirs.id), 409, /merged/);
    });
  });

  describe('concurrent writes', () => {
    it('applies concurrent batches on one request one after the other, losing none', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id);
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => editOk(org.client, space.id, cr.id, [
        { operation: 'insert_page', title: `Page ${i}`, document: { markdown: `body ${i}` } },
      ])));
      const final = await getCr(org.client, space.id, cr.id);
      expect(results.map((result) => result.changeRequest.revision)).toContain(final.revision);
      expect((await crPages(org.client, space.id, cr.id)).map((page) => page.title).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `Page ${i}`));
      // Storage shows what no read does: six revisions, each on top of the one before, none lost or forked.
      const revisions = await storedRevisionsOfChangeRequest(server, cr.id);
      expect(revisions).toHaveLength(6);
      const childOf = new Map(revisions.map((revision) => [(JSON.parse(revision.parents) as string[])[0]!, revision.id]));
      const chain = [cr.revision];
      while (childOf.has(chain.at(-1)!)) chain.push(childOf.get(chain.at(-1)!)!);
      expect(chain).toHaveLength(7);
      expect(chain.at(-1)).toBe(final.revision);
    });

    it('merges concurrent merges of disjoint requests on top of each other', async () => {
      const org = await newOrg();
      const { space, alpha, beta } = await spaceWithPages(org);
      const requests = await Promise.all([createCr(org.client, space.id), createCr(org.client, space.id), createCr(org.client, space.id)]);
      await editOk(org.client, space.id, requests[0]!.id, [{ operation: 'update_page', page: alpha, document: { markdown: 'A\na2\na3\na4\na5' } }]);
      await editOk(org.client, space.id, requests[1]!.id, [{ operation: 'update_page', page: beta, document: { markdown: 'b1\nb2\nB' } }]);
      await editOk(org.client, space.id, requests[2]!.id, [{ operation: 'insert_page', title: 'New', document: { markdown: 'n' } }]);
      const merged = await Promise.all(requests.map((cr) => unwrap(merge(org.client, space.id, cr.id))));
      expect(merged.map((result) => result.result)).toEqual(['merge', 'merge', 'merge']);
      const main = await getSpace(org.client, space.id);
      expect(merged.map((result) => result.revision)).toContain(main.revision);
      expect((await mainPages(org.client, space.id)).map((page) => [page.title, page.markdown])).toEqual([
        ['Alpha', 'A\na2\na3\na4\na5'],
        ['Beta', 'b1\nb2\nB'],
        ['New', 'n'],
      ]);
      await expectCountersExact(org.client, space.id, { total: 4, open: 0, draft: 0 });
    });
  });

  describe('getChangeRequestPDF', () => {
    it('keeps /healthz answering within 100 ms (p95) while the PDF of a big change request renders', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id, { subject: 'Big' });
      // Each page: a word of 100,000 characters (which alone held the event loop for 12.8 s), and prose.
      const word = 'x'.repeat(100_000);
      const prose = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} with *some* **text**, \`code\` and [a link](https://example.com/${i}).`).join('\n\n');
      for (let i = 0; i < 3; i++) {
        await editOk(org.client, space.id, cr.id, [{ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `# Page ${i}\n\n${word}\n\n${prose}` } }]);
      }
      const started = performance.now();
      const { result: { url }, answers, p95, max } = await healthzWhile(server.url, unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', crPath(space.id, cr.id))));
      const renderMs = performance.now() - started;
      expect((await fetch(url.replace(/^https?:\/\/[^/]+/, server.url))).status).toBe(200);
      console.log(`PDF of 3 pages with 100,000-character words: ${renderMs.toFixed(0)} ms; /healthz meanwhile: ${answers} answers, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
      expect(answers).toBeGreaterThan(5);
      expect(p95).toBeLessThan(100);
    }, 300_000);

    it('refuses with 422 naming the limit a PDF of more than 1,000,000 characters of markdown, whose pages print one at a time', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id, { subject: 'Two large pages' });
      // Two pages of 600,000 characters: each within the page limit, together past the limit of one PDF.
      const large = (index: number) => `# Large ${index}\n\n${Array.from({ length: 10_000 }, (_, line) => `Line ${line} of a long page, in plain prose.`.padEnd(59, '.')).join('\n\n')}`;
      // One edit each: both in one body would pass the body limit.
      const edited = await editOk(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Large 1', document: { markdown: large(1) } }]);
      await editOk(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Large 2', document: { markdown: large(2) } }]);
      const path = crPath(space.id, cr.id);
      const started = performance.now();
      const refused = await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', path);
      expectError(refused, 422, /more than 1,000,000 characters of markdown.*query\.page/);
      // Refused before anything is read into the worker: no rendering time.
      expect(performance.now() - started).toBeLessThan(3_000);
      const { url } = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', { params: { ...path.params, query: { page: edited.changes[0]!.page, only: true } } }));
      expect((await fetch(url.replace(/^https?:\/\/[^/]+/, server.url))).status).toBe(200);
    }, 120_000);

    it('answers a signed URL that serves a real PDF of the pages, or of one page', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const cr = await createCr(org.client, space.id, { subject: 'Manual' });
      const edited = await editOk(org.client, space.id, cr.id, [
        { operation: 'insert_files', files: [{ name: 'logo.png', base64: png.toString('base64'), ref: 'logo' }] },
        { operation: 'insert_page', title: 'Intro', document: { markdown: '# Welcome\n\n![Logo](ref:logo)' }, ref: 'intro' },
        { operation: 'insert_page', title: 'Details', document: { markdown: 'More *text*.' }, into: 'intro' },
      ]);
      const intro = edited.changes[1]!.page;
      const pdf = async (query: { page?: string; only?: boolean } = {}) => {
        const { url } = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', { ...crPath(space.id, cr.number), params: { ...crPath(space.id, cr.number).params, query } }));
        return fetchPdf(server.url, url);
      };
      const whole = await pdf();
      expect(decodeURIComponent(new URL(whole.url).pathname)).toMatch(/Change request #1 Manual\.pdf$/);
      const one = await pdf({ page: intro, only: true });
      expect(one.bytes.length).toBeLessThan(whole.bytes.length);
      await pdf({ page: intro });

      const get = (query: Record<string, unknown>, client = org.client) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', { params: { path: { spaceId: space.id, changeRequestId: cr.id }, query: query as never } });
      expectError(await get({ only: true }), 400, /query\.only/);
      expectError(await get({ page: 'no-such-page' }), 404);
      expectError(await get({ only: 'maybe' }), 400, /query\.only/);
      expectError(await get({}, server.client()), 401);
      expectError(await get({}, (await newOrg(server, 'Other')).client), 404);
      expect((await get({}, (await member(org, 'read')).client)).response.status).toBe(200);
    });
  });
});
