import { type Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { ChangeRequestReviewsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import type { UserRow } from './user-store.js';

/** Requested reviewers and reviews of change requests. */

export type ChangeRequestReviewRow = Selectable<ChangeRequestReviewsTable>;

export interface ReviewListing {
  review: ChangeRequestReviewRow;
  reviewer: UserRow;
}

export interface RequestedReviewerListing {
  user: UserRow;
  requestedAt: string;
}

/** Asks the users for a review; users already asked keep their first request time. */
export async function addRequestedReviewers(db: Db, changeRequestId: string, userIds: readonly string[], at: string): Promise<void> {
  if (userIds.length === 0) return;
  await db.insertInto('change_request_reviewers')
    .values(userIds.map((userId) => ({ change_request_id: changeRequestId, user_id: userId, requested_at: at })))
    .onConflict((conflict) => conflict.columns(['change_request_id', 'user_id']).doNothing())
    .execute();
}

/** Removes a requested reviewer; answers whether they were one. */
export async function removeRequestedReviewer(db: Db, changeRequestId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('change_request_reviewers').where('change_request_id', '=', changeRequestId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Ids of the requested reviewers, in the order they were asked (the id settles ties). */
export async function requestedReviewerIds(db: Db, changeRequestId: string): Promise<string[]> {
  const rows = await db.selectFrom('change_request_reviewers').select('user_id').where('change_request_id', '=', changeRequestId).orderBy('requested_at').orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}

type RequestedRow = { requested_at: string; user_id: string; email: string; display_name: string; photo_url: string | null; created_at: string };

const REQUESTED_ORDER: KeysetOrder<RequestedRow> = { columns: ['r.requested_at', 'r.user_id'], keyOf: (row) => [row.requested_at, row.user_id] };
export const REQUESTED_REVIEWER_ORDER_KEY_LENGTH = 2;

export async function listRequestedReviewers(
  db: Db,
  changeRequestId: string,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<RequestedReviewerListing>> {
  const query = db
    .selectFrom('change_request_reviewers as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(['r.requested_at', 'r.user_id', 'u.email', 'u.display_name', 'u.photo_url', 'u.created_at'])
    .where('r.change_request_id', '=', changeRequestId);
  const page = await keysetPage(query, REQUESTED_ORDER, after, limit);
  return {
    ...page,
    rows: page.rows.map((row) => ({
      requestedAt: row.requested_at,
      user: { id: row.user_id, email: row.email, display_name: row.display_name, photo_url: row.photo_url, created_at: row.created_at },
    })),
  };
}

export async function insertReview(db: Db, row: ChangeRequestReviewRow): Promise<void> {
  await db.insertInto('change_request_reviews').values(row).execute();
}

type ReviewRow = ChangeRequestReviewRow & { reviewer_email: string; reviewer_display_name: string; reviewer_photo_url: string | null; reviewer_created_at: string };

function reviewQuery(db: Db, changeRequestId: string) {
  return db
    .selectFrom('change_request_reviews as rv')
    .innerJoin('users as u', 'u.id', 'rv.reviewer_id')
    .selectAll('rv')
    .select(['u.email as reviewer_email', 'u.display_name as reviewer_display_name', 'u.photo_url as reviewer_photo_url', 'u.created_at as reviewer_created_at'])
    .where('rv.change_request_id', '=', changeRequestId);
}

function toListing({ reviewer_email, reviewer_display_name, reviewer_photo_url, reviewer_created_at, ...review }: ReviewRow): ReviewListing {
  return {
    review,
    reviewer: { id: review.reviewer_id, email: reviewer_email, display_name: reviewer_display_name, photo_url: reviewer_photo_url, created_at: reviewer_created_at },
  };
}

const REVIEW_ORDER: KeysetOrder<ReviewRow> = { columns: ['rv.created_at', 'rv.id'], keyOf: (row) => [row.created_at, row.id] };
export const REVIEW_ORDER_KEY_LENGTH = 2;

/** Every review of the request, oldest first. */
export async function listReviews(db: Db, changeRequestId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<ReviewListing>> {
  const page = await keysetPage(reviewQuery(db, changeRequestId), REVIEW_ORDER, after, limit);
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
