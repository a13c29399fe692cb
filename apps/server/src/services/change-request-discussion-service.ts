import type { components } from '@quire/api-types';
import type { Caller } from './caller.js';
import {
  deleteScopedComment,
  getScopedComment,
  listScopedCommenters,
  listScopedComments,
  postScopedComment,
  updateScopedComment,
  type CommentAnswer,
  type CommentListQuery,
  type PostCommentInput,
} from './comment-service.js';
import { deleteScopedReply, getScopedReply, listScopedReplies, postScopedReply, updateScopedReply, type ReplyAnswer } from './comment-reply-service.js';
import type { ReactionChanges } from './comment-discussion.js';
import type { ServiceContext } from './context.js';

type CommentBody = components['schemas']['CommentBody'];

/*
 * The discussions of one change request (the public API's change-request-comments family): the comments of
 * the space posted on it, and their replies, through the same functions as the space's own operations
 * (comment-service.ts, comment-reply-service.ts), scoped to the change request named by id or number. A
 * comment of the space that is not on it is, here, absent.
 */

const scopeOf = (spaceId: string, changeRequestId: string) => ({ spaceId, changeRequest: changeRequestId });

export function listCommentsInChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, query: CommentListQuery) {
  return listScopedComments(context, caller, scopeOf(spaceId, changeRequestId), query);
}

export function postCommentInChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  input: Omit<PostCommentInput, 'changeRequest'>,
): Promise<CommentAnswer> {
  return postScopedComment(context, caller, scopeOf(spaceId, changeRequestId), input);
}

export function getCommentInChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, commentId: string): Promise<CommentAnswer> {
  return getScopedComment(context, caller, scopeOf(spaceId, changeRequestId), commentId);
}

export function updateCommentInChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  commentId: string,
  input: ReactionChanges & { resolved?: boolean; body?: CommentBody },
): Promise<CommentAnswer> {
  return updateScopedComment(context, caller, scopeOf(spaceId, changeRequestId), commentId, input);
}

/** Answers whether a comment was deleted (the public API tells the two apart: 205 and 204). */
export function deleteCommentInChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, commentId: string): Promise<boolean> {
  return deleteScopedComment(context, caller, scopeOf(spaceId, changeRequestId), commentId);
}

export function listCommentersInChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, query: { page?: string; limit?: number }) {
  return listScopedCommenters(context, caller, scopeOf(spaceId, changeRequestId), query);
}

export function listCommentRepliesInChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  commentId: string,
  query: { page?: string; limit?: number },
) {
  return listScopedReplies(context, caller, scopeOf(spaceId, changeRequestId), commentId, query);
}

export function postCommentReplyInChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  commentId: string,
  input: { body: CommentBody },
): Promise<ReplyAnswer> {
  return postScopedReply(context, caller, scopeOf(spaceId, changeRequestId), commentId, input);
}

export function getCommentReplyInChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  commentId: string,
  replyId: string,
): Promise<ReplyAnswer> {
  return getScopedReply(context, caller, scopeOf(spaceId, changeRequestId), commentId, replyId);
}

export function updateCommentReplyInChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  commentId: string,
  replyId: string,
  input: ReactionChanges & { body?: CommentBody },
): Promise<ReplyAnswer> {
  return updateScopedReply(context, caller, scopeOf(spaceId, changeRequestId), commentId, replyId, input);
}

/** Answers whether a reply was deleted (205 and 204 in the public API). */
export function deleteCommentReplyInChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  commentId: string,
  replyId: string,
): Promise<boolean> {
  return deleteScopedReply(context, caller, scopeOf(spaceId, changeRequestId), commentId, replyId);
}
