import { paginate, unwrap, type QuireClient } from '@quire/client';
import type { RevisionFile, RevisionPage } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { markdownHash } from '../src/content/index.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, type TestOrg, useTestServer } from './helpers.js';
import { commitMainRevision, fileObject } from './storage-setup.js';
import { contentFixtures, crPath, md, textFile } from './content-fixtures.js';

const PUBLIC_URL = 'https://docs.example.com';

describeEachDialect('space content', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });
  const f = contentFixtures(() => server);

  const spacePath = (spaceId: string) => ({ params: { path: { spaceId } } });

  /** A space with a small tree: Guide (Install, Configure), Reference, and two files. */
  async function spaceWithContent(org: TestOrg) {
    const space = await createSpace(org);
    const update = await f.editMain(org, space.id, [
      { operation: 'insert_page', title: 'Guide', document: md(''), ref: 'guide' },
      { operation: 'insert_page', title: 'Install', document: md('Run the installer.'), into: 'guide', ref: 'install' },
      { operation: 'update_page', page: 'guide', document: md('# Guide\n\nStart with [Install](ref:install).') },
      { operation: 'insert_page', title: 'Configure', document: md('Edit **settings**.\n\n- one\n- two'), into: 'guide', ref: 'configure' },
      { operation: 'insert_page', title: 'Reference', document: md(''), ref: 'reference' },
      textFile('notes.txt', 'hello notes'),
      textFile('data.csv', 'a,b\n1,2\n'),
    ]);
    return {
      space,
      guide: f.pageOf(update, 'guide'),
      install: f.pageOf(update, 'install'),
      configure: f.pageOf(update, 'configure'),
      reference: f.pageOf(update, 'reference'),
      files: update.insertedFiles ?? [],
    };
  }

  async function getRevision(client: QuireClient, spaceId: string, query: { metadata?: boolean; computed?: boolean } = {}) {
    return unwrap(client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId }, query } }));
  }

  async function getPage(client: QuireClient, spaceId: string, pageId: string, query: { format?: 'markdown' | 'document'; evaluated?: boolean | 'deterministic-only'; metadata?: boolean; computed?: boolean } = {}) {
    return unwrap(client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId }, query } }));
  }

  async function allFiles(client: QuireClient, spaceId: string, limit: number): Promise<RevisionFile[]> {
    const files: RevisionFile[] = [];
    for await (const file of paginate((page) => client.GET('/spaces/{spaceId}/content/files', { params: { path: { spaceId }, query: { limit, ...(page ? { page } : {}) } } }))) files.push(file);
    return files;
  }

  const titles = (pages: RevisionPage[]): unknown[] => pages.map((page) => (page.pages.length > 0 ? [page.title, titles(page.pages)] : page.title));

  describe('getCurrentRevision', () => {
    it('answers the empty first revision of a new space', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const revision = await getRevision(org.client, space.id);
      expect(revision).toMatchObject({
        object: 'revision', id: space.revision, type: 'edits', parents: [], pages: [], files: [], reusableContents: [], variables: {},
        urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/~/revisions/${space.revision}` },
      });
      expect(Date.parse(revision.createdAt)).not.toBeNaN();
      expect(revision.git).toBeUndefined();
    });

    it('answers the page tree without content, the files with download URLs, and the parents of the revision', async () => {
      const org = await newOrg(server);
      const { space, guide, install, files } = await spaceWithContent(org);
      const current = await f.getSpace(org.client, space.id);
      const revision = await getRevision(org.client, space.id);
      expect(revision.id).toBe(current.revision);
      expect(revision.id).not.toBe(space.revision);
      expect(revision.parents.length).toBeGreaterThan(0);
      expect(titles(revision.pages)).toEqual([['Guide', ['Install', 'Configure']], 'Reference']);
      const guidePage = revision.pages[0]!;
      expect(guidePage).toMatchObject({ id: guide, type: 'document', slug: 'guide', path: 'guide', hidden: false, urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/guide` } });
      expect(guidePage.pages[0]).toMatchObject({ id: install, path: 'guide/install', urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/guide/install` } });
      expect(guidePage.markdown).toBeUndefined();
      expect(guidePage.document).toBeUndefined();
      expect(revision.files.map((file) => file.name).sort()).toEqual(['data.csv', 'notes.txt']);
      expect(revision.files.map((file) => file.id).sort()).toEqual(files.map((file) => file.id).sort());
      const notes = revision.files.find((file) => file.name === 'notes.txt')!;
      expect(notes).toMatchObject({ contentType: 'text/plain', size: 11 });
      expect(notes.downloadURL.startsWith(`${PUBLIC_URL}/downloads/`)).toBe(true);
    });

    it('serves the bytes of a file at its download URL', async () => {
      const org = await newOrg(server);
      const { space } = await spaceWithContent(org);
      const revision = await getRevision(org.client, space.id);
      const notes = revision.files.find((file) => file.name === 'notes.txt')!;
      const download = await fetch(notes.downloadURL.replace(PUBLIC_URL, server.url));
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('hello notes');
    });

    it('shows Git metadata unless metadata is false', async () => {
      const org = await newOrg(server);
      const { space, guide } = await spaceWithContent(org);
      const git = { oid: 'a'.repeat(40), message: 'Sync docs', createdByService: false, url: 'https://git.example.com/commit/aaaa', ref: 'refs/heads/main' };
      await commitMainRevision(server, space.id, (tree, writer) => {
        tree.updatePage(guide, { git: { oid: 'b'.repeat(40), path: 'guide/README.md' } });
        tree.insertFile(fileObject(writer, { id: 'gitfile', name: 'logo.txt', git: { oid: 'c'.repeat(40), path: '.gitbook/assets/logo.txt' }, contentType: 'text/plain', bytes: Buffer.from('logo') }));
      }, { git });
      const full = await getRevision(org.client, space.id);
      expect(full.git).toEqual(git);
      expect(full.pages[0]!.git).toEqual({ oid: 'b'.repeat(40), path: 'guide/README.md' });
      expect(full.files.find((file) => file.id === 'gitfile')!.git).toEqual({ oid: 'c'.repeat(40), path: '.gitbook/assets/logo.txt' });

      const bare = await getRevision(org.client, space.id, { metadata: false });
      expect(bare.git).toBeUndefined();
      expect(bare.pages[0]!.git).toBeUndefined();
      expect(bare.files.every((file) => file.git === undefined)).toBe(true);
      expect((await getPage(org.client, space.id, guide, { metadata: false })).git).toBeUndefined();
      expect((await getPage(org.client, space.id, guide)).git).toEqual({ oid: 'b'.repeat(40), path: 'guide/README.md' });
      const file = await unwrap(org.client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: space.id, fileId: 'gitfile' }, query: { metadata: false } } }));
      expect(file.git).toBeUndefined();
    });

    it('refuses bad queries with 400 naming the parameter', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      expectError(await org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: space.id }, query: { metadata: 'maybe' as never } } }), 400, /metadata/);
      expectError(await org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: space.id }, query: { computed: 'x' as never } } }), 400, /computed/);
      expectError(await org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: space.id }, query: { unknown: 1 } as never } }), 400, /unknown/);
    });

    it('answers 401 without a token and 404 for another organization, a hidden space, a deleted space or none', async () => {
      const org = await newOrg(server);
      const other = await newOrg(server, 'Other');
      const space = await createSpace(org);
      expectError(await server.client().GET('/spaces/{spaceId}/content', spacePath(space.id)), 401);
      expectError(await other.client.GET('/spaces/{spaceId}/content', spacePath(space.id)), 404);
      expectError(await org.client.GET('/spaces/{spaceId}/content', spacePath('missing')), 404);
      const guest = await newMember(server, org, null);
      expectError(await guest.client.GET('/spaces/{spaceId}/content', spacePath(space.id)), 404);
      const reader = await newMember(server, org, 'read');
      expect((await reader.client.GET('/spaces/{spaceId}/content', spacePath(space.id))).response.status).toBe(200);
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      expectError(await org.client.GET('/spaces/{spaceId}/content', spacePath(space.id)), 404);
    });
  });

  describe('listPages', () => {
    it('answers the page tree, top-level pages first, without content', async () => {
      const org = await newOrg(server);
      const { space, configure } = await spaceWithContent(org);
      const { pages } = await unwrap(org.client.GET('/spaces/{spaceId}/content/pages', spacePath(space.id)));
      expect(titles(pages)).toEqual([['Guide', ['Install', 'Configure']], 'Reference']);
      expect(pages[0]!.pages[1]).toMatchObject({ id: configure, slug: 'configure', path: 'guide/configure', pages: [] });
      expect(JSON.stringify(pages)).not.toContain('markdown');
    });

    it('answers 401, 404 and 400 like the revision', async () => {
      const org = await newOrg(server);
      const other = await newOrg(server, 'Other');
      const space = await createSpace(org);
      expectError(await server.client().GET('/spaces/{spaceId}/content/pages', spacePath(space.id)), 401);
      expectError(await other.client.GET('/spaces/{spaceId}/content/pages', spacePath(space.id)), 404);
      expectError(await org.client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId: space.id }, query: { page: 'x' } as never } }), 400, /page/);
      expect(await unwrap(org.client.GET('/spaces/{spaceId}/content/pages', spacePath(space.id)))).toEqual({ pages: [] });
    });
  });

  describe('getPageById', () => {
    it('answers the page with its content as markdown when no format is asked for, as the public API requires one', async () => {
      const org = await newOrg(server);
      const { space, guide, install } = await spaceWithContent(org);
      const page = await getPage(org.client, space.id, guide);
      expect(page).toMatchObject({ id: guide, title: 'Guide', type: 'document', kind: 'sheet', path: 'guide' });
      expect(page.layout).toEqual({ width: 'default', cover: true, coverSize: 'hero', title: true, description: true, tableOfContents: true, outline: true, pagination: true, metadata: true });
      expect(page.pages.map((child) => child.id)[0]).toBe(install);
      expect(page.markdown).toBe(`# Guide\n\nStart with [Install](/pages/${install}).`);
      expect(page.document).toBeUndefined();
      expect(page.pages[0]!.markdown).toBeUndefined();
    });

    it('answers the content as markdown, with links made stable when they were stored', async () => {
      const org = await newOrg(server);
      const { space, guide, install } = await spaceWithContent(org);
      const page = await getPage(org.client, space.id, guide, { format: 'markdown' });
      expect(page.markdown).toBe(`# Guide\n\nStart with [Install](/pages/${install}).`);
      expect(page.document).toBeUndefined();
      expect(page.pages[0]!.markdown).toBeUndefined();
    });

    it('answers the content as a document, links pointing at pages', async () => {
      const org = await newOrg(server);
      const { space, guide, install, configure } = await spaceWithContent(org);
      const page = await getPage(org.client, space.id, guide, { format: 'document' });
      expect(page.markdown).toBeUndefined();
      const document = page.document!;
      expect(document).toMatchObject({ object: 'document', data: { schemaVersion: 1 } });
      expect(document.nodes.map((node) => (node as { type: string }).type)).toEqual(['heading-1', 'paragraph']);
      expect(JSON.stringify(document)).toContain(JSON.stringify({ kind: 'page', page: install }));
      const list = (await getPage(org.client, space.id, configure, { format: 'document' })).document!;
      expect(list.nodes.map((node) => (node as { type: string }).type)).toEqual(['paragraph', 'list-unordered']);
    });

    it('answers GitBook tabs as the public tabs block of titled tabs-item blocks, blocks nested in each tab', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const markdown = '{% tabs %}\n{% tab title="npm" %}\nnpm i\n\n{% hint style="info" %}\nNode 20.\n{% endhint %}\n{% endtab %}\n{% tab title="yarn" %}\n- yarn add\n{% endtab %}\n{% endtabs %}\n';
      const update = await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Tabs', document: md(markdown), ref: 'tabs' }]);
      const page = await getPage(org.client, space.id, f.pageOf(update, 'tabs'), { format: 'document' });
      expect(page.document!.nodes).toMatchObject([
        {
          object: 'block',
          type: 'tabs',
          nodes: [
            { object: 'block', type: 'tabs-item', data: { title: 'npm' }, nodes: [{ type: 'paragraph' }, { type: 'hint', data: { style: 'info' } }] },
            { object: 'block', type: 'tabs-item', data: { title: 'yarn' }, nodes: [{ type: 'list-unordered' }] },
          ],
        },
      ]);
      expect((await getPage(org.client, space.id, f.pageOf(update, 'tabs'), { format: 'markdown' })).markdown).toBe(markdown);
    });

    it('answers an empty page and a page of a format with empty content', async () => {
      const org = await newOrg(server);
      const { space, reference } = await spaceWithContent(org);
      expect((await getPage(org.client, space.id, reference, { format: 'markdown' })).markdown).toBe('');
      expect((await getPage(org.client, space.id, reference, { format: 'document' })).document).toEqual({ object: 'document', data: { schemaVersion: 1 }, nodes: [] });
    });

    it('evaluates variable expressions only when evaluated is true or deterministic-only', async () => {
      const org = await newOrg(server);
      const { space, install } = await spaceWithContent(org);
      await commitMainRevision(server, space.id, (tree, writer) => {
        tree.updatePage(install, { variables: { version: '2.1' }, content: markdownHash(writer, 'Install {{ page.vars.version }} and {{ page.vars.missing }}.') ?? null });
      });
      expect((await getPage(org.client, space.id, install, { format: 'markdown' })).markdown).toBe('Install {{ page.vars.version }} and {{ page.vars.missing }}.');
      expect((await getPage(org.client, space.id, install, { format: 'markdown', evaluated: false })).markdown).toBe('Install {{ page.vars.version }} and {{ page.vars.missing }}.');
      expect((await getPage(org.client, space.id, install, { format: 'markdown', evaluated: true })).markdown).toBe('Install 2.1 and {{ page.vars.missing }}.');
      expect((await getPage(org.client, space.id, install, { format: 'markdown', evaluated: 'deterministic-only' })).markdown).toBe('Install 2.1 and {{ page.vars.missing }}.');
      const evaluated = await getPage(org.client, space.id, install, { format: 'document', evaluated: true });
      expect(JSON.stringify(evaluated.document)).toContain('Install 2.1 and');
      expect(evaluated.variables).toEqual({ version: '2.1' });
    });

    it('answers group pages without content whatever the format', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await commitMainRevision(server, space.id, (tree) => {
        tree.insertPage({ id: 'group1', title: 'Group', type: 'group' }, { into: null });
        tree.insertPage({ id: 'link1', title: 'Elsewhere', type: 'link', href: 'https://example.com' }, { into: null });
      });
      const group = await getPage(org.client, space.id, 'group1', { format: 'markdown' });
      expect(group).toMatchObject({ type: 'group', slug: 'group', path: 'group' });
      expect(group.markdown).toBeUndefined();
      const link = await getPage(org.client, space.id, 'link1', { format: 'document' });
      expect(link).toMatchObject({ type: 'link', href: 'https://example.com', urls: { app: `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/~/pages/link1` } });
      expect(link.slug).toBeUndefined();
      expect(link.document).toBeUndefined();
    });

    it('answers 404 for a page that is not in the content, and refuses bad queries', async () => {
      const org = await newOrg(server);
      const { space, guide } = await spaceWithContent(org);
      expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: 'missing' } } }), 404, 'No page matches this id');
      const path = { spaceId: space.id, pageId: guide };
      expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path, query: { format: 'html' as never } } }), 400, /format/);
      expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path, query: { evaluated: 'sometimes' as never } } }), 400, /evaluated/);
      expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: 'x'.repeat(129) } } }), 400, /pageId/);
      const other = await newOrg(server, 'Other');
      expectError(await other.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path } }), 404);
      expectError(await server.client().GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path } }), 401);
    });
  });

  describe('listFiles', () => {
    it('pages through the files by name, with stable pages when files are added in between', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await f.editMain(org, space.id, ['e.txt', 'a.txt', 'c.txt', 'b.txt', 'd.txt'].map((name) => textFile(name, name)));
      const first = await unwrap(org.client.GET('/spaces/{spaceId}/content/files', { params: { path: { spaceId: space.id }, query: { limit: 2 } } }));
      expect(first.items.map((file) => file.name)).toEqual(['a.txt', 'b.txt']);
      expect(first.count).toBe(5);
      expect(first.next?.page).toBeDefined();
      // Files added before and after the cursor: the next pages go on from where the first stopped.
      await f.editMain(org, space.id, [textFile('aa.txt', 'x'), textFile('z.txt', 'y')]);
      const rest: string[] = [];
      let page = first.next?.page;
      while (page) {
        const next = await unwrap(org.client.GET('/spaces/{spaceId}/content/files', { params: { path: { spaceId: space.id }, query: { limit: 2, page } } }));
        expect(next.count).toBe(7);
        rest.push(...next.items.map((file) => file.name));
        page = next.next?.page;
      }
      expect(rest).toEqual(['c.txt', 'd.txt', 'e.txt', 'z.txt']);
      expect((await allFiles(org.client, space.id, 1000)).map((file) => file.name)).toEqual(['a.txt', 'aa.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt', 'z.txt']);
      const last = await unwrap(org.client.GET('/spaces/{spaceId}/content/files', { params: { path: { spaceId: space.id }, query: { limit: 7 } } }));
      expect(last.next).toBeUndefined();
    });

    it('refuses limits out of range, foreign cursors and unknown parameters, and answers the access errors', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const list = (query: Record<string, unknown>) => org.client.GET('/spaces/{spaceId}/content/files', { params: { path: { spaceId: space.id }, query: query as never } });
      expectError(await list({ limit: 1001 }), 400, /limit/);
      expectError(await list({ limit: 0 }), 400, /limit/);
      expectError(await list({ page: 'not-a-cursor' }), 400, /page/);
      expectError(await list({ sort: 'name' }), 400, /sort/);
      expect(await unwrap(list({}))).toEqual({ count: 0, items: [] });
      expectError(await server.client().GET('/spaces/{spaceId}/content/files', spacePath(space.id)), 401);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/content/files', spacePath(space.id)), 404);
    });
  });

  describe('getFileById', () => {
    it('answers one file, 404 for an unknown one, and the access errors', async () => {
      const org = await newOrg(server);
      const { space, files } = await spaceWithContent(org);
      const file = await unwrap(org.client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: space.id, fileId: files[0]!.id } } }));
      expect(file).toMatchObject({ id: files[0]!.id, name: 'notes.txt', contentType: 'text/plain', size: 11 });
      expect(await (await fetch(file.downloadURL.replace(PUBLIC_URL, server.url))).text()).toBe('hello notes');
      const path = { spaceId: space.id, fileId: files[0]!.id };
      expectError(await org.client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: space.id, fileId: 'missing' } } }), 404, 'No file matches this id');
      expectError(await server.client().GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path } }), 401);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path } }), 404);
      expectError(await org.client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path, query: { format: 'x' } as never } }), 400, /format/);
    });
  });

  describe('change request content', () => {
    async function spaceWithRequest(org: TestOrg) {
      const base = await spaceWithContent(org);
      const cr = await f.createCr(org.client, base.space.id);
      const update = await f.editCr(org.client, base.space.id, cr.id, [
        { operation: 'insert_page', title: 'Draft', document: md('Not merged *yet*.'), ref: 'draft' },
        { operation: 'update_page', page: base.install, document: md('Run the new installer.') },
        textFile('draft.txt', 'draft bytes'),
      ]);
      return { ...base, cr, update, draft: f.pageOf(update, 'draft'), draftFile: update.insertedFiles![0]! };
    }

    // Reads change nothing, so the suites below share one space with one request.
    let shared: Promise<{ org: TestOrg } & Awaited<ReturnType<typeof spaceWithRequest>>> | undefined;
    const sharedRequest = () => (shared ??= (async () => {
      const org = await newOrg(server);
      return { org, ...(await spaceWithRequest(org)) };
    })());

    describe('getRevisionOfChangeRequestById', () => {
      it('answers the revision of the request, its pages with app URLs under the request, and its files', async () => {
        const { org, space, cr, update } = await sharedRequest();
        const revision = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: crPath(space.id, cr.id) } }));
        expect(revision.id).toBe(update.changeRequest.revision);
        expect(titles(revision.pages)).toEqual([['Guide', ['Install', 'Configure']], 'Reference', 'Draft']);
        const base = `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}/~/changes/${cr.number}`;
        expect(revision.pages[2]!.urls.app).toBe(`${base}/draft`);
        expect(revision.files.map((file) => file.name).sort()).toEqual(['data.csv', 'draft.txt', 'notes.txt']);
      });
    });

    describe('listPagesInChangeRequest', () => {
      it('answers the page tree of the request, by number as by id', async () => {
        const { org, space, cr } = await sharedRequest();
        const byId = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', { params: { path: crPath(space.id, cr.id) } }));
        expect(titles(byId.pages)).toEqual([['Guide', ['Install', 'Configure']], 'Reference', 'Draft']);
        const byNumber = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', { params: { path: crPath(space.id, cr.number) } }));
        expect(titles(byNumber.pages)).toEqual(titles(byId.pages));
      });
    });

    describe('getPageInChangeRequestById', () => {
      it('answers a page as the request has it, main unchanged, and a page only the request has', async () => {
        const { org, space, cr, draft, install } = await sharedRequest();
        const page = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { ...crPath(space.id, cr.id), pageId: install }, query: { format: 'markdown' } } }));
        expect(page.markdown).toBe('Run the new installer.');
        expect((await getPage(org.client, space.id, install, { format: 'markdown' })).markdown).toBe('Run the installer.');
        const draftDocument = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { ...crPath(space.id, cr.number), pageId: draft }, query: { format: 'document' } } }));
        expect(JSON.stringify(draftDocument.document)).toContain('"italic"');
        expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: draft } } }), 404);
      });
    });

    describe('listFilesInChangeRequestById', () => {
      it('pages through the files of the request by name', async () => {
        const { org, space, cr } = await sharedRequest();
        const files = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', { params: { path: crPath(space.id, cr.id), query: { limit: 2 } } }));
        expect(files.items.map((file) => file.name)).toEqual(['data.csv', 'draft.txt']);
        expect(files.count).toBe(3);
        const next = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', { params: { path: crPath(space.id, cr.id), query: { limit: 2, page: files.next!.page } } }));
        expect(next.items.map((file) => file.name)).toEqual(['notes.txt']);
        expect(next.next).toBeUndefined();
      });
    });

    describe('getFileInChangeRequestById', () => {
      it('answers a file only the request has, with a download URL that serves its bytes', async () => {
        const { org, space, cr, draftFile } = await sharedRequest();
        const file = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}', { params: { path: { ...crPath(space.id, cr.id), fileId: draftFile.id } } }));
        expect(await (await fetch(file.downloadURL.replace(PUBLIC_URL, server.url))).text()).toBe('draft bytes');
        expectError(await org.client.GET('/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: space.id, fileId: draftFile.id } } }), 404);
      });
    });

    it('answers 404 for an unknown request, a request of another space, and the access errors', async () => {
      const org = await newOrg(server);
      const { space, cr, draft, draftFile } = await spaceWithRequest(org);
      const otherSpace = await createSpace(org);
      const cases = [
        (client: QuireClient, path: { spaceId: string; changeRequestId: string }) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path } }),
        (client: QuireClient, path: { spaceId: string; changeRequestId: string }) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', { params: { path } }),
        (client: QuireClient, path: { spaceId: string; changeRequestId: string }) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', { params: { path } }),
        (client: QuireClient, path: { spaceId: string; changeRequestId: string }) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { ...path, pageId: draft } } }),
        (client: QuireClient, path: { spaceId: string; changeRequestId: string }) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}', { params: { path: { ...path, fileId: draftFile.id } } }),
      ];
      const other = await newOrg(server, 'Other');
      const reader = await newMember(server, org, 'read');
      for (const call of cases) {
        expect((await call(reader.client, crPath(space.id, cr.id))).response.status).toBe(200);
        expectError(await call(org.client, crPath(space.id, 'missing')), 404, /change request/);
        expectError(await call(org.client, crPath(space.id, 999)), 404, /change request/);
        expectError(await call(org.client, crPath(otherSpace.id, cr.id)), 404, /change request/);
        expectError(await call(other.client, crPath(space.id, cr.id)), 404);
        expectError(await call(server.client(), crPath(space.id, cr.id)), 401);
      }
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', { params: { path: crPath(space.id, cr.id), query: { limit: 1001 } } }), 400, /limit/);
    });
  });
});
