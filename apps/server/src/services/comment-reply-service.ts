import type { components } from '@quire/api-types';
import { ForbiddenError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { canComment, canDelete, canEditBody } from '../policies/comment-policy.js';
import { deleteReply, findReply, insertReply, listReplies, lockComment, REPLY_ORDER_KEY_LENGTH, updateReply } from '../stores/comment-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { Caller } from './caller.js';
import { storedBody } from './comment-body.js';
import {
  applyReactions,
  bodyRefusal,
  COMMENT_REFUSED,
  reachDiscussions,
  reactsOrResolves,
  replyNotFound,
  replyViews,
  requireCommentWithin,
  viewerOf,
  type DiscussionScope,
  type DiscussionViewer,
  type ReactionChanges,
  type ReplyView,
} from './comment-discussion.js';
import type { ServiceContext } from './context.js';
import { assertSpacePermission } from './space-access.js';
import { inTransaction } from './transaction.js';

type CommentBody = components['schemas']['CommentBody'];

/*
 * Replies to the comments of a space (comment-discussion.ts says what they share with comments). Each
 * operation works on a scope, as comments do: the space's entry points are here, those of a change
 * request's comments in change-request-discussion-service.ts.
 */

export type ReplyAnswer = { viewer: DiscussionViewer; reply: ReplyView };

export async function listScopedReplies(
  context: ServiceContext,
  caller: Caller,
  scope: DiscussionScope,
  commentId: string,
  query: { page?: string; limit?: number },
): Promise<{ viewer: DiscussionViewer; page: KeysetPage<ReplyView> }> {
  const { after, limit } = pageRequest(query, REPLY_ORDER_KEY_LENGTH);
  const reached = await reachDiscussions(context, caller, scope);
  await requireCommentWithin(context, reached, commentId);
  const page = await listReplies(context.db, commentId, after, limit);
  return { viewer: viewerOf(caller, reached.access), page: { ...page, rows: await replyViews(context, page.rows) } };
}

export async function getScopedReply(context: ServiceContext, caller: Caller, scope: DiscussionScope, commentId: string, replyId: string): Promise<ReplyAnswer> {
  const reached = await reachDiscussions(context, caller, scope);
  await requireCommentWithin(context, reached, commentId);
  const record = await findReply(context.db, commentId, replyId);
  if (!record) throw replyNotFound();
  const [reply] = await replyViews(context, [record]);
  return { viewer: viewerOf(caller, reached.access), reply: reply! };
}

export async function postScopedReply(context: ServiceContext, caller: Caller, scope: DiscussionScope, commentId: string, input: { body: CommentBody }): Promise<ReplyAnswer> {
  const body = await storedBody(input.body, 'body.body');
  return inTransaction(context, async (tx) => {
    const reached = await reachDiscussions(tx, caller, scope);
    assertSpacePermission(reached.access, 'comment');
    // Held so that the comment cannot be deleted between the check and the insert.
    await lockComment(tx.db, tx.dialect, commentId);
    await requireCommentWithin(tx, reached, commentId);
    const replyId = newId();
    await insertReply(tx.db, { id: replyId, comment_id: commentId, space_id: reached.access.space.id, author_id: caller.user.id, ...body, posted_at: nowIso(), edited_at: null });
    const record = await findReply(tx.db, commentId, replyId);
    return { viewer: viewerOf(caller, reached.access), reply: { ...record!, reactions: [] } };
  });
}

export async function updateScopedReply(
  context: ServiceContext,
  caller: Caller,
  scope: DiscussionScope,
  commentId: string,
  replyId: string,
  input: ReactionChanges & { body?: CommentBody },
): Promise<ReplyAnswer> {
  const body = input.body === undefined ? undefined : await storedBody(input.body, 'body.body');
  return inTransaction(context, async (tx) => {
    const reached = await reachDiscussions(tx, caller, scope);
    const viewer = viewerOf(caller, reached.access);
    // The comment's row is held so that deleting it (and the reply with it) waits for this change.
    await lockComment(tx.db, tx.dialect, commentId);
    await requireCommentWithin(tx, reached, commentId);
    const found = await findReply(tx.db, commentId, replyId);
    if (!found) throw replyNotFound();
    if (body !== undefined && !canEditBody(viewer, found.reply.author_id)) throw bodyRefusal(viewer, found.reply.author_id, 'reply');
    if (reactsOrResolves(input) && !canComment(viewer)) throw new ForbiddenError(COMMENT_REFUSED);
    if (body !== undefined) await updateReply(tx.db, replyId, { ...body, edited_at: nowIso() });
    await applyReactions(tx, { commentId, replyId }, caller.user.id, input);
    const [view] = await replyViews(tx, [(await findReply(tx.db, commentId, replyId))!]);
    return { viewer, reply: view! };
  });
}

/**
 * Deletes a reply and answers whether it did; an absent reply is already deleted, but the comment must be
 * one of the scope's.
 */
export async function deleteScopedReply(context: ServiceContext, caller: Caller, scope: DiscussionScope, commentId: string, replyId: string): Promise<boolean> {
  return inTransaction(context, async (tx) => {
    const reached = await reachDiscussions(tx, caller, scope);
    await lockComment(tx.db, tx.dialect, commentId);
    await requireCommentWithin(tx, reached, commentId);
    const found = await findReply(tx.db, commentId, replyId);
    if (!found) return false;
    if (!canDelete(viewerOf(caller, reached.access), found.reply.author_id)) throw new ForbiddenError('Only the author of a reply or an admin of the space can delete it');
    await deleteReply(tx.db, replyId);
    return true;
  });
}

// ----- the space's entry points -----

export function listCommentRepliesInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string, query: { page?: string; limit?: number }) {
  return listScopedReplies(context, caller, { spaceId }, commentId, query);
}

export function getCommentReplyInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string, replyId: string): Promise<ReplyAnswer> {
  return getScopedReply(context, caller, { spaceId }, commentId, replyId);
}

export function postCommentReplyInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string, input: { body: CommentBody }): Promise<ReplyAnswer> {
  return postScopedReply(context, caller, { spaceId }, commentId, input);
}

export function updateCommentReplyInSpace(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  commentId: string,
  replyId: string,
  input: ReactionChanges & { body?: CommentBody },
): Promise<ReplyAnswer> {
  return updateScopedReply(context, caller, { spaceId }, commentId, replyId, input);
}

/** Deletes a reply; an absent reply is already deleted, but the comment must be one of the space's. */
export async function deleteCommentReplyInSpace(context: ServiceContext, caller: Caller, spaceId: string, commentId: string, replyId: string): Promise<void> {
  await deleteScopedReply(context, caller, { spaceId }, commentId, replyId);
}
