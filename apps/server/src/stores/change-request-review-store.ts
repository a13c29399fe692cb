import { type Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { ChangeRequestReviewsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { userColumns, userDetailColumns, userFrom } from './user-columns.js';
import type { UserRow } from './user-store.js';

/** Requested reviewers and reviews of change requests. */

export type ChangeRequestReviewRow = Selectable<ChangeRequestReviewsTable>;

export interface ReviewListing {
  review: ChangeRequestReviewRow;
  reviewer: UserRow;
  /** Who had asked the reviewer for the review; undefined when it was given unasked. */
  requester: UserRow | undefined;
}

export interface RequestedReviewerListing {
  user: UserRow;
  requestedBy: UserRow;
  /** The change request's revision when the review was asked for. */
  revisionId: string;
  requestedAt: string;
}

/** Who asks, when, and on which revision of the change request. */
export interface ReviewRequest {
  requestedBy: string;
  revisionId: string;
  at: string;
}

/** Asks the users for a review; users already asked keep their first request (who asked, when, on which revision). */
export async function addRequestedReviewers(db: Db, changeRequestId: string, userIds: readonly string[], request: ReviewRequest): Promise<void> {
  if (userIds.length === 0) return;
  await db.insertInto('change_request_reviewers')
    .values(userIds.map((userId) => ({
      change_request_id: changeRequestId, user_id: userId, requested_at: request.at, requested_by: request.requestedBy, revision_id: request.revisionId,
    })))
    .onConflict((conflict) => conflict.columns(['change_request_id', 'user_id']).doNothing())
    .execute();
}

/** Removes a requested reviewer; answers whether they were one. */
export async function removeRequestedReviewer(db: Db, changeRequestId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('change_request_reviewers').where('change_request_id', '=', changeRequestId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Ids of the requested reviewers, in the order they were asked (the id settles ties). */
/** Who asked the user to review the change request, while they are a requested reviewer of it. */
export async function requesterOfReviewer(db: Db, changeRequestId: string, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('change_request_reviewers').select('requested_by')
    .where('change_request_id', '=', changeRequestId).where('user_id', '=', userId).executeTakeFirst();
  return row?.requested_by ?? undefined;
}

function requestedQuery(db: Db, changeRequestId: string) {
  return db
    .selectFrom('change_request_reviewers as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .innerJoin('users as rb', 'rb.id', 'r.requested_by')
    .select([
      'r.requested_at', 'r.revision_id', 'r.user_id',
      ...userDetailColumns('u', 'user'),
      ...userColumns('rb', 'requester'),
    ])
    .where('r.change_request_id', '=', changeRequestId);
}

type RequestedRow = Awaited<ReturnType<ReturnType<typeof requestedQuery>['execute']>>[number];

function requestedListing(row: RequestedRow): RequestedReviewerListing {
  return { requestedAt: row.requested_at, revisionId: row.revision_id, user: userFrom('user', row), requestedBy: userFrom('requester', row) };
}

const REQUESTED_ORDER: KeysetOrder<RequestedRow> = { columns: ['r.requested_at', 'r.user_id'], keyOf: (row) => [row.requested_at, row.user_id] };
export const REQUESTED_REVIEWER_ORDER_KEY_LENGTH = 2;

export async function listRequestedReviewers(
  db: Db,
  changeRequestId: string,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<RequestedReviewerListing>> {
  const page = await keysetPage(requestedQuery(db, changeRequestId), REQUESTED_ORDER, after, limit);
  return {
    ...page,
    rows: page.rows.map(requestedListing),
  };
}

/** The requests of these users (those that are requested reviewers), in the order of `userIds`. */
export async function requestedReviewersAmong(db: Db, changeRequestId: string, userIds: readonly string[]): Promise<RequestedReviewerListing[]> {
  if (userIds.length === 0) return [];
  const rows = await requestedQuery(db, changeRequestId).where('r.user_id', 'in', [...userIds]).execute();
  const byUser = new Map(rows.map((row) => [row.user_id, row]));
  return userIds.flatMap((userId) => {
    const row = byUser.get(userId);
    return row ? [requestedListing(row)] : [];
  });
}

export async function insertReview(db: Db, row: ChangeRequestReviewRow): Promise<void> {
  await db.insertInto('change_request_reviews').values(row).execute();
}

function reviewQuery(db: Db, changeRequestId: string) {
  return db
    .selectFrom('change_request_reviews as rv')
    .innerJoin('users as u', 'u.id', 'rv.reviewer_id')
    .leftJoin('users as rb', 'rb.id', 'rv.requested_by')
    .selectAll('rv')
    .select([...userDetailColumns('u', 'reviewer'), ...userColumns('rb', 'requester')])
    .where('rv.change_request_id', '=', changeRequestId);
}

type ReviewRow = Awaited<ReturnType<ReturnType<typeof reviewQuery>['execute']>>[number];

function toListing(row: ReviewRow): ReviewListing {
  const {
    reviewer_email, reviewer_display_name, reviewer_photo_url, reviewer_created_at,
    requester_id, requester_email, requester_display_name, requester_photo_url, requester_created_at,
    ...review
  } = row;
  return { review, reviewer: userFrom('reviewer', row), requester: requester_id === null ? undefined : userFrom('requester', row) };
}

const REVIEW_ORDER: KeysetOrder<ReviewRow> = { columns: ['rv.created_at', 'rv.id'], keyOf: (row) => [row.created_at, row.id] };
export const REVIEW_ORDER_KEY_LENGTH = 2;

/** Who asks for which reviews: `outdated` true keeps those given on another revision than `currentRevisionId`, false those on it. */
export interface ReviewFilter {
  outdated?: boolean;
  currentRevisionId: string;
}

/** The reviews of the request, oldest first. */
export async function listReviews(db: Db, changeRequestId: string, filter: ReviewFilter, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<ReviewListing>> {
  const query = filter.outdated === undefined ? reviewQuery(db, changeRequestId)
    : reviewQuery(db, changeRequestId).where('rv.revision_id', filter.outdated ? '<>' : '=', filter.currentRevisionId);
  const page = await keysetPage(query, REVIEW_ORDER, after, limit);
  return { ...page, rows: page.rows.map(toListing) };
}

export async function findReview(db: Db, changeRequestId: string, reviewId: string): Promise<ReviewListing | undefined> {
  const row = await reviewQuery(db, changeRequestId).where('rv.id', '=', reviewId).executeTakeFirst();
  return row ? toListing(row) : undefined;
}

/** The reviews the merge rules read: reviewer, status and revision of each, oldest first. */
export async function reviewsForRules(db: Db, changeRequestId: string): Promise<Array<Pick<ChangeRequestReviewRow, 'reviewer_id' | 'status' | 'revision_id' | 'created_at'>>> {
  return db.selectFrom('change_request_reviews').select(['reviewer_id', 'status', 'revision_id', 'created_at'])
    .where('change_request_id', '=', changeRequestId).orderBy('created_at').orderBy('id').execute();
}
