import { listAnswer } from '../../pagination.js';
import {
  deleteCommentReplyInSpace,
  getCommentReplyInSpace,
  listCommentRepliesInSpace,
  postCommentReplyInSpace,
  updateCommentReplyInSpace,
} from '../../services/comment-reply-service.js';
import { presentCommentReply } from '../presenters/comment-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Replies to the comments of a space. */
export function commentReplyHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listCommentRepliesInSpace: async ({ caller, params, query }) => {
      const { viewer, page } = await listCommentRepliesInSpace(services, caller, params.spaceId, params.commentId, query);
      return { status: 200, body: listAnswer(page, (view) => presentCommentReply(present, viewer, params.spaceId, view, query.format)) };
    },

    postCommentReplyInSpace: async ({ caller, params, body }) => {
      const { viewer, reply } = await postCommentReplyInSpace(services, caller, params.spaceId, params.commentId, body);
      return { status: 200, body: presentCommentReply(present, viewer, params.spaceId, reply, undefined) };
    },

    getCommentReplyInSpace: async ({ caller, params, query }) => {
      const { viewer, reply } = await getCommentReplyInSpace(services, caller, params.spaceId, params.commentId, params.commentReplyId);
      return { status: 200, body: presentCommentReply(present, viewer, params.spaceId, reply, query.format) };
    },

    updateCommentReplyInSpace: async ({ caller, params, body }) => {
      const { viewer, reply } = await updateCommentReplyInSpace(services, caller, params.spaceId, params.commentId, params.commentReplyId, body);
      return { status: 200, body: presentCommentReply(present, viewer, params.spaceId, reply, undefined) };
    },

    deleteCommentReplyInSpace: async ({ caller, params }) => {
      await deleteCommentReplyInSpace(services, caller, params.spaceId, params.commentId, params.commentReplyId);
      return { status: 204 };
    },
  };
}
