import {
  deleteCommentInSpace,
  getCommentInSpace,
  listCommentersInSpace,
  listCommentsInSpace,
  postCommentInSpace,
  updateCommentInSpace,
} from '../../services/comment-service.js';
import { listAnswer } from '../../pagination.js';
import { presentComment } from '../presenters/comment-presenter.js';
import { presentMember } from '../presenters/member-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Discussions in spaces: comments and the people who took part; replies have comment-reply-handlers.ts. */
export function commentHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listCommentsInSpace: async ({ caller, params, query }) => {
      const { viewer, page } = await listCommentsInSpace(services, caller, params.spaceId, query);
      return { status: 200, body: listAnswer(page, (view) => presentComment(present, viewer, view, query.format)) };
    },

    postCommentInSpace: async ({ caller, params, body }) => {
      const { viewer, comment } = await postCommentInSpace(services, caller, params.spaceId, body);
      return { status: 200, body: presentComment(present, viewer, comment, undefined) };
    },

    getCommentInSpace: async ({ caller, params, query }) => {
      const { viewer, comment } = await getCommentInSpace(services, caller, params.spaceId, params.commentId);
      return { status: 200, body: presentComment(present, viewer, comment, query.format) };
    },

    updateCommentInSpace: async ({ caller, params, body }) => {
      const { viewer, comment } = await updateCommentInSpace(services, caller, params.spaceId, params.commentId, body);
      return { status: 200, body: presentComment(present, viewer, comment, undefined) };
    },

    deleteCommentInSpace: async ({ caller, params }) => {
      await deleteCommentInSpace(services, caller, params.spaceId, params.commentId);
      return { status: 204 };
    },

    listCommentersInSpace: async ({ caller, params, query }) => {
      const { viewer, page } = await listCommentersInSpace(services, caller, params.spaceId, query);
      return { status: 200, body: listAnswer(page, (row) => presentMember(present, viewer, row)) };
    },
  };
}
