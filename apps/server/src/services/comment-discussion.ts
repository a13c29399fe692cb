import { ForbiddenError, NotFoundError } from '../errors.js';
import { nowIso } from '../ids.js';
import type { CommentViewer } from '../policies/comment-policy.js';
import type { OrganizationMembership } from '../policies/organization-policy.js';
import {
  addReactions,
  adjustChangeRequestOpenComments,
  findComment,
  findReactions,
  findRepliers,
  removeReactions,
  type CommentReactionRow,
  type CommentRecord,
  type CommentReplyRecord,
  type CommentRow,
  type ReactionRecord,
  type ReplierRecord,
} from '../stores/comment-store.js';
import type { ChangeRequestRow } from '../stores/change-request-store.js';
import { adjustSpaceCounters } from '../stores/space-store.js';
import type { Caller } from './caller.js';
import { requireChangeRequest } from './change-request-service.js';
import type { ServiceContext } from './context.js';
import { requireSpace, type SpaceAccess } from './space-access.js';

/*
 * What the discussions of a space share: comments (comment-service.ts), their replies
 * (comment-reply-service.ts) and the comments of change request reviews (change-request-comments.ts). The
 * open-comment counters (`comments` of the space, and of the change request a comment is on) move in the
 * same transaction as every write that opens or closes a comment: posting, resolving, reopening, deleting.
 * Each of those holds the comment's row first, so that two requests on the same comment run one after the
 * other and the counters move once per real change.
 *
 * The space counter counts every open comment of the space, those on its change requests included, exactly
 * the comments that `listCommentsInSpace` answers with `status=open`.
 *
 * A request reaches the discussions of a space through the space (`/spaces/{spaceId}/comments...`: all of
 * them) or through one of its change requests (`/spaces/{spaceId}/change-requests/{id}/comments...`: those
 * posted on it). Both reach the same comments: one posted on a change request is read, answered, resolved
 * and deleted through either, and a comment outside the change request is, through it, absent.
 */

/** Which discussions a request is about: those of a space, or of one change request of it (id or number). */
export interface DiscussionScope {
  spaceId: string;
  changeRequest?: string;
}

/** The discussions a request reached: the space with the caller's role, and the change request when scoped to one. */
export interface ReachedDiscussions {
  access: SpaceAccess;
  changeRequest: ChangeRequestRow | undefined;
}

/** Loads the space (and the change request) the scope names, as the caller sees them: 404 when they cannot. */
export async function reachDiscussions(context: ServiceContext, caller: Caller, scope: DiscussionScope): Promise<ReachedDiscussions> {
  if (scope.changeRequest === undefined) return { access: await requireSpace(context, caller, scope.spaceId), changeRequest: undefined };
  const found = await requireChangeRequest(context, caller, scope.spaceId, scope.changeRequest);
  return { access: found.access, changeRequest: found.changeRequest };
}

/** Whether a comment of the reached space is one of the reached discussions. */
export function withinReach(reached: ReachedDiscussions, comment: Pick<CommentRow, 'change_request_id'>): boolean {
  return reached.changeRequest === undefined || comment.change_request_id === reached.changeRequest.id;
}

/** Who is looking, with what decides what they may see of other people (e-mail addresses) and do. */
export interface DiscussionViewer extends CommentViewer {
  membership: OrganizationMembership | undefined;
}

/** A comment with everything its API object shows. */
export interface CommentView extends CommentRecord {
  reactions: ReactionRecord[];
  repliers: ReplierRecord[];
}

export interface ReplyView extends CommentReplyRecord {
  reactions: ReactionRecord[];
}

/** The caller as the discussions of a space they reached see them. */
export function viewerOf(caller: Caller, access: SpaceAccess): DiscussionViewer {
  return { userId: caller.user.id, role: access.role, state: access.state, membership: access.membership };
}

export function commentNotFound(reached?: ReachedDiscussions): NotFoundError {
  return new NotFoundError(`No comment of this ${reached?.changeRequest ? 'change request' : 'space'} matches this id`);
}

export function replyNotFound(): NotFoundError {
  return new NotFoundError('No reply to this comment matches this id');
}

export const COMMENT_REFUSED = 'You need the comment permission of this space';

export async function commentViews(context: ServiceContext, records: readonly CommentRecord[]): Promise<CommentView[]> {
  if (records.length === 0) return [];
  const ids = records.map((record) => record.comment.id);
  const [reactions, repliers] = await Promise.all([findReactions(context.db, ids), findRepliers(context.db, ids)]);
  return records.map((record) => ({
    ...record,
    reactions: reactions.filter((reaction) => reaction.subjectId === record.comment.id),
    repliers: repliers.filter((replier) => replier.commentId === record.comment.id),
  }));
}

export async function replyViews(context: ServiceContext, records: readonly CommentReplyRecord[]): Promise<ReplyView[]> {
  if (records.length === 0) return [];
  const reactions = await findReactions(context.db, records.map((record) => record.reply.id));
  return records.map((record) => ({ ...record, reactions: reactions.filter((reaction) => reaction.subjectId === record.reply.id) }));
}

/** The comment among the reached discussions; one of the space outside them is as absent as a missing one. */
export async function findCommentWithin(context: ServiceContext, reached: ReachedDiscussions, commentId: string): Promise<CommentRecord | undefined> {
  const record = await findComment(context.db, reached.access.space.id, commentId);
  return record && withinReach(reached, record.comment) ? record : undefined;
}

export async function requireCommentWithin(context: ServiceContext, reached: ReachedDiscussions, commentId: string): Promise<CommentRecord> {
  const record = await findCommentWithin(context, reached, commentId);
  if (!record) throw commentNotFound(reached);
  return record;
}

/** Moves the open-comment counters of the comment's space and change request by `delta`. */
export async function countOpenComments(context: ServiceContext, comment: Pick<CommentRow, 'space_id' | 'change_request_id'>, delta: number): Promise<void> {
  // The change request's row first, then the space's: the order in which the change request service
  // takes them, so that the two never wait for each other in opposite orders.
  if (comment.change_request_id !== null) await adjustChangeRequestOpenComments(context.db, comment.change_request_id, delta);
  await adjustSpaceCounters(context.db, comment.space_id, { comments: delta });
}

export interface ReactionChanges {
  addedReactions?: string[];
  removedReactions?: string[];
}

/** Applies the caller's reaction changes to a comment or a reply; an emoji in both lists is removed. */
export async function applyReactions(context: ServiceContext, target: { commentId: string; replyId: string | null }, userId: string, changes: ReactionChanges): Promise<void> {
  const removed = [...new Set(changes.removedReactions ?? [])];
  const added = [...new Set(changes.addedReactions ?? [])].filter((emoji) => !removed.includes(emoji));
  const subjectId = target.replyId ?? target.commentId;
  await removeReactions(context.db, subjectId, userId, removed);
  const now = nowIso();
  const rows: CommentReactionRow[] = added.map((emoji) => ({
    subject_id: subjectId, comment_id: target.commentId, reply_id: target.replyId, emoji, user_id: userId, reacted_at: now,
  }));
  await addReactions(context.db, rows);
}

export function bodyRefusal(viewer: DiscussionViewer, authorId: string, what: 'comment' | 'reply'): ForbiddenError {
  return new ForbiddenError(viewer.userId === authorId ? COMMENT_REFUSED : `Only the author of a ${what} can change its body`);
}

export function reactsOrResolves(input: ReactionChanges & { resolved?: boolean }): boolean {
  return input.resolved !== undefined || input.addedReactions !== undefined || input.removedReactions !== undefined;
}
