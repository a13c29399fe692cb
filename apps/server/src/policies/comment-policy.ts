import type { components } from '@quire/api-types';
import type { RoleOrGuest } from './roles.js';
import { spacePermissions, type SpaceState } from './space-policy.js';

export type CommentPermissions = components['schemas']['Comment']['permissions'];
export type CommentReplyPermissions = components['schemas']['CommentReply']['permissions'];

/** Who is looking at a discussion: their role on its space and the space's state. */
export interface CommentViewer {
  userId: string;
  role: RoleOrGuest;
  state: SpaceState;
}

/**
 * Taking part in discussions (posting, replying, resolving, reacting) is the space's `comment` permission.
 * It does not depend on the edit mode: a locked space freezes content, not the conversation about it.
 */
export function canComment(viewer: CommentViewer): boolean {
  return spacePermissions(viewer.role, viewer.state).comment;
}

/** The words of a comment or reply are its author's: only they change them, while they may still comment. */
export function canEditBody(viewer: CommentViewer, authorId: string): boolean {
  return viewer.userId === authorId && canComment(viewer);
}

/** Authors take back what they wrote; admins of the space moderate anything in it. */
export function canDelete(viewer: CommentViewer, authorId: string): boolean {
  return canEditBody(viewer, authorId) || spacePermissions(viewer.role, viewer.state).admin;
}

export function commentPermissions(viewer: CommentViewer, authorId: string): CommentPermissions {
  return {
    view: spacePermissions(viewer.role, viewer.state).view,
    edit: canEditBody(viewer, authorId),
    reply: canComment(viewer),
    delete: canDelete(viewer, authorId),
  };
}

export function commentReplyPermissions(viewer: CommentViewer, authorId: string): CommentReplyPermissions {
  return {
    view: spacePermissions(viewer.role, viewer.state).view,
    edit: canEditBody(viewer, authorId),
    delete: canDelete(viewer, authorId),
  };
}
