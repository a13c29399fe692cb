import { unwrap, type QuireClient } from '@quire/client';
import type { ChangeRequest, ChangeRequestContentChange, MergeRule, Space } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, organizationWithPeople, useTestServer, type OrgPerson } from './helpers.js';

/*
 * Reviews, requested reviewers and the merge rules they feed, through the generated client: a review
 * belongs to a revision, edits outdate it, and merges are refused (403, every unmet rule named) until the
 * rules of the space (or of the organization, when the space inherits) pass.
 */
describeEachDialect('reviews and merge rules', (dialect) => {
  const server = useTestServer({ dialect });

  interface Setup {
    organizationId: string;
    admin: OrgPerson;
    author: OrgPerson;
    reviewer: OrgPerson;
    second: OrgPerson;
    reader: OrgPerson;
    space: Space;
  }

  async function setup(): Promise<Setup> {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Reviews org', { author: 'edit', reviewer: 'review', second: 'review', reader: 'read' });
    const space = await createSpace({ organizationId, client: admin.client }, { title: 'Handbook' });
    return { organizationId, admin, author: people.author!, reviewer: people.reviewer!, second: people.second!, reader: people.reader!, space };
  }

  const crPath = (spaceId: string, changeRequestId: string | number) => ({ params: { path: { spaceId, changeRequestId: String(changeRequestId) } } });

  async function createCr(client: QuireClient, spaceId: string, body: { subject?: string } = {}): Promise<ChangeRequest> {
    return unwrap(client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body }));
  }
  const getCr = (client: QuireClient, spaceId: string, id: string) => unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', crPath(spaceId, id)));
  const edit = (client: QuireClient, spaceId: string, id: string, title: string) =>
    unwrap(client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
      ...crPath(spaceId, id),
      body: { changes: [{ operation: 'insert_page', title, document: { markdown: title } }] as ChangeRequestContentChange[] },
    }));
  const review = (client: QuireClient, spaceId: string, id: string, status: 'approved' | 'changes-requested', comment?: { markdown: string }) =>
    client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { ...crPath(spaceId, id), body: { status, ...(comment ? { comment } : {}) } });
  const merge = (client: QuireClient, spaceId: string, id: string) => client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', crPath(spaceId, id));
  const setSpaceRules = (s: Setup, rules: MergeRule[] | 'inherit' | 'none') =>
    unwrap(s.admin.client.PATCH('/spaces/{spaceId}', {
      params: { path: { spaceId: s.space.id } },
      body: { mergeRules: rules === 'inherit' || rules === 'none' ? { type: rules } : { type: 'rules', rules } },
    }));
  const setStatus = (client: QuireClient, spaceId: string, id: string, status: 'draft' | 'open' | 'archived') =>
    client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(spaceId, id), body: { status } });
  const listFor = (client: QuireClient, spaceId: string, query: { requestedReviewer?: string; contributor?: string; status?: 'draft' | 'open' }) =>
    unwrap(client.GET('/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query: { status: 'draft', ...query } } }));

  describe('requestReviewersForChangeRequest', () => {
    it('asks members for a review, keeps the first ask, and refuses non-members and readers-only callers', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      const asked = await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.reviewer.userId] } }));
      expect(asked.users).toEqual([expect.objectContaining({ object: 'change-request-requested-reviewer', kind: 'user', user: expect.objectContaining({ id: s.reviewer.userId }), requestedBy: expect.objectContaining({ id: s.author.userId }), revision: cr.revision })]);
      const again = await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.second.userId, s.reviewer.userId] } }));
      // The requests of the users listed, in their order; the first ask of the reviewer stands.
      expect(again.users!.map((request) => [request.user.id, request.createdAt])).toEqual([[s.second.userId, expect.any(String)], [s.reviewer.userId, asked.users![0]!.createdAt]]);

      const other = await organizationWithPeople(server, 'Other org', { outsider: 'admin' });
      expectError(await s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [other.people.outsider!.userId] } }), 400, /body\.users\.0/);
      expectError(await s.reader.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.second.userId] } }), 403);
      expectError(await s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [] } }), 400);
      // Refusals added nobody.
      const listed = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', crPath(s.space.id, cr.id)));
      expect(listed.count).toBe(2);
    });

    it('sets the subject and description sent with the request, as updateChangeRequestById does; a refusal sets nothing', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id, { subject: 'Draft' });
      const path = crPath(s.space.id, cr.id);
      expectError(await s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...path, body: { users: ['nobody'], subject: 'Refused' } }), 400);
      expect((await getCr(s.reader.client, s.space.id, cr.id)).subject).toBe('Draft');
      const description = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Please check the install steps.', marks: [] }] }] }] };
      await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...path, body: { users: [s.reviewer.userId], subject: 'Install guide', description } as never }));
      const updated = await getCr(s.reader.client, s.space.id, cr.id);
      expect(updated.subject).toBe('Install guide');
      expect(JSON.stringify(updated.description)).toContain('Please check the install steps.');
      expect(updated.updatedAt >= cr.updatedAt).toBe(true);
    });

    it('takes no reviewers on an archived request (409)', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      await unwrap(setStatus(s.author.client, s.space.id, cr.id, 'archived'));
      expectError(await s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.reviewer.userId] } }), 409, /archived/);
    });
  });

  describe('getRequestedReviewersByChangeRequestId', () => {
    it('lists the requested reviewers in the order asked, paginated, and drives the requestedReviewer filter', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      const other = await createCr(s.author.client, s.space.id);
      const before = await edit(s.author.client, s.space.id, cr.id, 'One');
      await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.reviewer.userId] } }));
      await new Promise((resolve) => setTimeout(resolve, 5));
      // Another editor asks the second reviewer, on a later revision.
      const after = await edit(s.admin.client, s.space.id, cr.id, 'Two');
      await unwrap(s.admin.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.second.userId] } }));
      const first = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { params: { ...crPath(s.space.id, cr.id).params, query: { limit: 1 } } }));
      expect(first.count).toBe(2);
      expect(first.items.map((item) => item.user.id)).toEqual([s.reviewer.userId]);
      // Who was asked, by whom, on which revision and when: the public requested reviewer's fields.
      expect(first.items[0]).toMatchObject({ object: 'change-request-requested-reviewer', kind: 'user', requestedBy: { id: s.author.userId }, revision: before.changeRequest.revision });
      const next = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { params: { ...crPath(s.space.id, cr.id).params, query: { limit: 1, page: first.next!.page } } }));
      expect(next.items.map((item) => item.user.id)).toEqual([s.second.userId]);
      expect(next.items[0]).toMatchObject({ kind: 'user', requestedBy: { id: s.admin.userId }, revision: after.changeRequest.revision });
      expect(Date.parse(next.items[0]!.createdAt)).toBeGreaterThan(Date.parse(first.items[0]!.createdAt));
      expect(next.next).toBeUndefined();
      // Asking again keeps the first request: who asked, its revision and time.
      await unwrap(s.admin.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.reviewer.userId] } }));
      const again = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', crPath(s.space.id, cr.id)));
      expect(again.items[0]).toEqual(first.items[0]);

      const forReviewer = await listFor(s.reader.client, s.space.id, { requestedReviewer: s.reviewer.userId });
      expect(forReviewer.items.map((item) => item.id)).toEqual([cr.id]);
      const orgList = await unwrap(s.reader.client.GET('/orgs/{organizationId}/change-requests', { params: { path: { organizationId: s.organizationId }, query: { status: 'draft', requestedReviewer: s.second.userId } } }));
      expect(orgList.items.map((item) => item.id)).toEqual([cr.id]);
      expect((await listFor(s.reader.client, s.space.id, { requestedReviewer: s.reader.userId })).count).toBe(0);
      expect(other.id).not.toBe(cr.id);
    });
  });

  describe('removeRequestedReviewerFromChangeRequest', () => {
    it('removes one requested reviewer (then 404), and the filter follows at once', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.reviewer.userId, s.second.userId] } }));
      const path = { params: { path: { spaceId: s.space.id, changeRequestId: cr.id, userId: s.reviewer.userId } } };
      expectError(await s.reader.client.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}', path), 403);
      const removed = await s.author.client.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}', path);
      expect(removed.response.status).toBe(204);
      expectError(await s.author.client.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}', path), 404);
      const listed = await unwrap(s.author.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', crPath(s.space.id, cr.id)));
      expect(listed.items.map((item) => item.user.id)).toEqual([s.second.userId]);
      expect((await listFor(s.author.client, s.space.id, { requestedReviewer: s.reviewer.userId })).count).toBe(0);
    });
  });

  describe('submitChangeRequestReview', () => {
    it('records a review on the current revision; the author, readers and archived requests are refused', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      const edited = await edit(s.author.client, s.space.id, cr.id, 'Intro');
      const given = await review(s.reviewer.client, s.space.id, cr.id, 'changes-requested', { markdown: 'Please expand' });
      expect(given.response.status).toBe(201);
      expect(given.data).toMatchObject({ object: 'change-request-review', status: 'changes-requested', reviewer: { id: s.reviewer.userId }, revision: edited.changeRequest.revision, outdated: false });
      // Given unasked: no requestedBy.
      expect(given.data!.requestedBy).toBeUndefined();
      // The comment is a discussion comment of the change request, on the review's revision, tied to the review.
      expect(given.data!.comment).toMatchObject({
        object: 'comment', body: { markdown: 'Please expand' }, postedBy: { id: s.reviewer.userId }, status: 'open',
        target: { space: s.space.id, changeRequest: cr.id, review: given.data!.id, revision: edited.changeRequest.revision },
      });
      // The author may not approve their own request, even with the review permission.
      const own = await createCr(s.admin.client, s.space.id);
      expectError(await review(s.admin.client, s.space.id, own.id, 'approved'), 403, /author/);
      expectError(await review(s.author.client, s.space.id, cr.id, 'approved'), 403, /review permission/);
      expectError(await review(s.reader.client, s.space.id, cr.id, 'approved'), 403);
      expectError(await s.reviewer.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { ...crPath(s.space.id, cr.id), body: { status: 'maybe' as 'approved' } }), 400);
      await unwrap(setStatus(s.author.client, s.space.id, cr.id, 'archived'));
      expectError(await review(s.reviewer.client, s.space.id, cr.id, 'approved'), 409, /archived/);
      const all = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', crPath(s.space.id, cr.id)));
      expect(all.count).toBe(1);
    });
  });

  describe('submitChangeRequestReview comments', () => {
    it("posts the review's comment as a discussion comment of the request, which the comment operations then act on", async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      await edit(s.author.client, s.space.id, cr.id, 'Intro');
      await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.reviewer.userId] } }));
      const given = await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'changes-requested', { markdown: 'Needs **examples**' }));
      // Asked by the author: the review says so.
      expect(given.requestedBy?.id).toBe(s.author.userId);
      const commentId = given.comment!.id;
      // Listed with the space's comments and counted as an open comment of the request.
      const listed = await unwrap(s.reader.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId: s.space.id } } }));
      expect(listed.items.map((item) => [item.id, item.target.review])).toEqual([[commentId, given.id]]);
      expect((await getCr(s.reader.client, s.space.id, cr.id)).comments).toBe(1);
      // Replies to it show in the review's comment.
      await unwrap(s.author.client.POST('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { spaceId: s.space.id, commentId } }, body: { body: { markdown: 'Added' } } }));
      const got = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}', { params: { path: { spaceId: s.space.id, changeRequestId: cr.id, reviewId: given.id } } }));
      expect(got.comment).toMatchObject({ id: commentId, replies: 1, repliers: [{ user: { id: s.author.userId }, count: 1 }] });
      // Deleted, it leaves the review without a comment (the review itself stays).
      const deleted = await s.reviewer.client.DELETE('/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: s.space.id, commentId } } });
      expect(deleted.response.status).toBe(204);
      const after = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', crPath(s.space.id, cr.id)));
      expect(after.items.map((item) => [item.id, item.comment])).toEqual([[given.id, undefined]]);
      expect((await getCr(s.reader.client, s.space.id, cr.id)).comments).toBe(0);
    });

    it('posts nothing for an empty comment, and refuses one past the content limits without recording the review', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      const empty = await unwrap(s.reviewer.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { ...crPath(s.space.id, cr.id), body: { status: 'approved', comment: {} } }));
      expect(empty.comment).toBeUndefined();
      // Quotes nested past the limit of comment markdown (32 levels).
      expectError(await review(s.second.client, s.space.id, cr.id, 'approved', { markdown: `${'> '.repeat(40)}deep` }), 400, /body\.comment/);
      const reviews = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', crPath(s.space.id, cr.id)));
      expect(reviews.items.map((item) => item.id)).toEqual([empty.id]);
      const comments = await unwrap(s.reader.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId: s.space.id } } }));
      expect(comments.count).toBe(0);
    });
  });

  describe('getReviewsByChangeRequestId', () => {
    it('lists every review oldest first; a later edit makes earlier ones outdated, still listed', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      await edit(s.author.client, s.space.id, cr.id, 'One');
      await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'approved'));
      await edit(s.author.client, s.space.id, cr.id, 'Two');
      await unwrap(review(s.second.client, s.space.id, cr.id, 'approved'));
      const listed = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', crPath(s.space.id, cr.id)));
      expect(listed.count).toBe(2);
      expect(listed.items.map((item) => [item.reviewer.id, item.outdated])).toEqual([[s.reviewer.userId, true], [s.second.userId, false]]);
      const page = await unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { params: { ...crPath(s.space.id, cr.id).params, query: { limit: 1 } } }));
      expect(page.items).toHaveLength(1);
      expect(page.next).toBeDefined();
    });

    it('keeps only outdated reviews with outdated=true, only current ones with false, and answers comments in the format asked', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      await edit(s.author.client, s.space.id, cr.id, 'One');
      await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'changes-requested', { markdown: 'Fix **this**' }));
      await edit(s.author.client, s.space.id, cr.id, 'Two');
      await unwrap(review(s.second.client, s.space.id, cr.id, 'approved'));
      const list = (query: { outdated?: boolean; format?: 'document' | 'markdown' }) =>
        unwrap(s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { params: { ...crPath(s.space.id, cr.id).params, query } }));
      const outdated = await list({ outdated: true });
      expect([outdated.count, outdated.items.map((item) => item.reviewer.id)]).toEqual([1, [s.reviewer.userId]]);
      const current = await list({ outdated: false });
      expect([current.count, current.items.map((item) => item.reviewer.id)]).toEqual([1, [s.second.userId]]);
      expect((await list({ format: 'markdown' })).items[0]!.comment!.body).toEqual({ markdown: 'Fix **this**' });
      const asDocument = (await list({ format: 'document' })).items[0]!.comment!.body as Record<string, unknown>;
      expect(asDocument.markdown).toBeUndefined();
      expect(JSON.stringify(asDocument)).toContain('Fix');
      expectError(await s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { params: { ...crPath(s.space.id, cr.id).params, query: { format: 'html' as never } } }), 400);
    });
  });

  describe('getChangeRequestReviewById', () => {
    it('answers one review of the request, and 404 through another request', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id);
      const other = await createCr(s.author.client, s.space.id);
      const given = await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'approved'));
      const got = await unwrap(s.reviewer.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}', { params: { path: { spaceId: s.space.id, changeRequestId: cr.id, reviewId: given.id } } }));
      expect(got).toEqual(given);
      expectError(await s.reader.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}', { params: { path: { spaceId: s.space.id, changeRequestId: other.id, reviewId: given.id } } }), 404);
    });
  });

  describe('listChangeRequestsForSpace contributor filter', () => {
    it('lists requests anyone edited by that editor, not only their creator', async () => {
      const s = await setup();
      const mine = await createCr(s.author.client, s.space.id);
      const theirs = await createCr(s.admin.client, s.space.id);
      await edit(s.author.client, s.space.id, theirs.id, 'Helped');
      const listed = await listFor(s.admin.client, s.space.id, { contributor: s.author.userId });
      expect(listed.items.map((item) => item.id).sort()).toEqual([mine.id, theirs.id].sort());
      expect((await listFor(s.admin.client, s.space.id, { contributor: s.reviewer.userId })).count).toBe(0);
    });
  });

  describe('mergeChangeRequest with merge rules', () => {
    it('runs a full review cycle: request, edit, review, outdated approval, approve again, merge', async () => {
      const s = await setup();
      await setSpaceRules(s, [{ rule: 'require_specific_reviewers', users: [s.reviewer.userId] }]);
      const cr = await createCr(s.author.client, s.space.id, { subject: 'Cycle' });
      await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { ...crPath(s.space.id, cr.id), body: { users: [s.reviewer.userId] } }));
      await edit(s.author.client, s.space.id, cr.id, 'First');
      await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'approved'));
      expect((await getCr(s.author.client, s.space.id, cr.id)).mergeability).toEqual({ mergeable: true, unmetRules: [] });
      // A later edit outdates the approval: the rule fails again, naming the reviewer.
      await edit(s.author.client, s.space.id, cr.id, 'Second');
      const before = await getCr(s.author.client, s.space.id, cr.id);
      expect(before.mergeability?.mergeable).toBe(false);
      expect(before.mergeability?.unmetRules.map((item) => item.rule)).toEqual(['require_specific_reviewers']);
      expectError(await merge(s.admin.client, s.space.id, cr.id), 403, new RegExp(`require_specific_reviewers.*${s.reviewer.userId}`));
      expect((await getCr(s.author.client, s.space.id, cr.id)).status).toBe('draft');
      await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'approved'));
      const merged = await merge(s.reviewer.client, s.space.id, cr.id);
      expect(merged.response.status).toBe(200);
      expect(merged.data?.result).toBe('merge');
      const after = await getCr(s.author.client, s.space.id, cr.id);
      expect(after.status).toBe('merged');
      expect(after.mergeability).toBeUndefined();
      // Merged requests take no reviews.
      expectError(await review(s.second.client, s.space.id, cr.id, 'approved'), 409, /merged/);
    });

    it('judges each rule kind: failing names it, meeting it lets the merge through', async () => {
      const s = await setup();
      const main = async () => (await unwrap(s.admin.client.GET('/spaces/{spaceId}', { params: { path: { spaceId: s.space.id } } }))).revision;
      const unmet = async (crId: string) => (await getCr(s.admin.client, s.space.id, crId)).mergeability!.unmetRules.map((item) => item.rule);

      // require_one_of_specific_reviewers
      await setSpaceRules(s, [{ rule: 'require_one_of_specific_reviewers', users: [s.reviewer.userId, s.second.userId] }]);
      let cr = await createCr(s.author.client, s.space.id, { subject: 'x' });
      expect(await unmet(cr.id)).toEqual(['require_one_of_specific_reviewers']);
      await unwrap(review(s.second.client, s.space.id, cr.id, 'approved'));
      expect(await unmet(cr.id)).toEqual([]);

      // require_at_least_one_review: a changes-requested review counts as a review
      await setSpaceRules(s, [{ rule: 'require_at_least_one_review' }]);
      cr = await createCr(s.author.client, s.space.id);
      expectError(await merge(s.admin.client, s.space.id, cr.id), 403, /require_at_least_one_review/);
      await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'changes-requested'));
      expect(await unmet(cr.id)).toEqual([]);

      // require_all_reviews_approved: the reviewer's newer approval replaces their request for changes
      await setSpaceRules(s, [{ rule: 'require_all_reviews_approved' }]);
      expect(await unmet(cr.id)).toEqual(['require_all_reviews_approved']);
      await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'approved'));
      expect(await unmet(cr.id)).toEqual([]);

      // subject and description
      await setSpaceRules(s, [{ rule: 'require_change_request_subject' }, { rule: 'require_change_request_description' }]);
      cr = await createCr(s.author.client, s.space.id);
      expectError(await merge(s.admin.client, s.space.id, cr.id), 403, /require_change_request_subject.*require_change_request_description/);
      await unwrap(s.author.client.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', {
        ...crPath(s.space.id, cr.id),
        body: { subject: 'Has one', description: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Why', marks: [] }] }] }] } as never },
      }));
      expect(await unmet(cr.id)).toEqual([]);

      // require_up_to_date_change_request: main moves on, the request must be updated first
      await setSpaceRules(s, [{ rule: 'require_up_to_date_change_request' }]);
      const behind = await createCr(s.author.client, s.space.id);
      const ahead = await createCr(s.author.client, s.space.id);
      await edit(s.author.client, s.space.id, ahead.id, 'Lands first');
      await unwrap(merge(s.admin.client, s.space.id, ahead.id));
      expect(await unmet(behind.id)).toEqual(['require_up_to_date_change_request']);
      expectError(await merge(s.admin.client, s.space.id, behind.id), 403, /require_up_to_date_change_request/);
      await unwrap(s.author.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/update', crPath(s.space.id, behind.id)));
      expect(await unmet(behind.id)).toEqual([]);
      const revisionBefore = await main();
      await unwrap(merge(s.admin.client, s.space.id, behind.id));
      expect(await main()).not.toBe(revisionBefore);
    });

    it('lets users listed by allow_bypass merge regardless, and no one else', async () => {
      const s = await setup();
      await setSpaceRules(s, [{ rule: 'require_specific_reviewers', users: [s.second.userId] }, { rule: 'allow_bypass', users: [s.reviewer.userId] }]);
      const cr = await createCr(s.author.client, s.space.id);
      expect((await getCr(s.admin.client, s.space.id, cr.id)).mergeability?.mergeable).toBe(false);
      const forBypasser = await getCr(s.reviewer.client, s.space.id, cr.id);
      expect(forBypasser.mergeability).toMatchObject({ mergeable: true, unmetRules: [{ rule: 'require_specific_reviewers' }] });
      expectError(await merge(s.admin.client, s.space.id, cr.id), 403, /require_specific_reviewers/);
      expect((await merge(s.reviewer.client, s.space.id, cr.id)).data?.result).toBe('merge');
    });
  });

  describe('updateOrganizationById', () => {
    it('sets organization merge rules that inheriting spaces apply at once, and only admins may', async () => {
      const s = await setup();
      const cr = await createCr(s.author.client, s.space.id, { subject: 'Inherit' });
      expect((await getCr(s.author.client, s.space.id, cr.id)).mergeability?.mergeable).toBe(true);
      expectError(await s.author.client.PATCH('/orgs/{organizationId}', { params: { path: { organizationId: s.organizationId } }, body: { mergeRules: { type: 'none' } } }), 403);
      const other = await organizationWithPeople(server, 'Elsewhere', {});
      expectError(await s.admin.client.PATCH('/orgs/{organizationId}', {
        params: { path: { organizationId: s.organizationId } },
        body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [other.admin.userId] }] } },
      }), 400, /body\.mergeRules\.rules\.0\.users\.0/);
      const updated = await unwrap(s.admin.client.PATCH('/orgs/{organizationId}', {
        params: { path: { organizationId: s.organizationId } },
        body: { title: 'Reviewed org', mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] } },
      }));
      expect(updated).toMatchObject({ title: 'Reviewed org', mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] } });
      // The open request is judged by the new rules at once.
      expect((await getCr(s.author.client, s.space.id, cr.id)).mergeability?.unmetRules.map((item) => item.rule)).toEqual(['require_at_least_one_approved_review']);
      expectError(await merge(s.admin.client, s.space.id, cr.id), 403, /require_at_least_one_approved_review/);
      // A space with rules of its own does not inherit; `none` lets the merge through.
      await setSpaceRules(s, 'none');
      expect((await getCr(s.author.client, s.space.id, cr.id)).mergeability?.mergeable).toBe(true);
      await setSpaceRules(s, 'inherit');
      await unwrap(review(s.reviewer.client, s.space.id, cr.id, 'approved'));
      expect((await merge(s.admin.client, s.space.id, cr.id)).data?.result).toBe('merge');
      expectError(await s.admin.client.PATCH('/orgs/{organizationId}', { params: { path: { organizationId: s.organizationId } }, body: { title: ' ' } }), 400);
    });
  });
});
