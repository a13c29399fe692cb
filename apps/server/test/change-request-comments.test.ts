import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { unwrap, type QuireClient } from '@quire/client';
import type { components, Space } from '@quire/api-types';
// The package's index.d.ts imports './client' without an extension, which NodeNext resolution does not follow;
// its client class is typed from the file itself (a type-only import, erased at run time).
import type { Api } from '../../../node_modules/@gitbook/api/dist/client.js';
import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../src/content/index.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, organizationWithPeople, useTestServer, type OrgPerson } from './helpers.js';

type Comment = components['schemas']['Comment'];
type CommentReply = components['schemas']['CommentReply'];
type ChangeRequest = components['schemas']['ChangeRequest'];

/*
 * The discussions of a change request (the public API's change-request-comments family) and its contributors,
 * through the generated client; every answer is also checked against the public API's description by the
 * wire gate (test/gates/wire-gate.ts), and the last suite drives them with the public API's own client. A
 * comment posted on a change request is a comment of its space: both addresses answer the same object, and
 * what one changes the other shows.
 */
describeEachDialect('comments on change requests', (dialect) => {
  const server = useTestServer({ dialect });

  interface Setup {
    organizationId: string;
    admin: OrgPerson;
    author: OrgPerson;
    commenter: OrgPerson;
    reviewer: OrgPerson;
    reader: OrgPerson;
    space: Space;
    changeRequest: ChangeRequest;
  }

  async function setup(): Promise<Setup> {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Change request discussions', {
      author: 'edit', commenter: 'comment', reviewer: 'review', reader: 'read',
    });
    const space = await createSpace({ organizationId, client: admin.client }, { title: 'Handbook' });
    const changeRequest = await createChangeRequest(people.author!.client, space.id);
    return { organizationId, admin, author: people.author!, commenter: people.commenter!, reviewer: people.reviewer!, reader: people.reader!, space, changeRequest };
  }

  const createChangeRequest = (client: QuireClient, spaceId: string, subject = 'Proposal') =>
    unwrap(client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject } }));
  const crPath = (s: Setup, changeRequestId: string = s.changeRequest.id) => ({ params: { path: { spaceId: s.space.id, changeRequestId } } });
  const crCommentPath = (s: Setup, commentId: string, changeRequestId: string = s.changeRequest.id) => ({ params: { path: { spaceId: s.space.id, changeRequestId, commentId } } });
  const crReplyPath = (s: Setup, commentId: string, commentReplyId: string) => ({ params: { path: { spaceId: s.space.id, changeRequestId: s.changeRequest.id, commentId, commentReplyId } } });
  const spaceCommentPath = (s: Setup, commentId: string) => ({ params: { path: { spaceId: s.space.id, commentId } } });

  async function postOnRequest(client: QuireClient, s: Setup, markdown = 'Why this change?', changeRequestId?: string): Promise<Comment> {
    const result = await client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s, changeRequestId), body: { body: { markdown } } });
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    return result.data!;
  }

  async function postOnSpace(client: QuireClient, s: Setup, markdown = 'On the space'): Promise<Comment> {
    return unwrap(client.POST('/spaces/{spaceId}/comments', { params: { path: { spaceId: s.space.id } }, body: { body: { markdown } } }));
  }

  async function replyOnRequest(client: QuireClient, s: Setup, commentId: string, markdown = 'Agreed'): Promise<CommentReply> {
    const result = await client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { ...crCommentPath(s, commentId), body: { body: { markdown } } });
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    return result.data!;
  }

  const getOnRequest = (client: QuireClient, s: Setup, commentId: string) =>
    unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', crCommentPath(s, commentId)));
  const getOnSpace = (client: QuireClient, s: Setup, commentId: string) => unwrap(client.GET('/spaces/{spaceId}/comments/{commentId}', spaceCommentPath(s, commentId)));
  const listOnRequest = (client: QuireClient, s: Setup, query: { status?: 'all' | 'open' | 'resolved'; order?: 'asc' | 'desc'; authors?: string[]; limit?: number; page?: string; targetPage?: string } = {}) =>
    unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { params: { path: { spaceId: s.space.id, changeRequestId: s.changeRequest.id }, query } }));
  const openCounts = async (s: Setup) => ({
    changeRequest: (await unwrap(s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(s)))).comments,
    space: (await unwrap(s.admin.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: s.space.id } } }))).comments,
  });

  describe('postCommentInChangeRequest', () => {
    it('posts on the change request, by id or number, as the comment the space answers too, and counts it open', async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s, 'Why **this**?');
      expect(comment).toMatchObject({
        object: 'comment', status: 'open', body: { markdown: 'Why **this**?' }, replies: 0,
        postedBy: { id: s.commenter.userId },
        target: { space: s.space.id, revision: s.changeRequest.revision, changeRequest: s.changeRequest.id },
        permissions: { view: true, edit: true, reply: true, delete: true },
      });
      expect(comment.target).not.toHaveProperty('page');
      // The same comment through the space's address, field for field.
      expect(await getOnSpace(s.commenter.client, s, comment.id)).toEqual(comment);
      const byNumber = await postOnRequest(s.commenter.client, s, 'By number', String(s.changeRequest.number));
      expect(byNumber.target.changeRequest).toBe(s.changeRequest.id);
      expect(await openCounts(s)).toEqual({ changeRequest: 2, space: 2 });
    });

    it("attaches to a page and block of the change request's content, which the main content lacks", async () => {
      const s = await setup();
      const markdown = '# Draft\n\nA paragraph to discuss.\n';
      const edited = await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
        ...crPath(s), body: { changes: [{ operation: 'insert_page', title: 'Draft', document: { markdown } }] },
      }));
      const pageId = edited.changes[0]!.page;
      const paragraph = markdownToDocument(markdown).nodes.find((node) => node.type === 'paragraph')!.key!;
      const result = await s.commenter.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s), body: { page: pageId, node: paragraph, body: { markdown: 'This sentence' } } });
      expect(result.data!.target).toEqual({ space: s.space.id, revision: edited.changeRequest.revision, changeRequest: s.changeRequest.id, page: { id: pageId }, node: { id: paragraph } });
      expect((await listOnRequest(s.admin.client, s, { targetPage: pageId })).items.map((item) => item.id)).toEqual([result.data!.id]);

      expectError(await s.commenter.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s), body: { page: 'noSuchPage', body: { markdown: 'x' } } }), 400, 'No page of the space matches body.page');
      expectError(await s.commenter.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s), body: { page: pageId, node: 'noSuchBlock', body: { markdown: 'x' } } }), 400, 'No block of the page matches body.node');
      // The body has no `changeRequest`: the address names it.
      expectError(await s.commenter.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s), body: { changeRequest: s.changeRequest.id, body: { markdown: 'x' } } as never }), 400);
      expect(await openCounts(s)).toEqual({ changeRequest: 1, space: 1 });
    });

    it('refuses readers (403), and answers 404 for a change request of another space, an unknown one and another organization', async () => {
      const s = await setup();
      expectError(await s.reader.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s), body: { body: { markdown: 'x' } } }), 403);
      const elsewhere = await createSpace({ organizationId: s.organizationId, client: s.admin.client }, { title: 'Elsewhere' });
      const foreign = await createChangeRequest(s.admin.client, elsewhere.id);
      expectError(await s.admin.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s, foreign.id), body: { body: { markdown: 'x' } } }), 404);
      expectError(await s.admin.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s, '999'), body: { body: { markdown: 'x' } } }), 404);
      const other = await newOrg(server, 'Other');
      expectError(await other.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s), body: { body: { markdown: 'x' } } }), 404);
      expectError(await server.client().POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(s), body: { body: { markdown: 'x' } } }), 401);
      expect(await openCounts(s)).toEqual({ changeRequest: 0, space: 0 });
    });
  });

  describe('listCommentsInChangeRequest', () => {
    it("answers the change request's comments however they were posted, and only them, with the space's filters", async () => {
      const s = await setup();
      const other = await createChangeRequest(s.author.client, s.space.id, 'Other proposal');
      const first = await postOnRequest(s.commenter.client, s, 'First');
      const throughSpace = await unwrap(s.admin.client.POST('/spaces/{spaceId}/comments', { params: { path: { spaceId: s.space.id } }, body: { changeRequest: s.changeRequest.id, body: { markdown: 'Through the space' } } }));
      const review = await unwrap(s.reviewer.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { ...crPath(s), body: { status: 'changes-requested', comment: { markdown: 'Please fix' } } }));
      await postOnSpace(s.admin.client, s);
      await postOnRequest(s.admin.client, s, 'On the other request', other.id);

      const listed = await listOnRequest(s.admin.client, s, { order: 'asc' });
      expect(listed.count).toBe(3);
      expect(listed.items.map((item) => item.id)).toEqual([first.id, throughSpace.id, review.comment!.id]);
      expect(listed.items[2]!.target).toMatchObject({ changeRequest: s.changeRequest.id, review: review.id });
      // Each is one of the space's comments too, the same object there.
      const inSpace = await unwrap(s.admin.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId: s.space.id }, query: { order: 'asc' } } }));
      expect(inSpace.count).toBe(5);
      expect(inSpace.items.filter((item) => item.target.changeRequest === s.changeRequest.id)).toEqual(listed.items);

      expect((await listOnRequest(s.admin.client, s)).items.map((item) => item.id)).toEqual([review.comment!.id, throughSpace.id, first.id]);
      expect((await listOnRequest(s.admin.client, s, { authors: [s.commenter.userId, s.reviewer.userId], order: 'asc' })).items.map((item) => item.id)).toEqual([first.id, review.comment!.id]);
      await unwrap(s.admin.client.PUT('/spaces/{spaceId}/comments/{commentId}', { ...spaceCommentPath(s, first.id), body: { resolved: true } }));
      expect((await listOnRequest(s.admin.client, s, { status: 'resolved' })).items.map((item) => item.id)).toEqual([first.id]);
      expect((await listOnRequest(s.admin.client, s, { status: 'open' })).count).toBe(2);

      const seen: string[] = [];
      let page: string | undefined;
      do {
        const one = await listOnRequest(s.reader.client, s, { limit: 1, ...(page ? { page } : {}) });
        expect(one.count).toBe(3);
        seen.push(...one.items.map((item) => item.id));
        page = one.next?.page;
      } while (page);
      expect(seen).toEqual([review.comment!.id, throughSpace.id, first.id]);
      expectError(await s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { params: { path: crPath(s).params.path, query: { page: 'bm90LWEtY3Vyc29y' } } }), 400, 'query.page is not a valid page cursor');
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', crPath(s)), 404);
    });
  });

  describe('getCommentInChangeRequest', () => {
    it("answers the change request's comment in either format, and 404 for the space's other comments", async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s, 'Some **bold** words');
      const read = await getOnRequest(s.reader.client, s, comment.id);
      expect(read).toEqual(await getOnSpace(s.reader.client, s, comment.id));
      expect(read.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
      const asDocument = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', { params: { path: crCommentPath(s, comment.id).params.path, query: { format: 'document' } } }));
      expect(asDocument.body).toHaveProperty('document');

      const onSpace = await postOnSpace(s.admin.client, s);
      const other = await createChangeRequest(s.author.client, s.space.id, 'Other');
      const onOther = await postOnRequest(s.admin.client, s, 'Elsewhere', other.id);
      expectError(await s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', crCommentPath(s, onSpace.id)), 404, 'No comment of this change request matches this id');
      expectError(await s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', crCommentPath(s, onOther.id)), 404);
      expect((await unwrap(s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', crCommentPath(s, onOther.id, String(other.number))))).id).toBe(onOther.id);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', crCommentPath(s, comment.id)), 404);
    });
  });

  describe('updateCommentInChangeRequest', () => {
    it('resolves, reopens, edits and reacts, moving both counters, as the space sees it', async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s);
      const update = (client: QuireClient, body: Record<string, unknown>, commentId = comment.id) =>
        client.PUT('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', { ...crCommentPath(s, commentId), body: body as never });

      const resolved = await unwrap(update(s.author.client, { resolved: true }));
      expect(resolved).toMatchObject({ status: 'resolved', resolvedBy: { id: s.author.userId } });
      expect(await getOnSpace(s.admin.client, s, comment.id)).toMatchObject({ status: 'resolved' });
      expect(await openCounts(s)).toEqual({ changeRequest: 0, space: 0 });
      await unwrap(update(s.author.client, { resolved: true }));
      expect(await openCounts(s)).toEqual({ changeRequest: 0, space: 0 });
      expect((await unwrap(update(s.commenter.client, { resolved: false }))).status).toBe('open');
      expect(await openCounts(s)).toEqual({ changeRequest: 1, space: 1 });

      const edited = await unwrap(update(s.commenter.client, { body: { markdown: 'Reworded' }, addedReactions: ['👍'] }));
      expect(edited).toMatchObject({ body: { markdown: 'Reworded' }, editedAt: expect.any(String), reactions: [{ emoji: '👍', count: 1 }] });
      // Only the author changes the words; readers neither react nor resolve.
      expectError(await update(s.author.client, { body: { markdown: 'Not mine' } }), 403, 'Only the author of a comment can change its body');
      expectError(await update(s.reader.client, { resolved: true }), 403);
      const onSpace = await postOnSpace(s.admin.client, s);
      expectError(await update(s.admin.client, { resolved: true }, onSpace.id), 404);
      expect(await getOnSpace(s.admin.client, s, onSpace.id)).toMatchObject({ status: 'open' });
      expect(await getOnRequest(s.admin.client, s, comment.id)).toMatchObject({ status: 'open', body: { markdown: 'Reworded' } });
    });
  });

  describe('deleteCommentInChangeRequest', () => {
    it('deletes with 205 for its author or an admin, 204 when the change request has no such comment, 403 to others', async () => {
      const s = await setup();
      const mine = await postOnRequest(s.commenter.client, s);
      const moderated = await postOnRequest(s.commenter.client, s, 'To moderate');
      await replyOnRequest(s.author.client, s, moderated.id);
      const onSpace = await postOnSpace(s.commenter.client, s);
      const remove = (client: QuireClient, commentId: string) => client.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', crCommentPath(s, commentId));

      expectError(await remove(s.author.client, mine.id), 403, 'Only the author of a comment or an admin of the space can delete it');
      expect((await remove(s.commenter.client, mine.id)).response.status).toBe(205);
      expect((await remove(s.commenter.client, mine.id)).response.status).toBe(204);
      expectError(await s.commenter.client.GET('/spaces/{spaceId}/comments/{commentId}', spaceCommentPath(s, mine.id)), 404);
      expect((await remove(s.admin.client, moderated.id)).response.status).toBe(205);
      // A comment of the space outside the change request is not one of its comments: nothing is deleted.
      expect((await remove(s.admin.client, onSpace.id)).response.status).toBe(204);
      expect((await getOnSpace(s.admin.client, s, onSpace.id)).id).toBe(onSpace.id);
      expect(await openCounts(s)).toEqual({ changeRequest: 0, space: 1 });
      expectError(await (await newOrg(server, 'Other')).client.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', crCommentPath(s, onSpace.id)), 404);
    });
  });

  describe('postCommentReplyInChangeRequest', () => {
    it("replies to the change request's comment, in the asked format, seen by the space's operations", async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s);
      const result = await s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', {
        params: { ...crCommentPath(s, comment.id).params, query: { format: 'document' } }, body: { body: { markdown: 'Will do' } },
      });
      expect(result.response.status).toBe(200);
      const reply = result.data!;
      expect(reply).toMatchObject({ object: 'comment-reply', postedBy: { id: s.author.userId }, body: { document: expect.any(Object) } });
      expect(await getOnSpace(s.admin.client, s, comment.id)).toMatchObject({ replies: 1, repliers: [{ count: 1, user: { id: s.author.userId } }] });
      expect((await unwrap(s.admin.client.GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { spaceId: s.space.id, commentId: comment.id, commentReplyId: reply.id } } }))).id).toBe(reply.id);

      expectError(await s.reader.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { ...crCommentPath(s, comment.id), body: { body: { markdown: 'x' } } }), 403);
      const onSpace = await postOnSpace(s.admin.client, s);
      expectError(await s.admin.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { ...crCommentPath(s, onSpace.id), body: { body: { markdown: 'x' } } }), 404);
      expect((await getOnSpace(s.admin.client, s, onSpace.id)).replies).toBe(0);
    });
  });

  describe('listCommentRepliesInChangeRequest', () => {
    it('lists the replies oldest first, however they were posted, page by page', async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s);
      const first = await replyOnRequest(s.author.client, s, comment.id, 'One');
      const second = await unwrap(s.admin.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { ...spaceCommentPath(s, comment.id), body: { body: { markdown: 'Two' } } }));
      const path = crCommentPath(s, comment.id).params.path;
      const all = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { params: { path } }));
      expect(all.items.map((item) => item.id)).toEqual([first.id, second.id]);
      const one = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { params: { path, query: { limit: 1 } } }));
      expect(one.items.map((item) => item.id)).toEqual([first.id]);
      const two = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { params: { path, query: { limit: 1, page: one.next!.page } } }));
      expect(two.items.map((item) => item.id)).toEqual([second.id]);
      expect(two.next).toBeUndefined();
      const onSpace = await postOnSpace(s.admin.client, s);
      expectError(await s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', crCommentPath(s, onSpace.id)), 404);
    });
  });

  describe('getCommentReplyInChangeRequest', () => {
    it('answers a reply of the comment, and 404 for a reply of another comment', async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s);
      const other = await postOnRequest(s.commenter.client, s, 'Another');
      const reply = await replyOnRequest(s.author.client, s, comment.id, 'Some *words*');
      const read = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', crReplyPath(s, comment.id, reply.id)));
      expect(read).toEqual(await unwrap(s.reader.client.GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { spaceId: s.space.id, commentId: comment.id, commentReplyId: reply.id } } })));
      expect(read.body).toEqual({ markdown: 'Some *words*' });
      expectError(await s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', crReplyPath(s, other.id, reply.id)), 404, 'No reply to this comment matches this id');
    });
  });

  describe('updateCommentReplyInChangeRequest', () => {
    it("changes the author's words, takes reactions, and refuses others' edits", async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s);
      const reply = await replyOnRequest(s.author.client, s, comment.id);
      const update = (client: QuireClient, body: Record<string, unknown>) =>
        client.PUT('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', { ...crReplyPath(s, comment.id, reply.id), body: body as never });
      expect(await unwrap(update(s.author.client, { body: { markdown: 'Reworded' } }))).toMatchObject({ body: { markdown: 'Reworded' }, editedAt: expect.any(String) });
      expect(await unwrap(update(s.commenter.client, { addedReactions: ['🎉'] }))).toMatchObject({ reactions: [{ emoji: '🎉', count: 1, users: [{ user: { id: s.commenter.userId } }] }] });
      expectError(await update(s.commenter.client, { body: { markdown: 'Not mine' } }), 403, 'Only the author of a reply can change its body');
      expectError(await update(s.reader.client, { addedReactions: ['👎'] }), 403);
      // `resolved` is a comment's state: a reply takes none.
      expectError(await update(s.author.client, { resolved: true }), 400);
      expect(await unwrap(s.admin.client.GET('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { spaceId: s.space.id, commentId: comment.id, commentReplyId: reply.id } } })))
        .toMatchObject({ body: { markdown: 'Reworded' }, reactions: [{ emoji: '🎉' }] });
    });
  });

  describe('deleteCommentReplyInChangeRequest', () => {
    it('deletes with 205 for its author or an admin, 204 when absent, 403 to others', async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s);
      const mine = await replyOnRequest(s.author.client, s, comment.id);
      const theirs = await replyOnRequest(s.commenter.client, s, comment.id);
      const remove = (client: QuireClient, replyId: string) =>
        client.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', crReplyPath(s, comment.id, replyId));
      expectError(await remove(s.commenter.client, mine.id), 403, 'Only the author of a reply or an admin of the space can delete it');
      expect((await remove(s.author.client, mine.id)).response.status).toBe(205);
      expect((await remove(s.author.client, mine.id)).response.status).toBe(204);
      expect((await remove(s.admin.client, theirs.id)).response.status).toBe(205);
      expect(await getOnSpace(s.admin.client, s, comment.id)).toMatchObject({ replies: 0, repliers: [] });
      const onSpace = await postOnSpace(s.admin.client, s);
      expectError(await s.admin.client.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { ...crPath(s).params.path, commentId: onSpace.id, commentReplyId: mine.id } } }), 404);
    });
  });

  describe('listCommentersInChangeRequest', () => {
    it('lists each member who commented on the change request or replied there, once', async () => {
      const s = await setup();
      const comment = await postOnRequest(s.commenter.client, s);
      await postOnRequest(s.commenter.client, s, 'Again');
      await replyOnRequest(s.author.client, s, comment.id);
      await postOnSpace(s.reviewer.client, s);
      const path = crPath(s).params.path;
      const all = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', { params: { path } }));
      expect(all.count).toBe(2);
      expect(all.items.map((item) => item.id).sort()).toEqual([s.commenter.userId, s.author.userId].sort());
      expect(all.items.find((item) => item.id === s.commenter.userId)).toMatchObject({ object: 'member', role: 'comment' });
      // Addresses are for admins and the person themselves.
      expect(all.items.every((item) => item.user.email === undefined)).toBe(true);
      const first = await unwrap(s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', { params: { path, query: { limit: 1 } } }));
      const second = await unwrap(s.admin.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', { params: { path, query: { limit: 1, page: first.next!.page } } }));
      expect([...first.items, ...second.items].map((item) => item.id).sort()).toEqual([s.commenter.userId, s.author.userId].sort());
      expect(first.items[0]!.user.email).toMatch(/@example\.com$/);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', crPath(s)), 404);
    });
  });

  describe('getContributorsByChangeRequestId', () => {
    it('counts edits and comments per person, latest first, one item per kind', async () => {
      const s = await setup();
      const contributors = async (client: QuireClient = s.reader.client, query: { limit?: number; page?: string } = {}) =>
        unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/contributors', { params: { path: crPath(s).params.path, query } }));
      const created = await contributors();
      expect(created.items).toEqual([{ actionType: 'edit', count: 1, updatedAt: s.changeRequest.createdAt, user: expect.objectContaining({ id: s.author.userId }) }]);

      const edit = (client: QuireClient, title: string) => unwrap(client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
        ...crPath(s), body: { changes: [{ operation: 'insert_page', title, document: { markdown: title } }] },
      }));
      await edit(s.author.client, 'One');
      const byAdmin = await edit(s.admin.client, 'Two');
      const comment = await postOnRequest(s.commenter.client, s);
      await replyOnRequest(s.author.client, s, comment.id);
      const reply = await replyOnRequest(s.commenter.client, s, comment.id);
      await postOnSpace(s.reviewer.client, s);

      const all = await contributors();
      expect(all.count).toBe(4);
      const shape = all.items.map((item) => [item.user.id, item.actionType, item.count]);
      expect(shape).toEqual([
        [s.commenter.userId, 'comment', 2],
        [s.author.userId, 'comment', 1],
        [s.admin.userId, 'edit', 1],
        [s.author.userId, 'edit', 2],
      ]);
      expect(all.items[0]!.updatedAt).toBe(reply.postedAt);
      expect(all.items[2]!.updatedAt).toBe(byAdmin.changeRequest.updatedAt);
      expect(all.items.every((item) => item.user.email === undefined)).toBe(true);

      const seen: string[] = [];
      let page: string | undefined;
      do {
        const one = await contributors(s.admin.client, { limit: 1, ...(page ? { page } : {}) });
        seen.push(`${one.items[0]!.user.id} ${one.items[0]!.actionType}`);
        page = one.next?.page;
      } while (page);
      expect(seen).toEqual(all.items.map((item) => `${item.user.id} ${item.actionType}`));

      // A deleted comment is no longer a contribution.
      await unwrap(s.admin.client.DELETE('/spaces/{spaceId}/comments/{commentId}', spaceCommentPath(s, comment.id)));
      expect((await contributors()).items.map((item) => item.actionType)).toEqual(['edit', 'edit']);
      expectError(await s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/contributors', crPath(s, '999')), 404);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/contributors', crPath(s)), 404);
    });
  });
});

describeEachDialect('comments on change requests through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });

  it('discusses a change request with the official client and reads its contributors', async () => {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Official client discussions', { writer: 'edit' });
    const space = await createSpace({ organizationId, client: admin.client }, { title: 'Guides' });
    const changeRequest = await unwrap(people.writer!.client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { subject: 'Rework' } }));
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;

    const { data: comment } = await api.spaces.postCommentInChangeRequest(space.id, changeRequest.id, { body: { markdown: 'Looks good' } });
    expect(comment).toMatchObject({ object: 'comment', status: 'open', target: { changeRequest: changeRequest.id } });
    expect((await api.spaces.listCommentsInChangeRequest(space.id, changeRequest.id, { status: 'open' })).data.items.map((item) => item.id)).toEqual([comment.id]);
    expect((await api.spaces.getCommentInChangeRequest(space.id, changeRequest.id, comment.id, { format: 'markdown' })).data.body).toEqual({ markdown: 'Looks good' });
    const { data: reply } = await api.spaces.postCommentReplyInChangeRequest(space.id, changeRequest.id, comment.id, { body: { markdown: 'Thanks' } });
    expect((await api.spaces.listCommentRepliesInChangeRequest(space.id, changeRequest.id, comment.id)).data.items.map((item) => item.id)).toEqual([reply.id]);
    expect((await api.spaces.getCommentReplyInChangeRequest(space.id, changeRequest.id, comment.id, reply.id)).data.id).toBe(reply.id);
    expect((await api.spaces.updateCommentReplyInChangeRequest(space.id, changeRequest.id, comment.id, reply.id, { body: { markdown: 'Thank you' } })).data.body).toEqual({ markdown: 'Thank you' });
    expect((await api.spaces.updateCommentInChangeRequest(space.id, changeRequest.id, comment.id, { resolved: true })).data.status).toBe('resolved');
    expect((await api.spaces.listCommentersInChangeRequest(space.id, changeRequest.id)).data.items.map((item) => item.id)).toEqual([admin.userId]);
    const { data: contributors } = await api.spaces.getContributorsByChangeRequestId(space.id, changeRequest.id);
    expect(contributors.items.map((item) => [item.user.id, item.actionType, item.count])).toEqual([[admin.userId, 'comment', 2], [people.writer!.userId, 'edit', 1]]);

    expect((await api.spaces.deleteCommentReplyInChangeRequest(space.id, changeRequest.id, comment.id, reply.id)).status).toBe(205);
    expect((await api.spaces.deleteCommentInChangeRequest(space.id, changeRequest.id, comment.id)).status).toBe(205);
    expect((await api.spaces.deleteCommentInChangeRequest(space.id, changeRequest.id, comment.id)).status).toBe(204);
    const missing = await api.spaces.getCommentInChangeRequest(space.id, changeRequest.id, comment.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(GitBookAPIError);
    expect((missing as GitBookAPIError).code).toBe(404);
  });
});
