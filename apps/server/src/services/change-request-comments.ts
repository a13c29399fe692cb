import { BadRequestError, NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { findCommentsByIds, insertComment, type CommentRow } from '../stores/comment-store.js';
import type { Caller } from './caller.js';
import { requireChangeRequest } from './change-request-service.js';
import type { StoredBody } from './comment-body.js';
import { commentViews, countOpenComments, type CommentView } from './comment-discussion.js';
import type { ServiceContext } from './context.js';
import type { SpaceAccess } from './space-access.js';

/*
 * Comments on change requests: a comment posted with `changeRequest` goes on the change request's revision,
 * and the comment written with a review (change-request-review-service.ts) is posted as one of them.
 */

/** Where a new comment goes: the revision it is posted on and the change request, if any. */
export interface CommentPlace {
  revisionId: string;
  changeRequestId: string | null;
}

export async function placeOfComment(context: ServiceContext, caller: Caller, access: SpaceAccess, input: { changeRequest?: string }): Promise<CommentPlace> {
  if (input.changeRequest === undefined) return { revisionId: access.space.revision_id, changeRequestId: null };
  try {
    const { changeRequest } = await requireChangeRequest(context, caller, access.space.id, input.changeRequest);
    return { revisionId: changeRequest.revision_id, changeRequestId: changeRequest.id };
  } catch (error) {
    // The change request is named in the body, not the path: one the space lacks is a bad request.
    if (error instanceof NotFoundError) throw new BadRequestError('No change request of this space matches body.changeRequest');
    throw error;
  }
}

/** What a change request review's comment is posted on: the review, its change request and revision. */
export interface ReviewCommentPlace {
  reviewId: string;
  spaceId: string;
  changeRequestId: string;
  revisionId: string;
  authorId: string;
  postedAt: string;
}

/**
 * Posts the comment written with a review (its body already through `storedBody`) as a discussion comment of
 * the change request, in the review's transaction (which holds the change request's row already), and moves
 * the open-comment counters like any posted comment. Answers the comment's id.
 */
export async function postReviewComment(tx: ServiceContext, place: ReviewCommentPlace, body: StoredBody): Promise<string> {
  const comment: CommentRow = {
    id: newId(), space_id: place.spaceId, change_request_id: place.changeRequestId, review_id: place.reviewId, revision_id: place.revisionId,
    page_id: null, node_id: null, table_record: null, table_definition: null, author_id: place.authorId, ...body,
    status: 'open', resolved_at: null, resolved_by: null, posted_at: place.postedAt, edited_at: null,
  };
  await insertComment(tx.db, comment);
  await countOpenComments(tx, comment, 1);
  return comment.id;
}

/** The comments of the space with these ids, with everything their API objects show, by id (deleted ones are absent). */
export async function commentViewsByIds(context: ServiceContext, spaceId: string, commentIds: readonly string[]): Promise<Map<string, CommentView>> {
  if (commentIds.length === 0) return new Map();
  const views = await commentViews(context, await findCommentsByIds(context.db, spaceId, commentIds));
  return new Map(views.map((view) => [view.comment.id, view]));
}
