import { unwrap, type QuireClient } from '@quire/client';
import type { RevisionPage } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { markdownHash } from '../src/content/index.js';
import { contentFixtures, crPath, md, textFile } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, type TestOrg, useTestServer } from './helpers.js';
import { commitMainRevision } from './storage-setup.js';

const PUBLIC_URL = 'https://docs.example.com';

describeEachDialect('revisions', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });
  const f = contentFixtures(() => server);

  const titles = (pages: RevisionPage[]): unknown[] => pages.map((page) => (page.pages.length > 0 ? [page.title, titles(page.pages)] : page.title));

  /**
   * A space whose main content went through two merges: `first` (Guide with Install, Reference, notes.txt),
   * then `second` (Install rewritten, Reference deleted, logo.txt added); and an open change request with a
   * Draft page on top of `second`. Reads change nothing, so the suites share it.
   */
  async function history(org: TestOrg) {
    const space = await createSpace(org);
    const one = await f.editMain(org, space.id, [
      { operation: 'insert_page', title: 'Guide', document: md('# Guide'), ref: 'guide' },
      { operation: 'insert_page', title: 'Install', document: md('Run the installer.'), into: 'guide', ref: 'install' },
      { operation: 'insert_page', title: 'Reference', document: md(''), ref: 'reference' },
      textFile('notes.txt', 'hello notes'),
    ]);
    const first = (await f.getSpace(org.client, space.id)).revision;
    const install = f.pageOf(one, 'install');
    const reference = f.pageOf(one, 'reference');
    const two = await f.editMain(org, space.id, [
      { operation: 'update_page', page: install, document: md('Run the **new** installer.') },
      { operation: 'delete_page', page: reference },
      textFile('logo.txt', 'logo'),
    ]);
    const second = (await f.getSpace(org.client, space.id)).revision;
    const cr = await f.createCr(org.client, space.id);
    const draft = await f.editCr(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Draft', document: md('Not merged *yet*.'), ref: 'draft' }]);
    return {
      space, first, second, cr, install, reference,
      initial: space.revision,
      guide: f.pageOf(one, 'guide'),
      notes: one.insertedFiles![0]!,
      logo: two.insertedFiles![0]!,
      draft: f.pageOf(draft, 'draft'),
      crRevision: draft.changeRequest.revision,
    };
  }

  let shared: Promise<{ org: TestOrg } & Awaited<ReturnType<typeof history>>> | undefined;
  const sharedHistory = () => (shared ??= (async () => {
    const org = await newOrg(server);
    return { org, ...(await history(org)) };
  })());

  const revisionPath = (spaceId: string, revisionId: string) => ({ spaceId, revisionId });

  async function pageInRevision(client: QuireClient, spaceId: string, revisionId: string, pageId: string, query: { format?: 'markdown' | 'document'; evaluated?: boolean | 'deterministic-only' } = {}) {
    return unwrap(client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', { params: { path: { ...revisionPath(spaceId, revisionId), pageId }, query } }));
  }

  /** Every read of a revision by id, for the checks they share (access, other spaces, missing revisions). */
  function revisionReads(ids: { pageId: string; fileId: string; pagePath: string }) {
    return [
      (client: QuireClient, path: { spaceId: string; revisionId: string }) => client.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path } }),
      (client: QuireClient, path: { spaceId: string; revisionId: string }) => client.GET('/spaces/{spaceId}/revisions/{revisionId}/pages', { params: { path } }),
      (client: QuireClient, path: { spaceId: string; revisionId: string }) => client.GET('/spaces/{spaceId}/revisions/{revisionId}/files', { params: { path } }),
      (client: QuireClient, path: { spaceId: string; revisionId: string }) => client.GET('/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}', { params: { path: { ...path, fileId: ids.fileId } } }),
      (client: QuireClient, path: { spaceId: string; revisionId: string }) => client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', { params: { path: { ...path, pageId: ids.pageId } } }),
      (client: QuireClient, path: { spaceId: string; revisionId: string }) => client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', { params: { path: { ...path, pageId: ids.pageId } } }),
      (client: QuireClient, path: { spaceId: string; revisionId: string }) => client.GET('/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}', { params: { path: { ...path, pagePath: ids.pagePath } } }),
    ];
  }

  describe('getRevisionById', () => {
    it('answers an earlier revision as it was, the current one as getCurrentRevision does, and a merge with the request it merged', async () => {
      const { org, space, first, second } = await sharedHistory();
      const old = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: revisionPath(space.id, first) } }));
      expect(old).toMatchObject({ object: 'revision', id: first, type: 'merge', urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/~/revisions/${first}` } });
      expect(titles(old.pages)).toEqual([['Guide', ['Install']], 'Reference']);
      expect(old.files.map((file) => file.name)).toEqual(['notes.txt']);
      expect(old.mergedFrom).toMatchObject({ object: 'change-request', status: 'merged' });
      const current = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: revisionPath(space.id, second) } }));
      expect(current.parents).toContain(first);
      expect(current).toEqual(await unwrap(org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: space.id } } })));
    });

    it('answers the first, empty revision of the space and the revision of a change request', async () => {
      const { org, space, initial, crRevision } = await sharedHistory();
      const empty = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: revisionPath(space.id, initial), query: { metadata: false, computed: true } } }));
      expect(empty).toMatchObject({ id: initial, type: 'edits', pages: [], files: [], parents: [] });
      const request = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: revisionPath(space.id, crRevision) } }));
      expect(titles(request.pages)).toEqual([['Guide', ['Install']], 'Draft']);
    });

    it('answers 404 for a missing revision, a revision of another space and another organization, 401 without a token', async () => {
      const { org, space, first, guide, notes } = await sharedHistory();
      const otherSpace = await createSpace(org);
      const other = await newOrg(server, 'Other');
      const reader = await newMember(server, org, 'read');
      const guest = await newMember(server, org, null);
      for (const read of revisionReads({ pageId: guide, fileId: notes.id, pagePath: 'guide' })) {
        expect((await read(reader.client, revisionPath(space.id, first))).response.status).toBe(200);
        expectError(await read(org.client, revisionPath(space.id, 'missing')), 404, 'No revision of this space matches this id');
        expectError(await read(org.client, revisionPath(otherSpace.id, first)), 404, 'No revision of this space matches this id');
        expectError(await read(other.client, revisionPath(space.id, first)), 404);
        expectError(await read(guest.client, revisionPath(space.id, first)), 404);
        expectError(await read(server.client(), revisionPath(space.id, first)), 401);
      }
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: revisionPath(space.id, first), query: { metadata: 'maybe' as never } } }), 400, /metadata/);
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}', { params: { path: revisionPath(space.id, 'x'.repeat(129)) } }), 400, /revisionId/);
    });
  });

  describe('listPagesInRevisionById', () => {
    it('answers the page tree of the revision, without content', async () => {
      const { org, space, first, second, install } = await sharedHistory();
      const { pages } = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/pages', { params: { path: revisionPath(space.id, first) } }));
      expect(titles(pages)).toEqual([['Guide', ['Install']], 'Reference']);
      expect(pages[0]!.pages[0]).toMatchObject({ id: install, path: 'guide/install', urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/guide/install` } });
      expect(JSON.stringify(pages)).not.toContain('markdown');
      const now = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/pages', { params: { path: revisionPath(space.id, second), query: { metadata: false } } }));
      expect(titles(now.pages)).toEqual([['Guide', ['Install']]]);
    });
  });

  describe('listFilesInRevisionById', () => {
    it('pages through the files of the revision by name', async () => {
      const { org, space, first, second } = await sharedHistory();
      const old = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/files', { params: { path: revisionPath(space.id, first) } }));
      expect(old).toMatchObject({ count: 1, items: [{ name: 'notes.txt' }] });
      const page1 = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/files', { params: { path: revisionPath(space.id, second), query: { limit: 1 } } }));
      expect(page1.items.map((file) => file.name)).toEqual(['logo.txt']);
      const page2 = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/files', { params: { path: revisionPath(space.id, second), query: { limit: 1, page: page1.next!.page } } }));
      expect(page2.items.map((file) => file.name)).toEqual(['notes.txt']);
      expect(page2.next).toBeUndefined();
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/files', { params: { path: revisionPath(space.id, second), query: { limit: 1001 } } }), 400, /limit/);
    });
  });

  describe('getFileInRevisionById', () => {
    it('answers a file of the revision with a download URL, and 404 for a file added later', async () => {
      const { org, space, first, notes, logo } = await sharedHistory();
      const file = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}', { params: { path: { ...revisionPath(space.id, first), fileId: notes.id } } }));
      expect(file).toMatchObject({ id: notes.id, name: 'notes.txt', contentType: 'text/plain', size: 11 });
      expect(await (await fetch(file.downloadURL.replace(PUBLIC_URL, server.url))).text()).toBe('hello notes');
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}', { params: { path: { ...revisionPath(space.id, first), fileId: logo.id } } }), 404, 'No file matches this id');
    });
  });

  describe('getPageInRevisionById', () => {
    it('answers the page as the revision has it, with its documentId', async () => {
      const { org, space, first, second, install, reference } = await sharedHistory();
      const old = await pageInRevision(org.client, space.id, first, install);
      expect(old).toMatchObject({ id: install, title: 'Install', type: 'document', path: 'guide/install', markdown: 'Run the installer.', documentId: `${first}.${install}` });
      expect((await pageInRevision(org.client, space.id, second, install, { format: 'markdown' })).markdown).toBe('Run the **new** installer.');
      const document = await pageInRevision(org.client, space.id, second, install, { format: 'document' });
      expect(document.markdown).toBeUndefined();
      expect(JSON.stringify(document.document)).toContain('"bold"');
      expect((await pageInRevision(org.client, space.id, first, reference)).markdown).toBe('');
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}', { params: { path: { ...revisionPath(space.id, second), pageId: reference } } }), 404, 'No page matches this id');
    });
  });

  describe('getPageDocumentInRevisionById', () => {
    it('answers the content of the page as a document alone, evaluated when asked, and 404 for a group', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await commitMainRevision(server, space.id, (tree, writer) => {
        tree.insertPage({ id: 'group1', title: 'Group', type: 'group' }, { into: null });
        tree.insertPage({ id: 'vars1', title: 'Vars', variables: { version: '2.1' }, content: markdownHash(writer, 'Version {{ page.vars.version }}.') ?? null }, { into: null });
      });
      const { revision } = await f.getSpace(org.client, space.id);
      const path = (pageId: string) => ({ ...revisionPath(space.id, revision), pageId });
      const plain = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', { params: { path: path('vars1') } }));
      expect(plain).toMatchObject({ object: 'document', data: { schemaVersion: 1 } });
      expect(JSON.stringify(plain)).toContain('{{ page.vars.version }}');
      const evaluated = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', { params: { path: path('vars1'), query: { evaluated: true } } }));
      expect(JSON.stringify(evaluated)).toContain('Version 2.1.');
      expect(plain).toEqual((await pageInRevision(org.client, space.id, revision, 'vars1', { format: 'document' })).document);
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', { params: { path: path('group1') } }), 404, /no document/);
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', { params: { path: path('missing') } }), 404, 'No page matches this id');
      expectError(await org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document', { params: { path: path('vars1'), query: { format: 'markdown' } as never } }), 400, /format/);
    });
  });

  describe('getPageInRevisionByPath', () => {
    it('answers the page at a path of the revision, the path sent encoded or with its slashes', async () => {
      const { org, space, first, second, install, reference } = await sharedHistory();
      const byPath = (revisionId: string, pagePath: string) => org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}', { params: { path: { ...revisionPath(space.id, revisionId), pagePath } } });
      expect(await unwrap(byPath(first, 'guide/install'))).toMatchObject({ id: install, markdown: 'Run the installer.' });
      expect(await unwrap(byPath(second, 'guide/install'))).toMatchObject({ id: install, markdown: 'Run the **new** installer.' });
      expect(await unwrap(byPath(first, 'reference'))).toMatchObject({ id: reference });
      expectError(await byPath(second, 'reference'), 404, 'No page matches this path');
      const raw = await fetch(`${server.url}/v1/spaces/${space.id}/revisions/${first}/path/guide/install?format=markdown`, { headers: { authorization: `Bearer ${org.token}` } });
      expect(raw.status).toBe(200);
      expect(await raw.json()).toMatchObject({ id: install, path: 'guide/install' });
    });
  });

  describe('getPageByPath', () => {
    it('answers the page at a path of the main content, groups without content, and 404 for other paths', async () => {
      const { org, space, guide, install } = await sharedHistory();
      const byPath = (pagePath: string, query: { format?: 'markdown' | 'document' } = {}) => org.client.GET('/spaces/{spaceId}/content/path/{pagePath}', { params: { path: { spaceId: space.id, pagePath }, query } });
      expect(await unwrap(byPath('guide'))).toMatchObject({ id: guide, title: 'Guide', markdown: '# Guide', pages: [{ id: install }] });
      expect(await unwrap(byPath('guide/install', { format: 'document' }))).toMatchObject({ id: install, document: { object: 'document' } });
      expect(await unwrap(byPath('/guide/install/'))).toMatchObject({ id: install });
      expectError(await byPath('reference'), 404, 'No page matches this path');
      expectError(await byPath('draft'), 404, 'No page matches this path');
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/content/path/{pagePath}', { params: { path: { spaceId: space.id, pagePath: 'guide' } } }), 404);
      expectError(await server.client().GET('/spaces/{spaceId}/content/path/{pagePath}', { params: { path: { spaceId: space.id, pagePath: 'guide' } } }), 401);
      expectError(await byPath('guide', { format: 'html' as never }), 400, /format/);
      const space2 = await createSpace(org);
      await commitMainRevision(server, space2.id, (tree) => {
        tree.insertPage({ id: 'group1', title: 'Group', type: 'group' }, { into: null });
      });
      const group = await unwrap(org.client.GET('/spaces/{spaceId}/content/path/{pagePath}', { params: { path: { spaceId: space2.id, pagePath: 'group' } } }));
      expect(group).toMatchObject({ id: 'group1', type: 'group' });
      expect(group.markdown).toBeUndefined();
      expect(group.documentId).toBeUndefined();
    });
  });

  describe('getPageInChangeRequestByPath', () => {
    it('answers the page at a path of the change request, by id or number', async () => {
      const { org, space, cr, draft, install } = await sharedHistory();
      const byPath = (changeRequestId: string | number, pagePath: string) => org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/path/{pagePath}', { params: { path: { ...crPath(space.id, changeRequestId), pagePath } } });
      expect(await unwrap(byPath(cr.id, 'draft'))).toMatchObject({ id: draft, markdown: 'Not merged *yet*.', urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/~/changes/${cr.number}/draft` } });
      expect(await unwrap(byPath(cr.number, 'guide/install'))).toMatchObject({ id: install });
      expectError(await byPath(cr.id, 'missing'), 404, 'No page matches this path');
      expectError(await byPath('missing', 'draft'), 404, /change request/);
      expectError(await server.client().GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/path/{pagePath}', { params: { path: { ...crPath(space.id, cr.id), pagePath: 'draft' } } }), 401);
    });
  });

  describe('getRevisionSemanticChanges', () => {
    const changesOf = (client: QuireClient, spaceId: string, revisionId: string, query: { limit?: number; metadata?: boolean; computed?: boolean } = {}) =>
      client.GET('/spaces/{spaceId}/revisions/{revisionId}/changes', { params: { path: revisionPath(spaceId, revisionId), query } });

    it('answers what a merge created, with the change request it merged, up to the limit', async () => {
      const { org, space, first, guide, install, reference, notes } = await sharedHistory();
      const all = await unwrap(changesOf(org.client, space.id, first));
      expect(all.changes).toEqual([
        { type: 'page_created', page: { id: guide, type: 'document', title: 'Guide', path: 'guide' } },
        { type: 'page_created', page: { id: install, type: 'document', title: 'Install', path: 'guide/install' } },
        { type: 'page_created', page: { id: reference, type: 'document', title: 'Reference', path: 'reference' } },
        { type: 'file_created', file: { id: notes.id, name: 'notes.txt', contentType: 'text/plain', downloadURL: expect.stringMatching(`^${PUBLIC_URL}/downloads/`) } },
      ]);
      expect(all.more).toBeUndefined();
      expect(all.mergedFrom).toMatchObject({ object: 'change-request', status: 'merged' });
      const limited = await unwrap(changesOf(org.client, space.id, first, { limit: 1 }));
      expect(limited.changes.map((change) => change.type)).toEqual(['page_created']);
      expect(limited.more).toBe(3);
    });

    it('answers edits with the documents before and after, deletions, and nothing for the first revision', async () => {
      const { org, space, initial, first, second, install, reference, logo } = await sharedHistory();
      const { changes } = await unwrap(changesOf(org.client, space.id, second, { metadata: false, computed: true }));
      expect(changes).toEqual([
        { type: 'page_edited', page: { id: install, type: 'document', title: 'Install', path: 'guide/install' }, attributes: { document: { before: `${first}.${install}`, after: `${second}.${install}` } } },
        { type: 'page_deleted', page: { id: reference, type: 'document', title: 'Reference', path: 'reference' } },
        { type: 'file_created', file: expect.objectContaining({ id: logo.id, name: 'logo.txt' }) },
      ]);
      const edit = changes[0] as { attributes: { document: { before: string; after: string } } };
      const before = await unwrap(org.client.GET('/spaces/{spaceId}/documents/{documentId}', { params: { path: { spaceId: space.id, documentId: edit.attributes.document.before } } }));
      expect(JSON.stringify(before)).not.toContain('new');
      expect(await unwrap(changesOf(org.client, space.id, initial))).toEqual({ changes: [] });
      expectError(await changesOf(org.client, space.id, 'missing'), 404, 'No revision of this space matches this id');
      expectError(await changesOf(org.client, space.id, second, { limit: -1 }), 400, /limit/);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/revisions/{revisionId}/changes', { params: { path: revisionPath(space.id, second) } }), 404);
      expectError(await server.client().GET('/spaces/{spaceId}/revisions/{revisionId}/changes', { params: { path: revisionPath(space.id, second) } }), 401);
    });
  });

  describe('getChangeRequestChanges', () => {
    it('answers what the change request changes from its base: pages created, renamed, moved', async () => {
      const { org, space, cr, draft } = await sharedHistory();
      const changes = (changeRequestId: string | number) => org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/changes', { params: { path: crPath(space.id, changeRequestId) } });
      expect(await unwrap(changes(cr.id))).toEqual({ changes: [{ type: 'page_created', page: { id: draft, type: 'document', title: 'Draft', path: 'draft' } }] });
      expect(await unwrap(changes(cr.number))).toEqual(await unwrap(changes(cr.id)));

      const other = await createSpace(org);
      const base = await f.editMain(org, other.id, [
        { operation: 'insert_page', title: 'Guide', document: md(''), ref: 'guide' },
        { operation: 'insert_page', title: 'Install', document: md('x'), into: 'guide', ref: 'install' },
      ]);
      const [guide, install] = [f.pageOf(base, 'guide'), f.pageOf(base, 'install')];
      const moving = await f.createCr(org.client, other.id);
      await f.editCr(org.client, other.id, moving.id, [{ operation: 'update_page', page: install, title: 'Setup', slug: 'setup', into: null }]);
      const answer = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/changes', { params: { path: crPath(other.id, moving.id), query: { limit: 5 } } }));
      expect(answer.changes).toEqual([
        { type: 'page_edited', page: { id: install, type: 'document', title: 'Setup', path: 'setup' }, attributes: { title: { before: 'Install', after: 'Setup' }, slug: { before: 'install', after: 'setup' } } },
        { type: 'page_moved', page: { id: install, type: 'document', title: 'Setup', path: 'setup' }, parent: { before: { id: guide, type: 'document', title: 'Guide', path: 'guide' } } },
      ]);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/changes', { params: { path: crPath(space.id, 'missing') } }), 404, /change request/);
      expectError(await server.client().GET('/spaces/{spaceId}/change-requests/{changeRequestId}/changes', { params: { path: crPath(space.id, cr.id) } }), 401);
    });
  });

  describe('getDocumentById', () => {
    it('answers the document a page read carried, the same after the page changed', async () => {
      const { org, space, first, second, install } = await sharedHistory();
      const old = await pageInRevision(org.client, space.id, first, install, { format: 'document' });
      const current = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: install }, query: { format: 'document' } } }));
      expect(current.documentId).toBe(`${second}.${install}`);
      const document = (documentId: string, query: { schema?: 'current' | 'next' } = {}) => org.client.GET('/spaces/{spaceId}/documents/{documentId}', { params: { path: { spaceId: space.id, documentId }, query } });
      expect(await unwrap(document(old.documentId!))).toEqual(old.document);
      expect(await unwrap(document(current.documentId!, { schema: 'next' }))).toEqual(current.document);
      expect(await unwrap(document(current.documentId!, { schema: 'current' }))).toEqual(current.document);
      expect(JSON.stringify(old.document)).not.toEqual(JSON.stringify(current.document));
    });

    it('answers 404 for an unknown id, a document of another space or a page without one, and the access errors', async () => {
      const { org, space, first, install } = await sharedHistory();
      const otherSpace = await createSpace(org);
      const document = (client: QuireClient, spaceId: string, documentId: string) => client.GET('/spaces/{spaceId}/documents/{documentId}', { params: { path: { spaceId, documentId } } });
      const documentId = `${first}.${install}`;
      for (const bad of ['missing', `${first}.missing`, `missing.${install}`, `.${install}`, `${first}.`]) expectError(await document(org.client, space.id, bad), 404, 'No document of this space matches this id');
      expectError(await document(org.client, otherSpace.id, documentId), 404, 'No document of this space matches this id');
      expect((await document((await newMember(server, org, 'read')).client, space.id, documentId)).response.status).toBe(200);
      expectError(await document((await newOrg(server, 'Other')).client, space.id, documentId), 404);
      expectError(await document(server.client(), space.id, documentId), 401);
      expectError(await org.client.GET('/spaces/{spaceId}/documents/{documentId}', { params: { path: { spaceId: space.id, documentId }, query: { schema: 'old' as never } } }), 400, /schema/);
    });
  });
});
