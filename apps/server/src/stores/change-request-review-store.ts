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
export async function requestedReviewerIds(db: Db, changeRequestId: string): Promise<string[]> {
  const rows = await db.selectFrom('change_request_reviewers').select('user_id').where('change_request_id', '=', changeRequestId).orderBy('requested_at').orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}

/** Who asked the user to review the change request, while they are a requested reviewer of it. */
export async function requesterOfReviewer(db: Db, changeRequestId: string, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('change_request_reviewers').select('requested_by')
    .where('change_request_id', '=', changeRequestId).where('user_id', '=', userId).executeTakeFirst();
  return row?.requested_by ?? undefined;
}

/** The user whose columns were selected as `<prefix>_id`, `<prefix>_email`, ... */
function userFrom(prefix: string, row: Record<string, unknown>): UserRow {
  return {
    id: row[`${prefix}_id`] as string,
    email: row[`${prefix}_email`] as string,
    display_name: row[`${prefix}_display_name`] as string,
    photo_url: (row[`${prefix}_photo_url`] as string | null) ?? null,
    created_at: row[`${prefix}_created_at`] as string,
  };
}

function requestedQuery(db: Db, changeRequestId: string) {
  return db
    .selectFrom('change_request_reviewers as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .innerJoin('users as rb', 'rb.id', 'r.requested_by')
    .select([
      'r.requested_at', 'r.revision_id',
      'r.user_id', 'u.email as user_email', 'u.display_name as user_display_name', 'u.photo_url as user_photo_url', 'u.created_at as user_created_at',
      'rb.id as requester_id', 'rb.email as requester_email', 'rb.display_name as requester_display_name',
      'rb.photo_url as requester_photo_url', 'rb.created_at as requester_created_at',
    ])
    .where('r.change_request_id', '=', changeRequestId);
}

type RequestedRow = Awaited<ReturnType<ReturnType<typeof requestedQuery>['execute']>>[number];

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
    rows: page.rows.map((row) => {
      const all = row as unknown as Record<string, unknown>;
      return { requestedAt: row.requested_at, revisionId: row.revision_id, user: userFrom('user', all), requestedBy: userFrom('requester', all) };
    }),
  };
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
    .select([
      'u.email as reviewer_email', 'u.display_name as reviewer_display_name', 'u.photo_url as reviewer_photo_url', 'u.created_at as reviewer_created_at',
      'rb.id as requester_id', 'rb.email as requester_email', 'rb.display_name as requester_display_name',
      'rb.photo_url as requester_photo_url', 'rb.created_at as requester_created_at',
    ])
    .where('rv.change_request_id', '=', changeRequestId);
}

type ReviewRow = Awaited<ReturnType<ReturnType<typeof reviewQuery>['execute']>>[number];

function toListing(row: ReviewRow): ReviewListing {
  const {
    reviewer_email, reviewer_display_name, reviewer_photo_url, reviewer_created_at,
    requester_id, requester_email, requester_display_name, requester_photo_url, requester_created_at,
    ...review
  } = row;
  const all = { ...row, reviewer_id: row.reviewer_id } as unknown as Record<string, unknown>;
  return { review, reviewer: userFrom('reviewer', all), requester: requester_id === null ? undefined : userFrom('requester', all) };
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
