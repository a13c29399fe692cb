import { listAnswer } from '../../pagination.js';
import { getContributorsByChangeRequestId } from '../../services/change-request-contributor-service.js';
import {
  deleteCommentInChangeRequest,
  deleteCommentReplyInChangeRequest,
  getCommentInChangeRequest,
  getCommentReplyInChangeRequest,
  listCommentersInChangeRequest,
  listCommentRepliesInChangeRequest,
  listCommentsInChangeRequest,
  postCommentInChangeRequest,
  postCommentReplyInChangeRequest,
  updateCommentInChangeRequest,
  updateCommentReplyInChangeRequest,
} from '../../services/change-request-discussion-service.js';
import { presentChangeRequestContributor } from '../presenters/change-request-contributor-presenter.js';
import { presentComment, presentCommentReply } from '../presenters/comment-presenter.js';
import { presentMember } from '../presenters/member-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/**
 * The discussions of a change request (its comments, their replies, commenters) and its contributors. A
 * comment answers the same object here as through the space's operations.
 */
export function changeRequestDiscussionHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listCommentsInChangeRequest: async ({ caller, params, query }) => {
      const { viewer, page } = await listCommentsInChangeRequest(services, caller, params.spaceId, params.changeRequestId, query);
      return { status: 200, body: listAnswer(page, (view) => presentComment(present, viewer, view, query.format)) };
    },

    postCommentInChangeRequest: async ({ caller, params, body }) => {
      const { viewer, comment } = await postCommentInChangeRequest(services, caller, params.spaceId, params.changeRequestId, body);
      return { status: 200, body: presentComment(present, viewer, comment, undefined) };
    },

    getCommentInChangeRequest: async ({ caller, params, query }) => {
      const { viewer, comment } = await getCommentInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId);
      return { status: 200, body: presentComment(present, viewer, comment, query.format) };
    },

    updateCommentInChangeRequest: async ({ caller, params, body }) => {
      const { viewer, comment } = await updateCommentInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId, body);
      return { status: 200, body: presentComment(present, viewer, comment, undefined) };
    },

    deleteCommentInChangeRequest: async ({ caller, params }) => {
      const deleted = await deleteCommentInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId);
      return { status: deleted ? 205 : 204 };
    },

    listCommentersInChangeRequest: async ({ caller, params, query }) => {
      const { viewer, page } = await listCommentersInChangeRequest(services, caller, params.spaceId, params.changeRequestId, query);
      return { status: 200, body: listAnswer(page, (row) => presentMember(present, viewer, row)) };
    },

    listCommentRepliesInChangeRequest: async ({ caller, params, query }) => {
      const { viewer, page } = await listCommentRepliesInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId, query);
      return { status: 200, body: listAnswer(page, (view) => presentCommentReply(present, viewer, params.spaceId, view, query.format)) };
    },

    postCommentReplyInChangeRequest: async ({ caller, params, query, body }) => {
      const { viewer, reply } = await postCommentReplyInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId, body);
      return { status: 200, body: presentCommentReply(present, viewer, params.spaceId, reply, query.format) };
    },

    getCommentReplyInChangeRequest: async ({ caller, params, query }) => {
      const { viewer, reply } = await getCommentReplyInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId, params.commentReplyId);
      return { status: 200, body: presentCommentReply(present, viewer, params.spaceId, reply, query.format) };
    },

    updateCommentReplyInChangeRequest: async ({ caller, params, body }) => {
      const { viewer, reply } = await updateCommentReplyInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId, params.commentReplyId, body);
      return { status: 200, body: presentCommentReply(present, viewer, params.spaceId, reply, undefined) };
    },

    deleteCommentReplyInChangeRequest: async ({ caller, params }) => {
      const deleted = await deleteCommentReplyInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.commentId, params.commentReplyId);
      return { status: deleted ? 205 : 204 };
    },

    getContributorsByChangeRequestId: async ({ caller, params, query }) => {
      const { viewer, page } = await getContributorsByChangeRequestId(services, caller, params.spaceId, params.changeRequestId, query);
      return { status: 200, body: listAnswer(page, (record) => presentChangeRequestContributor(present, viewer, record)) };
    },
  };
}
