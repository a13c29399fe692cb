import { paginate, unwrap, type QuireClient } from '@quire/client';
import type { components, Space } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { markdownToDocument, type DocTable } from '../src/content/index.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { purgeExpiredSpaces, SPACE_RETENTION_MS } from '../src/services/space-lifecycle.js';
import { contentFixtures } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace as createSpaceIn, expectError, newMember, newOrg as createOrg, type TestMember, type TestOrg, useTestServer } from './helpers.js';
import { countStoredRows, storedDiscussionOf } from './storage-facts.js';

type Comment = components['schemas']['Comment'];
type CommentReply = components['schemas']['CommentReply'];
type CommentBody = components['schemas']['CommentBody'];

const PUBLIC_URL = 'https://docs.example.com';

const PAGE_MARKDOWN = [
  '# Guide',
  '',
  'First paragraph.',
  '',
  '| Name | Value |',
  '| ---- | ----- |',
  '| a    | 1     |',
  '| b    | 2     |',
  '',
].join('\n');

describeEachDialect('comments', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });

  type Person = TestMember;
  type Org = TestOrg;

  const newOrg = (title = 'Comments org'): Promise<Org> => createOrg(server, title);
  const member = (org: Org, role: RoleOrGuest): Promise<Person> => newMember(server, org, role);
  const createSpace = (org: Org, title = 'Handbook'): Promise<Space> => createSpaceIn(org, { title });
  const content = contentFixtures(() => server);

  async function getSpace(client: QuireClient, spaceId: string): Promise<Space> {
    return unwrap(client.GET('/spaces/{spaceId}', { params: { path: { spaceId } } }));
  }

  /** Puts pages into the space's main content (a change request, edited and merged); answers main's new revision and the pages' ids by ref. */
  async function addPages(org: Org, spaceId: string, pages: Array<{ ref: string; title: string; markdown: string }>): Promise<{ revision: string; pages: Record<string, string> }> {
    const update = await content.editMain(org, spaceId, pages.map((page) => ({ operation: 'insert_page' as const, title: page.title, document: { markdown: page.markdown }, ref: page.ref })));
    return {
      revision: (await getSpace(org.client, spaceId)).revision,
      pages: Object.fromEntries(pages.map((page) => [page.ref, content.pageOf(update, page.ref)])),
    };
  }

  /** The keys the content core gives the table block of PAGE_MARKDOWN and its rows. */
  /** The keys of the page's paragraph and table, and the ids of the table's records (rows, in order) and columns. */
  function tableKeys(): { paragraph: string; table: string; rows: string[]; columns: string[] } {
    const document = markdownToDocument(PAGE_MARKDOWN);
    const paragraph = document.nodes.find((node) => node.type === 'paragraph')!;
    const table = document.nodes.find((node): node is DocTable => node.type === 'table')!;
    const rows = Object.entries(table.data.records).sort(([, a], [, b]) => a.orderIndex.localeCompare(b.orderIndex)).map(([id]) => id);
    return { paragraph: paragraph.key!, table: table.key!, rows, columns: table.data.view.columns };
  }

  const spacePath = (spaceId: string) => ({ params: { path: { spaceId } } });
  const commentPath = (spaceId: string, commentId: string) => ({ params: { path: { spaceId, commentId } } });
  const replyPath = (spaceId: string, commentId: string, commentReplyId: string) => ({ params: { path: { spaceId, commentId, commentReplyId } } });

  async function post(client: QuireClient, spaceId: string, body: Record<string, unknown> = { body: { markdown: 'Hello' } }): Promise<Comment> {
    const result = await client.POST('/spaces/{spaceId}/comments', { ...spacePath(spaceId), body: body as never });
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    return result.data!;
  }

  async function reply(client: QuireClient, spaceId: string, commentId: string, markdown = 'A reply'): Promise<CommentReply> {
    const result = await client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(spaceId, commentId), body: { body: { markdown } } });
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    return result.data!;
  }

  async function update(client: QuireClient, spaceId: string, commentId: string, body: Record<string, unknown>) {
    return client.PUT('/spaces/{spaceId}/comments/{commentId}', { ...commentPath(spaceId, commentId), body: body as never });
  }

  async function getComment(client: QuireClient, spaceId: string, commentId: string, format?: 'markdown' | 'document'): Promise<Comment> {
    return unwrap(client.GET('/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId, commentId }, query: format ? { format } : {} } }));
  }

  interface ListQuery {
    limit?: number;
    page?: string;
    order?: 'asc' | 'desc';
    status?: 'all' | 'open' | 'resolved';
    targetPage?: string;
    authors?: string[];
    format?: 'markdown' | 'document';
  }

  async function list(client: QuireClient, spaceId: string, query: ListQuery = {}) {
    return unwrap(client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId }, query } }));
  }

  async function listAll(client: QuireClient, spaceId: string, query: ListQuery = {}): Promise<Comment[]> {
    const all: Comment[] = [];
    for await (const comment of paginate((page) => client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId }, query: { ...query, limit: 1000, ...(page ? { page } : {}) } } }))) all.push(comment);
    return all;
  }

  /** The space's open-comment counter, checked against what the list says is open. */
  async function expectOpenCount(client: QuireClient, spaceId: string, expected: number): Promise<void> {
    expect((await getSpace(client, spaceId)).comments).toBe(expected);
    expect((await list(client, spaceId, { status: 'open' })).count).toBe(expected);
  }

  describe('postCommentInSpace', () => {
    it('posts on the space as a whole, open, and counts it on the space', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const result = await org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body: { body: { markdown: 'Looks **good**' } } });
      expect(result.response.status).toBe(200);
      const comment = result.data!;
      expect(comment).toMatchObject({
        object: 'comment',
        status: 'open',
        body: { markdown: 'Looks **good**' },
        replies: 0,
        repliers: [],
        reactions: [],
        target: { space: space.id, revision: space.revision },
        permissions: { view: true, edit: true, reply: true, delete: true },
      });
      expect(comment.postedBy.id).toBe(org.userId);
      expect(comment.postedBy.email).toMatch(/@example\.com$/);
      expect(comment.editedAt).toBeUndefined();
      expect(comment.resolvedAt).toBeUndefined();
      expect(Object.keys(comment.target).sort()).toEqual(['revision', 'space']);
      expect(comment.urls.location).toBe(`${PUBLIC_URL}/v1/spaces/${space.id}/comments/${comment.id}`);
      expect(Date.parse(comment.postedAt)).toBeGreaterThan(Date.now() - 60_000);
      await expectOpenCount(org.client, space.id, 1);
      expect(await getComment(org.client, space.id, comment.id)).toEqual(comment);
    });

    it('refuses a body past the content limits with a 400 naming the limit, and stores nothing', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const post = (body: unknown) => org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body: { body: body as never } });
      expectError(await post({ markdown: `${'>'.repeat(5000)} deep` }), 400, /body\.body\.markdown nests quotes and lists up to 5000 levels deep; the limit is 32 levels/);
      expectError(await post({ markdown: `${'*a '.repeat(120)}x${' a*'.repeat(120)}` }), 400, /the limit is 100 levels/);
      await expectOpenCount(org.client, space.id, 0);
    });

    it('attaches to a page, a block of it and a cell of a table block of the current revision', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const { revision, pages } = await addPages(org, space.id, [{ ref: 'guide', title: 'Guide', markdown: PAGE_MARKDOWN }, { ref: 'empty', title: 'Empty', markdown: '' }]);
      const keys = tableKeys();
      const onPage = await post(org.client, space.id, { page: pages.guide, body: { markdown: 'On the page' } });
      expect(onPage.target).toEqual({ space: space.id, revision, page: { id: pages.guide } });
      const onBlock = await post(org.client, space.id, { page: pages.guide, node: keys.paragraph, body: { markdown: 'On the paragraph' } });
      expect(onBlock.target).toEqual({ space: space.id, revision, page: { id: pages.guide }, node: { id: keys.paragraph } });
      const onCell = await post(org.client, space.id, { page: pages.guide, node: keys.table, tableCell: { record: keys.rows[1]!, definition: keys.columns[1]! }, body: { markdown: 'On b/2' } });
      expect(onCell.target).toEqual({ space: space.id, revision, page: { id: pages.guide }, node: { id: keys.table }, tableCell: { record: keys.rows[1], definition: keys.columns[1] } });
      await expectOpenCount(org.client, space.id, 3);

      const bad = async (body: Record<string, unknown>, status: number, message: string | RegExp) => {
        expectError(await org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body: { body: { markdown: 'x' }, ...body } as never }), status, message);
      };
      await bad({ page: 'no-such-page' }, 400, 'No page of the space matches body.page');
      await bad({ page: pages.guide, node: 'no-such-node' }, 400, 'No block of the page matches body.node');
      await bad({ page: pages.empty, node: keys.paragraph }, 400, 'No block of the page matches body.node');
      await bad({ node: keys.paragraph }, 400, /page/);
      await bad({ page: pages.guide, tableCell: { record: keys.rows[0], definition: keys.columns[0] } }, 400, /node/);
      await bad({ page: pages.guide, node: keys.paragraph, tableCell: { record: keys.rows[0], definition: keys.columns[0] } }, 400, 'body.tableCell needs body.node to be a table block');
      await bad({ page: pages.guide, node: keys.table, tableCell: { record: 'nope', definition: keys.columns[0] } }, 400, 'No row of the table matches body.tableCell.record');
      // Not even an inherited property of the records object.
      await bad({ page: pages.guide, node: keys.table, tableCell: { record: 'constructor', definition: keys.columns[0] } }, 400, 'No row of the table matches body.tableCell.record');
      await bad({ page: pages.guide, node: keys.table, tableCell: { record: keys.rows[0], definition: 'c9' } }, 400, 'No column of the table matches body.tableCell.definition');
      await bad({ page: pages.guide, node: keys.table, tableCell: { record: keys.rows[1] } }, 400, /body\.tableCell/);
      await bad({ changeRequest: 'no-such-request' }, 400, 'No change request of this space matches body.changeRequest');
      // Nothing of the refused posts was kept.
      await expectOpenCount(org.client, space.id, 3);
    });

    it('refuses invalid bodies with 400 naming the field, and changes nothing', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const attempt = (body: unknown) => org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body: body as never });
      expectError(await attempt({}), 400, /body/);
      expectError(await attempt({ body: { markdown: '' } }), 400, /body\.body/);
      expectError(await attempt({ body: { markdown: 'x'.repeat(100_001) } }), 400, /body\.body/);
      expectError(await attempt({ body: { markdown: 'x', extra: 1 } }), 400, /body\.body/);
      expectError(await attempt({ body: { markdown: 'x' }, status: 'resolved' }), 400, /body\.status/);
      expectError(await attempt({ body: { markdown: 'x' }, page: '' }), 400, /body\.page/);
      expectError(await attempt({ body: { markdown: 'x' }, page: 'p'.repeat(129) }), 400, /body\.page/);
      expectError(await attempt({ body: { document: { object: 'document', nodes: [] } } }), 400, /body\.body/);
      await expectOpenCount(org.client, space.id, 0);
    });

    it('keeps the form a body was written in and answers the other form with `format`', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const document = markdownToDocument('Hello *world*');
      const fromDocument = await post(org.client, space.id, { body: { document } });
      expect(fromDocument.body).toEqual({ document });
      expect((await getComment(org.client, space.id, fromDocument.id, 'markdown')).body).toEqual({ markdown: 'Hello *world*\n' });
      expect((await getComment(org.client, space.id, fromDocument.id, 'document')).body).toEqual({ document });

      const fromMarkdown = await post(org.client, space.id, { body: { markdown: '## Title\n\n- one\n- two' } });
      const asDocument = (await getComment(org.client, space.id, fromMarkdown.id, 'document')).body as { document: components['schemas']['JSONDocument'] };
      expect(asDocument.document.nodes.map((node) => (node as { type: string }).type)).toEqual(['heading-2', 'list-unordered']);
      expect((await getComment(org.client, space.id, fromMarkdown.id)).body).toEqual({ markdown: '## Title\n\n- one\n- two' });

      const empty = await post(org.client, space.id, { body: {} });
      expect(empty.body).toEqual({});
      expect((await getComment(org.client, space.id, empty.id, 'markdown')).body).toEqual({});
      expect((await getComment(org.client, space.id, empty.id, 'document')).body).toEqual({});
      const emptyDocument = await post(org.client, space.id, { body: { document: { object: 'document', data: {}, nodes: [] } } });
      expect(emptyDocument.body).toEqual({});
      const formats = (await list(org.client, space.id, { format: 'markdown' })).items.map((comment) => comment.body);
      expect(formats).toEqual([{}, {}, { markdown: '## Title\n\n- one\n- two' }, { markdown: 'Hello *world*\n' }]);
    });

    it('stores a document body holding tabs as GitBook tags, and answers it back as the same tabs', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] });
      const tab = (title: string, text: string) => ({ object: 'block', type: 'tabs-item', data: { title }, nodes: [paragraph(text)] });
      const document = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'tabs', nodes: [tab('npm', 'npm i'), tab('Yarn *fast*', 'yarn add')] }] };
      const comment = await post(org.client, space.id, { body: { document } });
      expect((await getComment(org.client, space.id, comment.id, 'markdown')).body).toEqual({
        markdown: '{% tabs %}\n\n{% tab title="npm" %}\n\nnpm i\n\n{% endtab %}\n\n{% tab title="Yarn \\*fast\\*" %}\n\nyarn add\n\n{% endtab %}\n\n{% endtabs %}\n',
      });
      const answered = (await getComment(org.client, space.id, comment.id, 'document')).body as { document: components['schemas']['JSONDocument'] };
      expect(answered.document.nodes).toMatchObject([{ type: 'tabs', nodes: [{ type: 'tabs-item', data: { title: 'npm' } }, { type: 'tabs-item', data: { title: 'Yarn *fast*' } }] }]);
    });

    it('needs the comment role: 401 without a token, 404 for another organization or a hidden space, 403 for readers', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const body = { body: { markdown: 'Hi' } };
      expectError(await server.client().POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body }), 401);
      const other = await newOrg('Other');
      const foreign = await other.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body });
      expectError(foreign, 404);
      expect(foreign.error).toEqual((await other.client.POST('/spaces/{spaceId}/comments', { ...spacePath('doesNotExist0000'), body })).error);
      const reader = await member(org, 'read');
      expectError(await reader.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body }), 403, 'You need the comment permission of this space');
      const guest = await member(org, null);
      expectError(await guest.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body }), 404);
      const commenter = await member(org, 'comment');
      const posted = await post(commenter.client, space.id);
      expect(posted.permissions).toEqual({ view: true, edit: true, reply: true, delete: true });
      // A locked space freezes content, not discussions.
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { ...spacePath(space.id), body: { editMode: 'locked' } }));
      await post(commenter.client, space.id);
      await expectOpenCount(org.client, space.id, 2);
      // A deleted space is gone for comments.
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      expectError(await org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body }), 404);
    });
  });

  describe('listCommentsInSpace', () => {
    it('lists newest first by default, oldest first with order=asc, and filters by status, page and authors', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const { pages } = await addPages(org, space.id, [{ ref: 'p1', title: 'One', markdown: 'One' }, { ref: 'p2', title: 'Two', markdown: 'Two' }]);
      const alice = await member(org, 'comment');
      const bob = await member(org, 'edit');
      const c1 = await post(alice.client, space.id, { page: pages.p1, body: { markdown: 'c1' } });
      const c2 = await post(bob.client, space.id, { page: pages.p2, body: { markdown: 'c2' } });
      const c3 = await post(org.client, space.id, { body: { markdown: 'c3' } });
      const c4 = await post(alice.client, space.id, { page: pages.p1, body: { markdown: 'c4' } });
      await unwrap(update(bob.client, space.id, c2.id, { resolved: true }));
      await unwrap(update(org.client, space.id, c4.id, { resolved: true }));

      const ids = (comments: Comment[]) => comments.map((comment) => comment.id);
      const all = await list(org.client, space.id);
      expect(ids(all.items)).toEqual([c4.id, c3.id, c2.id, c1.id]);
      expect(all.count).toBe(4);
      expect(all.next).toBeUndefined();
      expect(ids((await list(org.client, space.id, { order: 'asc' })).items)).toEqual([c1.id, c2.id, c3.id, c4.id]);
      expect(ids((await list(org.client, space.id, { status: 'all' })).items)).toEqual([c4.id, c3.id, c2.id, c1.id]);
      expect(ids((await list(org.client, space.id, { status: 'open' })).items)).toEqual([c3.id, c1.id]);
      const resolved = await list(org.client, space.id, { status: 'resolved', order: 'asc' });
      expect(ids(resolved.items)).toEqual([c2.id, c4.id]);
      expect(resolved.count).toBe(2);
      expect(ids((await list(org.client, space.id, { targetPage: pages.p1 })).items)).toEqual([c4.id, c1.id]);
      expect(ids((await list(org.client, space.id, { targetPage: pages.p1, status: 'open' })).items)).toEqual([c1.id]);
      expect((await list(org.client, space.id, { targetPage: 'nowhere' })).items).toEqual([]);
      expect(ids((await list(org.client, space.id, { authors: [alice.userId] })).items)).toEqual([c4.id, c1.id]);
      expect(ids((await list(org.client, space.id, { authors: [bob.userId, org.userId], order: 'asc' })).items)).toEqual([c2.id, c3.id]);
      expect((await list(org.client, space.id, { authors: ['nobody'] })).count).toBe(0);
      // Anyone who can view the space can read its discussions.
      const reader = await member(org, 'read');
      const seen = await list(reader.client, space.id);
      expect(ids(seen.items)).toEqual([c4.id, c3.id, c2.id, c1.id]);
      expect(seen.items[0]!.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
      expect(seen.items[0]!.postedBy.email).toBeUndefined();
    });

    it('pages through every comment once in either order while comments are posted between pages', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const posted: string[] = [];
      for (let index = 0; index < 5; index++) posted.push((await post(org.client, space.id, { body: { markdown: `c${index}` } })).id);

      const first = await list(org.client, space.id, { order: 'asc', limit: 2 });
      expect(first.items.map((comment) => comment.id)).toEqual(posted.slice(0, 2));
      expect(first.count).toBe(5);
      posted.push((await post(org.client, space.id, { body: { markdown: 'c5' } })).id);
      const second = await list(org.client, space.id, { order: 'asc', limit: 2, page: first.next!.page });
      expect(second.items.map((comment) => comment.id)).toEqual(posted.slice(2, 4));
      const third = await list(org.client, space.id, { order: 'asc', limit: 2, page: second.next!.page });
      expect(third.items.map((comment) => comment.id)).toEqual(posted.slice(4, 6));
      expect(third.count).toBe(6);
      expect(third.next).toBeUndefined();

      const newest = await list(org.client, space.id, { limit: 4 });
      expect(newest.items.map((comment) => comment.id)).toEqual([...posted].reverse().slice(0, 4));
      await post(org.client, space.id, { body: { markdown: 'newer' } });
      const older = await list(org.client, space.id, { limit: 4, page: newest.next!.page });
      expect(older.items.map((comment) => comment.id)).toEqual([posted[1], posted[0]]);
      expect(older.next).toBeUndefined();
      expect(await listAll(org.client, space.id)).toHaveLength(7);
    });

    it('refuses bad queries with 400; 401 without a token, 404 for another organization', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const attempt = (query: Record<string, unknown>) => org.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId: space.id }, query: query as never } });
      expectError(await attempt({ limit: 1001 }), 400, 'query.limit must be <= 1000');
      expectError(await attempt({ limit: 0 }), 400, /query\.limit/);
      expectError(await attempt({ page: 'bm90LWEtY3Vyc29y' }), 400, 'query.page is not a valid page cursor');
      expectError(await attempt({ order: 'newest' }), 400, /query\.order/);
      expectError(await attempt({ status: 'closed' }), 400, /query\.status/);
      expectError(await attempt({ format: 'html' }), 400, /query\.format/);
      expectError(await attempt({ targetPage: '' }), 400, /query\.targetPage/);
      expectError(await attempt({ unknown: 'x' }), 400, /unknown/);
      expectError(await server.client().GET('/spaces/{spaceId}/comments', spacePath(space.id)), 401);
      const other = await newOrg('Other');
      expectError(await other.client.GET('/spaces/{spaceId}/comments', spacePath(space.id)), 404);
    });
  });

  describe('getCommentInSpace', () => {
    it('answers 404 for a missing comment, a comment of another space and another organization; 401 without a token', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const elsewhere = await createSpace(org, 'Elsewhere');
      const comment = await post(org.client, space.id);
      expectError(await org.client.GET('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, 'nope')), 404, 'No comment of this space matches this id');
      expectError(await org.client.GET('/spaces/{spaceId}/comments/{commentId}', commentPath(elsewhere.id, comment.id)), 404);
      const other = await newOrg('Other');
      expectError(await other.client.GET('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, comment.id)), 404);
      expectError(await server.client().GET('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, comment.id)), 401);
      expectError(await org.client.GET('/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: space.id, commentId: comment.id }, query: { format: 'pdf' as never } } }), 400, /query\.format/);
      const reader = await member(org, 'read');
      expect((await getComment(reader.client, space.id, comment.id)).id).toBe(comment.id);
    });
  });

  describe('updateCommentInSpace', () => {
    it('resolves and reopens, keeping resolvedAt/resolvedBy and the counters exact', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const commenter = await member(org, 'comment');
      const comment = await post(org.client, space.id);
      await post(org.client, space.id);
      await expectOpenCount(org.client, space.id, 2);

      const resolved = await unwrap(update(commenter.client, space.id, comment.id, { resolved: true }));
      expect(resolved.status).toBe('resolved');
      expect(resolved.resolvedBy?.id).toBe(commenter.userId);
      expect(Date.parse(resolved.resolvedAt!)).toBeGreaterThan(Date.now() - 60_000);
      expect(resolved.editedAt).toBeUndefined();
      await expectOpenCount(org.client, space.id, 1);

      // Resolving again changes nothing, not even who resolved it.
      const again = await unwrap(update(org.client, space.id, comment.id, { resolved: true }));
      expect(again.resolvedBy?.id).toBe(commenter.userId);
      expect(again.resolvedAt).toBe(resolved.resolvedAt);
      await expectOpenCount(org.client, space.id, 1);

      const reopened = await unwrap(update(org.client, space.id, comment.id, { resolved: false }));
      expect(reopened.status).toBe('open');
      expect(reopened.resolvedAt).toBeUndefined();
      expect(reopened.resolvedBy).toBeUndefined();
      await expectOpenCount(org.client, space.id, 2);
      await unwrap(update(org.client, space.id, comment.id, { resolved: false }));
      await expectOpenCount(org.client, space.id, 2);
    });

    it('lets only the author change the body, which sets editedAt', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const author = await member(org, 'comment');
      const comment = await post(author.client, space.id, { body: { markdown: 'Frist' } });
      expect((await getComment(org.client, space.id, comment.id)).permissions).toEqual({ view: true, edit: false, reply: true, delete: true });

      const edited = await unwrap(update(author.client, space.id, comment.id, { body: { markdown: 'First' } }));
      expect(edited.body).toEqual({ markdown: 'First' });
      expect(Date.parse(edited.editedAt!)).toBeGreaterThanOrEqual(Date.parse(comment.postedAt));

      // An admin may moderate (delete) but not put words in someone's mouth; a refused update changes nothing.
      expectError(await update(org.client, space.id, comment.id, { body: { markdown: 'Hijacked' }, resolved: true }), 403, 'Only the author of a comment can change its body');
      const other = await member(org, 'edit');
      expectError(await update(other.client, space.id, comment.id, { body: { markdown: 'Hijacked' } }), 403);
      const after = await getComment(org.client, space.id, comment.id);
      expect(after.body).toEqual({ markdown: 'First' });
      expect(after.status).toBe('open');
      expect(after.editedAt).toBe(edited.editedAt);

      // A body written as a document is answered as one.
      const document = markdownToDocument('Now a *document*');
      expect((await unwrap(update(author.client, space.id, comment.id, { body: { document } }))).body).toEqual({ document });
    });

    it('adds and removes the caller\'s reactions, one per person and emoji', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const alice = await member(org, 'comment');
      const comment = await post(org.client, space.id);

      // Emojis first used at the same moment come in code point order.
      let seen = await unwrap(update(alice.client, space.id, comment.id, { addedReactions: ['👍', '🎉', '👍'] }));
      expect(seen.reactions.map((reaction) => [reaction.emoji, reaction.count])).toEqual([['🎉', 1], ['👍', 1]]);
      expect(seen.reactions[1]!.users[0]!.user.id).toBe(alice.userId);
      const firstReactedAt = seen.reactions[1]!.users[0]!.reactedAt;

      // Adding again keeps the first reaction; another person adds to the count.
      await unwrap(update(alice.client, space.id, comment.id, { addedReactions: ['👍'] }));
      seen = await unwrap(update(org.client, space.id, comment.id, { addedReactions: ['👍'] }));
      const thumbs = seen.reactions.find((reaction) => reaction.emoji === '👍')!;
      expect(thumbs.count).toBe(2);
      expect(thumbs.users.map((entry) => entry.user.id)).toEqual([alice.userId, org.userId]);
      expect(thumbs.users[0]!.reactedAt).toBe(firstReactedAt);

      // Removing one the caller does not have changes nothing; an emoji in both lists is removed.
      seen = await unwrap(update(alice.client, space.id, comment.id, { removedReactions: ['🚀'], addedReactions: ['🎉'] }));
      expect(seen.reactions.map((reaction) => [reaction.emoji, reaction.count])).toEqual([['🎉', 1], ['👍', 2]]);
      seen = await unwrap(update(alice.client, space.id, comment.id, { addedReactions: ['👍', '🚀'], removedReactions: ['👍', '🎉'] }));
      expect(seen.reactions.map((reaction) => [reaction.emoji, reaction.count, reaction.users.map((entry) => entry.user.id)])).toEqual([
        ['👍', 1, [org.userId]],
        ['🚀', 1, [alice.userId]],
      ]);
      // Removed reactions are deleted, not kept with a flag: two rows are left in storage.
      expect((await storedDiscussionOf(server, comment.id)).reactions).toBe(2);

      const reader = await member(org, 'read');
      expectError(await update(reader.client, space.id, comment.id, { addedReactions: ['👀'] }), 403, 'You need the comment permission of this space');
      expectError(await update(reader.client, space.id, comment.id, { resolved: true }), 403);
      expect((await getComment(org.client, space.id, comment.id)).reactions).toHaveLength(2);
      await expectOpenCount(org.client, space.id, 1);
    });

    it('refuses invalid bodies with 400; 401 without a token, 404 for a missing comment or another organization', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const comment = await post(org.client, space.id);
      const attempt = (body: unknown) => update(org.client, space.id, comment.id, body as Record<string, unknown>);
      expectError(await attempt({}), 400, /body/);
      expectError(await attempt({ resolved: 'yes' }), 400, /body\.resolved/);
      expectError(await attempt({ status: 'resolved' }), 400, /body\.status/);
      expectError(await attempt({ addedReactions: ['x'.repeat(51)] }), 400, /body\.addedReactions/);
      expectError(await attempt({ addedReactions: [''] }), 400, /body\.addedReactions/);
      expectError(await attempt({ removedReactions: Array.from({ length: 51 }, (_, index) => `e${index}`) }), 400, /body\.removedReactions/);
      expectError(await attempt({ body: { markdown: '' } }), 400, /body\.body/);
      expectError(await update(org.client, space.id, 'nope', { resolved: true }), 404);
      expectError(await update(server.client(), space.id, comment.id, { resolved: true }), 401);
      const other = await newOrg('Other');
      expectError(await update(other.client, space.id, comment.id, { resolved: true }), 404);
      const after = await getComment(org.client, space.id, comment.id);
      expect(after).toMatchObject({ status: 'open', reactions: [], body: { markdown: 'Hello' } });
    });

    it('moves the counter once when the same comment is resolved by many requests at the same time', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const comment = await post(org.client, space.id);
      await post(org.client, space.id);
      const results = await Promise.all(Array.from({ length: 12 }, (_, index) => update(org.client, space.id, comment.id, { resolved: index % 3 !== 0 })));
      for (const result of results) expect(result.response.status).toBe(200);
      const final = await getComment(org.client, space.id, comment.id);
      await expectOpenCount(org.client, space.id, final.status === 'open' ? 2 : 1);
      const deleted = await Promise.all(Array.from({ length: 6 }, () => org.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, comment.id))));
      for (const result of deleted) expect(result.response.status).toBe(204);
      await expectOpenCount(org.client, space.id, 1);
    });
  });

  describe('deleteCommentInSpace', () => {
    it('lets the author or an admin delete, with the replies, and keeps the counter exact', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const author = await member(org, 'comment');
      const someoneElse = await member(org, 'review');
      const open = await post(author.client, space.id);
      const resolved = await post(author.client, space.id);
      const moderated = await post(author.client, space.id);
      await unwrap(update(org.client, space.id, resolved.id, { resolved: true }));
      await reply(someoneElse.client, space.id, open.id);
      await unwrap(update(someoneElse.client, space.id, open.id, { addedReactions: ['👍'] }));
      await expectOpenCount(org.client, space.id, 2);

      expect((await getComment(someoneElse.client, space.id, open.id)).permissions.delete).toBe(false);
      expectError(await someoneElse.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, open.id)), 403, 'Only the author of a comment or an admin of the space can delete it');
      await expectOpenCount(org.client, space.id, 2);

      const deleted = await author.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, open.id));
      expect(deleted.response.status).toBe(204);
      expectError(await org.client.GET('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, open.id)), 404);
      // Nothing of a deleted comment is left behind in storage (no read can show leftovers).
      expect(await storedDiscussionOf(server, open.id)).toEqual({ replies: 0, reactions: 0 });
      await expectOpenCount(org.client, space.id, 1);

      // A resolved comment was not counted, so deleting it leaves the counter alone.
      expect((await author.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, resolved.id))).response.status).toBe(204);
      await expectOpenCount(org.client, space.id, 1);
      expect((await org.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, moderated.id))).response.status).toBe(204);
      await expectOpenCount(org.client, space.id, 0);

      // Already absent: still 204, and the counter does not move.
      expect((await org.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, moderated.id))).response.status).toBe(204);
      expect((await org.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, 'neverExisted'))).response.status).toBe(204);
      await expectOpenCount(org.client, space.id, 0);
    });

    it('answers 401 without a token and 404 for a space the caller cannot see', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const comment = await post(org.client, space.id);
      expectError(await server.client().DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, comment.id)), 401);
      const other = await newOrg('Other');
      expectError(await other.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, comment.id)), 404);
      expectError(await other.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath('doesNotExist0000', comment.id)), 404);
      const reader = await member(org, 'read');
      expectError(await reader.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, comment.id)), 403);
      await expectOpenCount(org.client, space.id, 1);
    });
  });

  describe('postCommentReplyInSpace', () => {
    it('posts replies, counting them and their authors on the comment', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const alice = await member(org, 'comment');
      const bob = await member(org, 'edit');
      const comment = await post(org.client, space.id);

      const result = await alice.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body: { body: { markdown: 'Agreed' } } });
      expect(result.response.status).toBe(200);
      const first = result.data!;
      expect(first).toMatchObject({ object: 'comment-reply', body: { markdown: 'Agreed' }, reactions: [], permissions: { view: true, edit: true, delete: true } });
      expect(first.postedBy.id).toBe(alice.userId);
      expect(first.editedAt).toBeUndefined();
      expect(first.urls.location).toBe(`${PUBLIC_URL}/v1/spaces/${space.id}/comments/${comment.id}/replies/${first.id}`);
      await reply(bob.client, space.id, comment.id);
      const last = await reply(alice.client, space.id, comment.id);

      const seen = await getComment(org.client, space.id, comment.id);
      expect(seen.replies).toBe(3);
      expect(seen.repliers.map((replier) => [replier.user.id, replier.count])).toEqual([[bob.userId, 1], [alice.userId, 2]]);
      expect(seen.repliers[1]!.updatedAt).toBe(last.postedAt);
      // Replies are not comments: the open-comment counter did not move.
      await expectOpenCount(org.client, space.id, 1);
      expect(await unwrap(alice.client.GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, comment.id, first.id)))).toEqual(first);
      // Replies to a resolved comment are allowed.
      await unwrap(update(org.client, space.id, comment.id, { resolved: true }));
      await reply(bob.client, space.id, comment.id);
      expect((await getComment(org.client, space.id, comment.id)).replies).toBe(4);
    });

    it('refuses replies from readers (403), to missing comments (404), with bad bodies (400), without a token (401)', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const comment = await post(org.client, space.id);
      const reader = await member(org, 'read');
      const body = { body: { markdown: 'Hi' } };
      expectError(await reader.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body }), 403);
      expectError(await org.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, 'nope'), body }), 404);
      expectError(await org.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body: {} as never }), 400, /body/);
      expectError(await org.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body: { body: { markdown: '' } } }), 400, /body\.body/);
      expectError(await org.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body: { ...body, resolved: true } as never }), 400, /body\.resolved/);
      expectError(await server.client().POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body }), 401);
      const other = await newOrg('Other');
      expectError(await other.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body }), 404);
      expect((await getComment(org.client, space.id, comment.id)).replies).toBe(0);
    });
  });

  describe('listCommentRepliesInSpace', () => {
    it('lists replies oldest first, page by page, while replies are posted between pages', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const comment = await post(org.client, space.id);
      const posted: string[] = [];
      for (let index = 0; index < 5; index++) posted.push((await reply(org.client, space.id, comment.id, `r${index}`)).id);
      const path = { spaceId: space.id, commentId: comment.id };
      const first = await unwrap(org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path, query: { limit: 2 } } }));
      expect(first.items.map((item) => item.id)).toEqual(posted.slice(0, 2));
      expect(first.count).toBe(5);
      posted.push((await reply(org.client, space.id, comment.id, 'r5')).id);
      const second = await unwrap(org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path, query: { limit: 2, page: first.next!.page } } }));
      expect(second.items.map((item) => item.id)).toEqual(posted.slice(2, 4));
      const third = await unwrap(org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path, query: { limit: 2, page: second.next!.page, format: 'document' } } }));
      expect(third.items.map((item) => item.id)).toEqual(posted.slice(4, 6));
      expect(third.items[0]!.body).toEqual({ document: markdownToDocument('r4') });
      expect(third.next).toBeUndefined();
      expect(third.count).toBe(6);

      expectError(await org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path, query: { limit: 1001 } } }), 400, 'query.limit must be <= 1000');
      expectError(await org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path, query: { page: 'bm90LWEtY3Vyc29y' } } }), 400, 'query.page is not a valid page cursor');
      expectError(await org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { spaceId: space.id, commentId: 'nope' } } }), 404);
      expectError(await server.client().GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path } }), 401);
      const other = await newOrg('Other');
      expectError(await other.client.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path } }), 404);
    });
  });

  describe('getCommentReplyInSpace', () => {
    it('gets one reply in either format; 404 for a missing reply or one of another comment', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const comment = await post(org.client, space.id);
      const sibling = await post(org.client, space.id);
      const document = markdownToDocument('In *document* form');
      const created = await unwrap(org.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...commentPath(space.id, comment.id), body: { body: { document } } }));
      expect(created.body).toEqual({ document });
      const get = (commentId: string, replyId: string, format?: 'markdown' | 'document') =>
        org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { spaceId: space.id, commentId, commentReplyId: replyId }, query: format ? { format } : {} } });
      expect((await unwrap(get(comment.id, created.id, 'markdown'))).body).toEqual({ markdown: 'In *document* form\n' });
      expectError(await get(comment.id, 'nope'), 404, 'No reply to this comment matches this id');
      expectError(await get(sibling.id, created.id), 404);
      expectError(await get('nope', created.id), 404);
      expectError(await get(comment.id, created.id, 'text' as never), 400, /query\.format/);
      expectError(await server.client().GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, comment.id, created.id)), 401);
      const other = await newOrg('Other');
      expectError(await other.client.GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, comment.id, created.id)), 404);
    });
  });

  describe('updateCommentReplyInSpace', () => {
    it('lets only the author change a reply\'s body; reactions are per person', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const author = await member(org, 'comment');
      const comment = await post(org.client, space.id);
      const created = await reply(author.client, space.id, comment.id, 'Typo');
      const put = (client: QuireClient, body: Record<string, unknown>) =>
        client.PUT('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { ...replyPath(space.id, comment.id, created.id), body: body as never });

      const edited = await unwrap(put(author.client, { body: { markdown: 'Fixed' } }));
      expect(edited.body).toEqual({ markdown: 'Fixed' });
      expect(edited.editedAt).toBeDefined();
      expectError(await put(org.client, { body: { markdown: 'Admin words' } }), 403, 'Only the author of a reply can change its body');
      expect((await unwrap(put(org.client, { addedReactions: ['❤️'] }))).reactions).toEqual([
        { emoji: '❤️', count: 1, users: [{ user: expect.objectContaining({ id: org.userId }), reactedAt: expect.any(String) }] },
      ]);
      const both = await unwrap(put(author.client, { addedReactions: ['❤️', '👀'], removedReactions: ['👀'] }));
      expect(both.reactions.map((reaction) => [reaction.emoji, reaction.count])).toEqual([['❤️', 2]]);
      // Reactions on a reply are not reactions on its comment.
      expect((await getComment(org.client, space.id, comment.id)).reactions).toEqual([]);
      const reader = await member(org, 'read');
      expectError(await put(reader.client, { addedReactions: ['👀'] }), 403);
      expectError(await put(author.client, {}), 400, /body/);
      expectError(await put(author.client, { resolved: true }), 400, /body\.resolved/);
      expectError(await put(author.client, { addedReactions: ['x'.repeat(51)] }), 400, /body\.addedReactions/);
      expectError(await org.client.PUT('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { ...replyPath(space.id, comment.id, 'nope'), body: { addedReactions: ['👀'] } }), 404);
      expectError(await server.client().PUT('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { ...replyPath(space.id, comment.id, created.id), body: { addedReactions: ['👀'] } }), 401);
      const other = await newOrg('Other');
      expectError(await other.client.PUT('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { ...replyPath(space.id, comment.id, created.id), body: { addedReactions: ['👀'] } }), 404);
      const final = await unwrap(org.client.GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, comment.id, created.id)));
      expect(final.body).toEqual({ markdown: 'Fixed' });
      expect(final.reactions.map((reaction) => reaction.count)).toEqual([2]);
    });
  });

  describe('deleteCommentReplyInSpace', () => {
    it('deletes replies by their author or an admin, updating replies and repliers; absent replies answer 204', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const alice = await member(org, 'comment');
      const bob = await member(org, 'comment');
      const comment = await post(org.client, space.id);
      const a1 = await reply(alice.client, space.id, comment.id);
      const b1 = await reply(bob.client, space.id, comment.id);
      const a2 = await reply(alice.client, space.id, comment.id);
      const remove = (client: QuireClient, replyId: string) => client.DELETE('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, comment.id, replyId));

      expectError(await remove(bob.client, a1.id), 403, 'Only the author of a reply or an admin of the space can delete it');
      expect((await remove(alice.client, a1.id)).response.status).toBe(204);
      let seen = await getComment(org.client, space.id, comment.id);
      expect(seen.replies).toBe(2);
      expect(seen.repliers.map((replier) => [replier.user.id, replier.count])).toEqual([[bob.userId, 1], [alice.userId, 1]]);
      expect((await remove(org.client, b1.id)).response.status).toBe(204);
      seen = await getComment(org.client, space.id, comment.id);
      expect(seen.replies).toBe(1);
      expect(seen.repliers.map((replier) => replier.user.id)).toEqual([alice.userId]);
      expect(seen.repliers[0]!.updatedAt).toBe(a2.postedAt);
      expect((await remove(alice.client, a1.id)).response.status).toBe(204);
      expect((await remove(alice.client, 'neverExisted')).response.status).toBe(204);
      expectError(await org.client.DELETE('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, 'nope', a2.id)), 404);
      expectError(await server.client().DELETE('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, comment.id, a2.id)), 401);
      const other = await newOrg('Other');
      expectError(await other.client.DELETE('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', replyPath(space.id, comment.id, a2.id)), 404);
      expect((await getComment(org.client, space.id, comment.id)).replies).toBe(1);
    });
  });

  describe('comments on change requests', () => {
    async function createChangeRequest(org: Org, spaceId: string) {
      return unwrap(org.client.POST('/spaces/{spaceId}/change-requests', { ...spacePath(spaceId), body: { subject: 'Proposal' } }));
    }

    async function getChangeRequest(client: QuireClient, spaceId: string, changeRequestId: string) {
      return unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: { spaceId, changeRequestId } } }));
    }

    it('posts on a change request by id or number, looks pages up in its content and keeps both counters exact', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const changeRequest = await createChangeRequest(org, space.id);
      const edited = await unwrap(org.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
        params: { path: { spaceId: space.id, changeRequestId: changeRequest.id } },
        body: { changes: [{ operation: 'insert_page', title: 'Draft page', document: { markdown: PAGE_MARKDOWN } }] },
      }));
      const pageId = edited.changes[0]!.page;
      const requestRevision = edited.changeRequest.revision;
      expect(requestRevision).not.toBe(space.revision);
      const keys = tableKeys();

      const onRequest = await post(org.client, space.id, { changeRequest: changeRequest.id, body: { markdown: 'Why?' } });
      expect(onRequest.target).toEqual({ space: space.id, revision: requestRevision, changeRequest: changeRequest.id });
      const onBlock = await post(org.client, space.id, { changeRequest: String(changeRequest.number), page: pageId, node: keys.table, body: { markdown: 'This table' } });
      expect(onBlock.target).toEqual({ space: space.id, revision: requestRevision, changeRequest: changeRequest.id, page: { id: pageId }, node: { id: keys.table } });
      // The page exists only in the change request, not in the main content.
      expectError(await org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body: { page: pageId, body: { markdown: 'x' } } }), 400, 'No page of the space matches body.page');
      const onSpace = await post(org.client, space.id);

      expect((await getChangeRequest(org.client, space.id, changeRequest.id)).comments).toBe(2);
      // The space counts every open comment it holds, those on its change requests included.
      await expectOpenCount(org.client, space.id, 3);
      const listed = await list(org.client, space.id, { order: 'asc' });
      expect(listed.items.map((comment) => comment.id)).toEqual([onRequest.id, onBlock.id, onSpace.id]);

      await unwrap(update(org.client, space.id, onRequest.id, { resolved: true }));
      expect((await getChangeRequest(org.client, space.id, changeRequest.id)).comments).toBe(1);
      await expectOpenCount(org.client, space.id, 2);
      await unwrap(update(org.client, space.id, onRequest.id, { resolved: false }));
      expect((await getChangeRequest(org.client, space.id, changeRequest.id)).comments).toBe(2);
      await unwrap(org.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, onBlock.id)));
      expect((await getChangeRequest(org.client, space.id, changeRequest.id)).comments).toBe(1);
      await unwrap(update(org.client, space.id, onRequest.id, { resolved: true }));
      await unwrap(org.client.DELETE('/spaces/{spaceId}/comments/{commentId}', commentPath(space.id, onRequest.id)));
      expect((await getChangeRequest(org.client, space.id, changeRequest.id)).comments).toBe(0);
      await expectOpenCount(org.client, space.id, 1);
    });

    it('answers 400 for a change request of another space, and 403 to readers', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const elsewhere = await createSpace(org, 'Elsewhere');
      const foreign = await createChangeRequest(org, elsewhere.id);
      expectError(await org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body: { changeRequest: foreign.id, body: { markdown: 'x' } } }), 400, 'No change request of this space matches body.changeRequest');
      expectError(await org.client.POST('/spaces/{spaceId}/comments', { ...spacePath(space.id), body: { changeRequest: '999', body: { markdown: 'x' } } }), 400, 'No change request of this space matches body.changeRequest');
      const reader = await member(org, 'read');
      expectError(await reader.client.POST('/spaces/{spaceId}/comments', { ...spacePath(elsewhere.id), body: { changeRequest: foreign.id, body: { markdown: 'x' } } }), 403);
      expect((await getChangeRequest(org.client, elsewhere.id, foreign.id)).comments).toBe(0);
      await expectOpenCount(org.client, space.id, 0);
      await expectOpenCount(org.client, elsewhere.id, 0);
    });
  });

  describe('space removal', () => {
    it('takes the discussions of a purged space with it', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const kept = await createSpace(org, 'Kept');
      const comment = await post(org.client, space.id);
      await reply(org.client, space.id, comment.id);
      await unwrap(update(org.client, space.id, comment.id, { addedReactions: ['👍'] }));
      const other = await post(org.client, kept.id);
      await unwrap(org.client.DELETE('/spaces/{spaceId}', spacePath(space.id)));
      expectError(await org.client.GET('/spaces/{spaceId}/comments', spacePath(space.id)), 404);
      expect(await purgeExpiredSpaces(server.running.services, [space.id], Date.now() + SPACE_RETENTION_MS + 60_000)).toEqual([space.id]);
      // The purge is about storage: no comment, reply or reaction of the space is left.
      expect(await countStoredRows(server, 'comments', space.id)).toBe(0);
      expect(await countStoredRows(server, 'comment_replies', space.id)).toBe(0);
      expect(await storedDiscussionOf(server, comment.id)).toEqual({ replies: 0, reactions: 0 });
      expect((await getComment(org.client, kept.id, other.id)).id).toBe(other.id);
    });
  });

  describe('listCommentersInSpace', () => {
    it('lists each member who commented or replied once, page by page', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const elsewhere = await createSpace(org, 'Elsewhere');
      const alice = await member(org, 'comment');
      const bob = await member(org, 'edit');
      const carol = await member(org, 'comment');
      const dave = await member(org, 'comment');
      const first = await post(alice.client, space.id);
      await post(alice.client, space.id);
      await reply(bob.client, space.id, first.id);
      await reply(alice.client, space.id, first.id);
      await post(dave.client, elsewhere.id);

      const path = { spaceId: space.id };
      const all = await unwrap(org.client.GET('/spaces/{spaceId}/commenters', { params: { path } }));
      expect(all.items.map((item) => item.id).sort()).toEqual([alice.userId, bob.userId].sort());
      expect(all.count).toBe(2);
      const aliceItem = all.items.find((item) => item.id === alice.userId)!;
      expect(aliceItem).toMatchObject({ object: 'member', role: 'comment', disabled: false, user: { id: alice.userId } });
      expect(aliceItem.user.email).toMatch(/@example\.com$/);
      // Addresses are for admins and the person themselves.
      const seenByBob = await unwrap(bob.client.GET('/spaces/{spaceId}/commenters', { params: { path } }));
      expect(seenByBob.items.find((item) => item.id === alice.userId)!.user.email).toBeUndefined();
      expect(seenByBob.items.find((item) => item.id === bob.userId)!.user.email).toBeDefined();

      const firstPage = await unwrap(org.client.GET('/spaces/{spaceId}/commenters', { params: { path, query: { limit: 1 } } }));
      expect(firstPage.items).toHaveLength(1);
      expect(firstPage.count).toBe(2);
      await post(carol.client, space.id);
      const seen = [firstPage.items[0]!.id];
      let page = firstPage.next?.page;
      while (page) {
        const next = await unwrap(org.client.GET('/spaces/{spaceId}/commenters', { params: { path, query: { limit: 1, page } } }));
        seen.push(...next.items.map((item) => item.id));
        page = next.next?.page;
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining([alice.userId, bob.userId]));
      expect((await unwrap(org.client.GET('/spaces/{spaceId}/commenters', { params: { path } }))).count).toBe(3);

      // Someone who left the organization is no longer a member to list.
      await unwrap(org.client.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: carol.userId } } }));
      expect((await unwrap(org.client.GET('/spaces/{spaceId}/commenters', { params: { path } }))).items.map((item) => item.id)).not.toContain(carol.userId);

      expectError(await org.client.GET('/spaces/{spaceId}/commenters', { params: { path, query: { limit: 1001 } } }), 400, 'query.limit must be <= 1000');
      expectError(await org.client.GET('/spaces/{spaceId}/commenters', { params: { path, query: { page: 'bm90LWEtY3Vyc29y' } } }), 400, 'query.page is not a valid page cursor');
      expectError(await server.client().GET('/spaces/{spaceId}/commenters', { params: { path } }), 401);
      const other = await newOrg('Other');
      expectError(await other.client.GET('/spaces/{spaceId}/commenters', { params: { path } }), 404);
    });
  });
});
