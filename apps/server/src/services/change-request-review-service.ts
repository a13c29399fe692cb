import type { components, JSONDocument } from '@quire/api-types';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { canReviewOwnChangeRequest } from '../policies/merge-rule-policy.js';
import { lockChangeRequest, updateChangeRequestRow, type ChangeRequestRow } from '../stores/change-request-store.js';
import {
  addRequestedReviewers,
  findReview,
  insertReview,
  listRequestedReviewers,
  listReviews,
  removeRequestedReviewer,
  requestedReviewersAmong,
  REQUESTED_REVIEWER_ORDER_KEY_LENGTH,
  REVIEW_ORDER_KEY_LENGTH,
  requesterOfReviewer,
  type ChangeRequestReviewRow,
  type RequestedReviewerListing,
  type ReviewListing,
} from '../stores/change-request-review-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMemberIds } from '../stores/member-store.js';
import { findUserById } from '../stores/user-store.js';
import type { Caller } from './caller.js';
import { changeRequestGone, refuseIfMerged, requireChangeRequest, subjectAndDescription, type ChangeRequestViewer } from './change-request-service.js';
import { commentViewsByIds, postReviewComment } from './change-request-comments.js';
import { storedBody } from './comment-body.js';
import { viewerOf, type CommentView, type DiscussionViewer } from './comment-discussion.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { assertSpacePermission, userCanViewSpace } from './space-access.js';

/* Requested reviewers and reviews of change requests; what they mean for merging is in change-request-rules.ts. */

type CommentBody = components['schemas']['CommentBody'];
type ReviewStatus = components['schemas']['ChangeRequestReviewStatus'];

/** A review with what its API object needs. */
export interface ReviewView extends ReviewListing {
  /** The request's current revision: a review given on another one is outdated. */
  currentRevisionId: string;
  /** The discussion comment written with the review, while it exists. */
  comment: CommentView | undefined;
  viewer: DiscussionViewer;
}

export interface ReviewPage {
  /** Each review carries the viewer its API object is shaped for. */
  page: KeysetPage<ReviewView>;
}

export interface RequestedReviewersAnswer {
  requests: RequestedReviewerListing[];
  viewer: ChangeRequestViewer;
}

export interface RequestedReviewerPage {
  page: KeysetPage<RequestedReviewerListing>;
  viewer: ChangeRequestViewer;
}

/** The reviews with their comments (one read for the page). */
async function reviewViews(context: ServiceContext, spaceId: string, listings: readonly ReviewListing[], currentRevisionId: string, viewer: DiscussionViewer): Promise<ReviewView[]> {
  const commentIds = listings.flatMap((listing) => (listing.review.comment_id === null ? [] : [listing.review.comment_id]));
  const comments = await commentViewsByIds(context, spaceId, commentIds);
  return listings.map((listing) => ({
    ...listing,
    currentRevisionId,
    comment: listing.review.comment_id === null ? undefined : comments.get(listing.review.comment_id),
    viewer,
  }));
}

/** Reviewers and reviews are changed only on requests still under work: not merged, not archived. */
function refuseIfClosed(changeRequest: ChangeRequestRow): void {
  refuseIfMerged(changeRequest);
  if (changeRequest.status === 'archived') {
    throw new ConflictError(`Change request #${changeRequest.number} is archived; set it back to draft or open first`);
  }
}

export async function requestReviewersForChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  body: { users: string[]; subject?: string; description?: JSONDocument },
): Promise<RequestedReviewersAnswer> {
  return inTransaction(context, async (tx) => {
    const found = await requireChangeRequest(tx, caller, spaceId, idOrNumber, { need: 'edit' });
    const current = await lockChangeRequest(tx.db, context.dialect, found.changeRequest.id);
    if (!current) throw changeRequestGone();
    refuseIfClosed(current);
    const users = [...new Set(body.users)];
    const members = await findMemberIds(tx.db, found.space.organization_id, users);
    for (const [index, userId] of body.users.entries()) {
      if (!members.has(userId) || !(await userCanViewSpace(tx, userId, found.space.id))) {
        throw new BadRequestError(`body.users.${index} is not a member of the organization who can see this space`);
      }
    }
    const at = nowIso();
    // The public API lets the author set the request's subject and description as they ask for reviews.
    const fields = subjectAndDescription(body);
    if (Object.keys(fields).length > 0) await updateChangeRequestRow(tx.db, current.id, { ...fields, updated_at: at });
    await addRequestedReviewers(tx.db, current.id, users, { requestedBy: caller.user.id, revisionId: current.revision_id, at });
    return { requests: await requestedReviewersAmong(tx.db, current.id, users), viewer: { userId: caller.user.id, membership: found.access.membership } };
  });
}

export async function getRequestedReviewersByChangeRequestId(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  query: { page?: string; limit?: number },
): Promise<RequestedReviewerPage> {
  const { after, limit } = pageRequest(query, REQUESTED_REVIEWER_ORDER_KEY_LENGTH);
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  const page = await listRequestedReviewers(context.db, found.changeRequest.id, after, limit);
  return { page, viewer: { userId: caller.user.id, membership: found.access.membership } };
}

export async function removeRequestedReviewerFromChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string, userId: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    const found = await requireChangeRequest(tx, caller, spaceId, idOrNumber, { need: 'edit' });
    const current = await lockChangeRequest(tx.db, context.dialect, found.changeRequest.id);
    if (!current) throw changeRequestGone();
    refuseIfMerged(current);
    if (!(await removeRequestedReviewer(tx.db, current.id, userId))) throw new NotFoundError('This user is not a requested reviewer of the change request');
  });
}

export async function submitChangeRequestReview(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  body: { status: ReviewStatus; comment?: CommentBody },
): Promise<ReviewView> {
  // Checked before anything is written: a comment past the content limits is a 400 that changes nothing.
  const commentBody = body.comment === undefined ? undefined : await storedBody(body.comment, 'body.comment');
  return inTransaction(context, async (tx) => {
    const found = await requireChangeRequest(tx, caller, spaceId, idOrNumber);
    assertSpacePermission(found.access, 'review');
    const current = await lockChangeRequest(tx.db, context.dialect, found.changeRequest.id);
    if (!current) throw changeRequestGone();
    refuseIfClosed(current);
    if (!canReviewOwnChangeRequest(caller.user.id, current.created_by)) throw new ForbiddenError('The author of a change request cannot review it');
    const requestedBy = await requesterOfReviewer(tx.db, current.id, caller.user.id);
    const reviewId = newId();
    const createdAt = nowIso();
    // The comment is a discussion comment of the change request (the public API's review comment), posted
    // with the review (first, so that the review can name it); a comment with no content posts nothing.
    const commentId = commentBody === undefined || commentBody.body_format === 'empty'
      ? null
      : await postReviewComment(tx, { reviewId, spaceId: current.space_id, changeRequestId: current.id, revisionId: current.revision_id, authorId: caller.user.id, postedAt: createdAt }, commentBody);
    const review: ChangeRequestReviewRow = {
      id: reviewId,
      change_request_id: current.id,
      reviewer_id: caller.user.id,
      status: body.status,
      comment: null,
      revision_id: current.revision_id,
      created_at: createdAt,
      requested_by: requestedBy ?? null,
      comment_id: commentId,
    };
    await insertReview(tx.db, review);
    const viewer = viewerOf(caller, found.access);
    const [view] = await reviewViews(tx, current.space_id, [{ review, reviewer: caller.user, requester: requestedBy === undefined ? undefined : await findUserById(tx.db, requestedBy) }], current.revision_id, viewer);
    return view!;
  });
}

export async function getReviewsByChangeRequestId(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  query: { page?: string; limit?: number; outdated?: boolean },
): Promise<ReviewPage> {
  const { after, limit } = pageRequest(query, REVIEW_ORDER_KEY_LENGTH);
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  const filter = { outdated: query.outdated, currentRevisionId: found.changeRequest.revision_id };
  const page = await listReviews(context.db, found.changeRequest.id, filter, after, limit);
  const viewer = viewerOf(caller, found.access);
  return { page: { ...page, rows: await reviewViews(context, found.space.id, page.rows, found.changeRequest.revision_id, viewer) } };
}

export async function getChangeRequestReviewById(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string, reviewId: string): Promise<ReviewView> {
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  const review = await findReview(context.db, found.changeRequest.id, reviewId);
  if (!review) throw new NotFoundError('No review of this change request matches this id');
  const [view] = await reviewViews(context, found.space.id, [review], found.changeRequest.revision_id, viewerOf(caller, found.access));
  return view!;
}
