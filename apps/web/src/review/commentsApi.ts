import { unwrap } from '@quire/client';
import type { components } from '@quire/api-types';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';

/*
 * The two comment families of the API behind one shape, so that one panel shows the discussions of a change
 * request (listCommentsInChangeRequest...) and of a space's main content (listCommentsInSpace...). Bodies are
 * always asked for as Markdown, which the panel renders with @quire/render.
 */

export type Comment = components['schemas']['Comment'];
export type CommentReply = components['schemas']['CommentReply'];
export type CommentScope = { kind: 'change-request'; spaceId: string; changeRequestId: string } | { kind: 'space'; spaceId: string };
type Patch = { body?: { markdown: string }; resolved?: boolean };

export interface CommentsApi {
  key: unknown[];
  list(): Promise<Comment[]>;
  post(markdown: string, page: string | undefined): Promise<Comment>;
  update(commentId: string, patch: Patch): Promise<Comment>;
  remove(commentId: string): Promise<unknown>;
  replies(commentId: string): Promise<CommentReply[]>;
  reply(commentId: string, markdown: string): Promise<CommentReply>;
  updateReply(commentId: string, commentReplyId: string, markdown: string): Promise<CommentReply>;
  removeReply(commentId: string, commentReplyId: string): Promise<unknown>;
}

const pageQuery = (page: string | undefined) => ({ limit: 100, format: 'markdown' as const, ...(page ? { page } : {}) });

export function commentsApi(scope: CommentScope): CommentsApi {
  const { spaceId } = scope;
  if (scope.kind === 'change-request') {
    const { changeRequestId } = scope;
    const base = { spaceId, changeRequestId };
    return {
      key: ['space', spaceId, 'change-request', changeRequestId, 'comments'],
      list: () => all((page) => api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { params: { path: base, query: { ...pageQuery(page), order: 'asc' } } })),
      post: (markdown, page) => unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { params: { path: base }, body: { body: { markdown }, ...(page ? { page } : {}) } })),
      update: (commentId, patch) => unwrap(api.PUT('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', { params: { path: { ...base, commentId } }, body: patch })),
      remove: (commentId) => unwrap(api.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', { params: { path: { ...base, commentId } } })),
      replies: (commentId) => all((page) => api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { params: { path: { ...base, commentId }, query: pageQuery(page) } })),
      reply: (commentId, markdown) => unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { params: { path: { ...base, commentId } }, body: { body: { markdown } } })),
      updateReply: (commentId, commentReplyId, markdown) => unwrap(api.PUT('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { ...base, commentId, commentReplyId } }, body: { body: { markdown } } })),
      removeReply: (commentId, commentReplyId) => unwrap(api.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { ...base, commentId, commentReplyId } } })),
    };
  }
  const base = { spaceId };
  return {
    key: ['space', spaceId, 'comments'],
    list: () => all((page) => api.GET('/spaces/{spaceId}/comments', { params: { path: base, query: { ...pageQuery(page), order: 'asc' } } })),
    post: (markdown, page) => unwrap(api.POST('/spaces/{spaceId}/comments', { params: { path: base }, body: { body: { markdown }, ...(page ? { page } : {}) } })),
    update: (commentId, patch) => unwrap(api.PUT('/spaces/{spaceId}/comments/{commentId}', { params: { path: { ...base, commentId } }, body: patch })),
    remove: (commentId) => unwrap(api.DELETE('/spaces/{spaceId}/comments/{commentId}', { params: { path: { ...base, commentId } } })),
    replies: (commentId) => all((page) => api.GET('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { ...base, commentId }, query: pageQuery(page) } })),
    reply: (commentId, markdown) => unwrap(api.POST('/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { ...base, commentId } }, body: { body: { markdown } } })),
    updateReply: (commentId, commentReplyId, markdown) => unwrap(api.PUT('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { ...base, commentId, commentReplyId } }, body: { body: { markdown } } })),
    removeReply: (commentId, commentReplyId) => unwrap(api.DELETE('/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { params: { path: { ...base, commentId, commentReplyId } } })),
  };
}
