import type { components } from '@quire/api-types';
import { ContentError, markdownToDocumentOffThread, type DocNode } from '../content/index.js';
import { BadRequestError, ForbiddenError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { canComment, canDelete, canEditBody } from '../policies/comment-policy.js';
import type { MemberViewer } from '../policies/member-policy.js';
import {
  COMMENT_ORDER_KEY_LENGTH,
  COMMENTER_ORDER_KEY_LENGTH,
  deleteComment,
  insertComment,
  listCommenters,
  listComments,
  lockComment,
  updateComment,
  type CommentRow,
} from '../stores/comment-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { MemberDetailRow } from '../stores/member-store.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import type { Caller } from './caller.js';
import { placeOfComment, type CommentPlace } from './change-request-comments.js';
import { storedBody } from './comment-body.js';
import {
  applyReactions,
  bodyRefusal,
  COMMENT_REFUSED,
  commentViews,
  countOpenComments,
  findCommentWithin,
  reachDiscussions,
  reactsOrResolves,
  requireCommentWithin,
  viewerOf,
  type CommentView,
  type DiscussionScope,
  type DiscussionViewer,
  type ReachedDiscussions,
  type ReactionChanges,
} from './comment-discussion.js';
import type { ServiceContext } from './context.js';
import { withSpaceCounts } from './member-service.js';
import { loadRevisionContent, readPageMarkdown } from './revision-content.js';
import { assertSpacePermission } from './space-access.js';
import { inTransaction } from './transaction.js';

type CommentBody = components['schemas']['CommentBody'];

/*
 * The comments of a space, on the space, one of its pages, blocks or table cells, or a change request
 * (change-request-comments.ts); their replies have comment-reply-service.ts, and what both share (views,
 * reactions, the open-comment counters, the scopes) is in comment-discussion.ts. Each operation works on a
 * scope: the space's entry points are here, those of a change request's comments in
 * change-request-discussion-service.ts, both over the same functions.
 */

export interface CommentListQuery {
  page?: string;
  limit?: number;
  order?: 'asc' | 'desc';
  status?: 'all' | 'open' | 'resolved';
  targetPage?: string;
  authors?: string[];
}

export type CommentAnswer = { viewer: DiscussionViewer; comment: CommentView };

export async function listScopedComments(
  context: ServiceContext,
  caller: Caller,
  scope: DiscussionScope,
  query: CommentListQuery,
): Promise<{ viewer: DiscussionViewer; page: KeysetPage<CommentView> }> {
  const { after, limit } = pageRequest(query, COMMENT_ORDER_KEY_LENGTH);
  const reached = await reachDiscussions(context, caller, scope);
  const status = query.status ?? 'all';
  const page = await listComments(context.db, reached.access.space.id, {
    ...(reached.changeRequest ? { changeRequestId: reached.changeRequest.id } : {}),
    ...(status !== 'all' ? { status } : {}),
    ...(query.targetPage !== undefined ? { pageId: query.targetPage } : {}),
    ...(query.authors !== undefined ? { authorIds: query.authors } : {}),
  }, query.order ?? 'desc', after, limit);
  return { viewer: viewerOf(caller, reached.access), page: { ...page, rows: await commentViews(context, page.rows) } };
}

export async function getScopedComment(context: ServiceContext, caller: Caller, scope: DiscussionScope, commentId: string): Promise<CommentAnswer> {
  const reached = await reachDiscussions(context, caller, scope);
  const [comment] = await commentViews(context, [await requireCommentWithin(context, reached, commentId)]);
  return { viewer: viewerOf(caller, reached.access), comment: comment! };
}

export async function listScopedCommenters(
  context: ServiceContext,
  caller: Caller,
  scope: DiscussionScope,
  query: { page?: string; limit?: number },
): Promise<{ viewer: MemberViewer; page: KeysetPage<MemberDetailRow> }> {
  const { after, limit } = pageRequest(query, COMMENTER_ORDER_KEY_LENGTH);
  const { access, changeRequest } = await reachDiscussions(context, caller, scope);
  const organizationId = access.space.organization_id;
  const page = await listCommenters(context.db, organizationId, { spaceId: access.space.id, changeRequestId: changeRequest?.id }, after, limit);
  // The space was reached, so the caller is an active member of the space's organization.
  const viewer: MemberViewer = { userId: caller.user.id, membership: access.membership! };
  return { viewer, page: { ...page, rows: await withSpaceCounts(context.db, organizationId, page.rows) } };
}

export interface PostCommentInput {
  body: CommentBody;
  page?: string;
  node?: string;
  tableCell?: { record: string; definition: string };
  changeRequest?: string;
}

function findBlock(nodes: readonly DocNode[], key: string): DocNode | undefined {
  for (const node of nodes) {
    if (node.object === 'text') continue;
    if (node.object === 'block' && node.key === key) return node;
    const inside = findBlock(node.nodes, key);
    if (inside) return inside;
  }
  return undefined;
}

/**
 * Checks that the page, block and table cell a comment is attached to exist in the revision it is posted on.
 * Blocks are named by their `key` in the page's document; a table cell by the ids of its row (`record`, a key
 * of the table's `data.records`) and of its column (`definition`, a key of its `data.definition`).
 */
async function checkAttachment(context: ServiceContext, spaceId: string, revisionId: string, input: PostCommentInput): Promise<void> {
  if (input.page === undefined) return;
  const revision = await findRevisionOfSpace(context.db, spaceId, revisionId);
  if (!revision) throw new Error(`space ${spaceId} has no revision ${revisionId}`);
  const page = (await loadRevisionContent(context.db, revision.root)).pages.get(input.page)?.page;
  if (!page) throw new BadRequestError('No page of the space matches body.page');
  if (input.node === undefined) return;
  let document;
  try {
    document = await markdownToDocumentOffThread(await readPageMarkdown(context.db, page), { what: "the page's markdown" });
  } catch (error) {
    // Stored before the content limits existed: the page has no blocks to name.
    if (error instanceof ContentError) throw new BadRequestError(`body.node: ${error.message}, so its blocks cannot be commented on`);
    throw error;
  }
  const block = findBlock(document.nodes, input.node);
  if (!block || block.object === 'text') throw new BadRequestError('No block of the page matches body.node');
  if (input.tableCell === undefined) return;
  if (block.type !== 'table') throw new BadRequestError('body.tableCell needs body.node to be a table block');
  if (!Object.hasOwn(block.data.records, input.tableCell.record)) throw new BadRequestError('No row of the table matches body.tableCell.record');
  if (!Object.hasOwn(block.data.definition, input.tableCell.definition)) throw new BadRequestError('No column of the table matches body.tableCell.definition');
}

/** Where the comment goes: the change request reached, else the one the body names, else the space's main content. */
async function placeIn(context: ServiceContext, caller: Caller, reached: ReachedDiscussions, input: PostCommentInput): Promise<CommentPlace> {
  if (reached.changeRequest) return { revisionId: reached.changeRequest.revision_id, changeRequestId: reached.changeRequest.id };
  return placeOfComment(context, caller, reached.access, input);
}

export async function postScopedComment(context: ServiceContext, caller: Caller, scope: DiscussionScope, input: PostCommentInput): Promise<CommentAnswer> {
  const body = await storedBody(input.body, 'body.body');
  const reached = await reachDiscussions(context, caller, scope);
  const { access } = reached;
  assertSpacePermission(access, 'comment');
  // Revisions are immutable: what is checked here stays true, so the checks run before the transaction.
  const place = await placeIn(context, caller, reached, input);
  await checkAttachment(context, access.space.id, place.revisionId, input);
  const comment: CommentRow = {
    id: newId(),
    space_id: access.space.id,
    change_request_id: place.changeRequestId,
    revision_id: place.revisionId,
    page_id: input.page ?? null,
    node_id: input.node ?? null,
    table_record: input.tableCell?.record ?? null,
    table_definition: input.tableCell?.definition ?? null,
    author_id: caller.user.id,
    ...body,
    status: 'open',
    resolved_at: null,
    resolved_by: null,
    posted_at: nowIso(),
    edited_at: null,
    review_id: null,
  };
  const record = await inTransaction(context, async (tx) => {
    await insertComment(tx.db, comment);
    await countOpenComments(tx, comment, 1);
    return requireCommentWithin(tx, reached, comment.id);
  });
  return { viewer: viewerOf(caller, access), comment: { ...record, reactions: [], repliers: [] } };
}

export async function updateScopedComment(
  context: ServiceContext,
  caller: Caller,
  scope: DiscussionScope,
  commentId: string,
  input: ReactionChanges & { resolved?: boolean; body?: CommentBody },
): Promise<CommentAnswer> {
  const body = input.body === undefined ? undefined : await storedBody(input.body, 'body.body');
  return inTransaction(context, async (tx) => {
    const reached = await reachDiscussions(tx, caller, scope);
    const viewer = viewerOf(caller, reached.access);
    await lockComment(tx.db, tx.dialect, commentId);
    const { comment } = await requireCommentWithin(tx, reached, commentId);
    if (body !== undefined && !canEditBody(viewer, comment.author_id)) throw bodyRefusal(viewer, comment.author_id, 'comment');
    if (reactsOrResolves(input) && !canComment(viewer)) throw new ForbiddenError(COMMENT_REFUSED);

    const now = nowIso();
    const patch: Partial<CommentRow> = {};
    if (body !== undefined) Object.assign(patch, body, { edited_at: now });
    if (input.resolved === true && comment.status === 'open') {
      Object.assign(patch, { status: 'resolved', resolved_at: now, resolved_by: caller.user.id });
      await countOpenComments(tx, comment, -1);
    } else if (input.resolved === false && comment.status === 'resolved') {
      Object.assign(patch, { status: 'open', resolved_at: null, resolved_by: null });
      await countOpenComments(tx, comment, 1);
    }
    if (Object.keys(patch).length > 0) await updateComment(tx.db, commentId, patch);
    await applyReactions(tx, { commentId, replyId: null }, caller.user.id, input);
    const [view] = await commentViews(tx, [await requireCommentWithin(tx, reached, commentId)]);
    return { viewer, comment: view! };
  });
}

/**
 * Deletes a comment and its replies; answers whether it did. A comment outside the scope is absent, and an
 * absent comment is already deleted.
 */
export async function deleteScopedComment(context: ServiceContext, caller: Caller, scope: DiscussionScope, commentId: string): Promise<boolean> {
  return inTransaction(context, async (tx) => {
    const reached = await reachDiscussions(tx, caller, scope);
    await lockComment(tx.db, tx.dialect, commentId);
    const found = await findCommentWithin(tx, reached, commentId);
    if (!found) return false;
    if (!canDelete(viewerOf(caller, reached.access), found.comment.author_id)) throw new ForbiddenError('Only the author of a comment or an admin of the space can delete it');
    await deleteComment(tx.db, commentId);
    if (found.comment.status === 'open') await countOpenComments(tx, found.comment, -1);
    return true;
  });
}

// ----- the space's entry points -----

export function listCommentsInSpace(context: ServiceContext, caller: Caller, spaceId: string, query: CommentListQuery) {
  return listScopedComments(context, caller, { spaceId }, query);
}

export function getCommentInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string): Promise<CommentAnswer> {
  return getScopedComment(context, caller, { spaceId }, commentId);
}

export function listCommentersInSpace(context: ServiceContext, caller: Caller, spaceId: string, query: { page?: string; limit?: number }) {
  return listScopedCommenters(context, caller, { spaceId }, query);
}

export function postCommentInSpace(context: ServiceContext, caller: Caller, spaceId: string, input: PostCommentInput): Promise<CommentAnswer> {
  return postScopedComment(context, caller, { spaceId }, input);
}

export function updateCommentInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  commentId: string,
  input: ReactionChanges & { resolved?: boolean; body?: CommentBody },
): Promise<CommentAnswer> {
  return updateScopedComment(context, caller, { spaceId }, commentId, input);
}

/** Deletes a comment and its replies; an absent comment is already deleted. */
export async function deleteCommentInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string): Promise<void> {
  await deleteScopedComment(context, caller, { spaceId }, commentId);
}
