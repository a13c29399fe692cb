import { sql, type Kysely } from 'kysely';

/*
 * Who asked for a review, and on which revision of the change request (the public API's requested reviewer
 * carries both, `requestedBy` and `revision`), and on reviews, who had asked the reviewer for it (the review's
 * `requestedBy`, absent when the review was given unasked).
 *
 * Requests stored before this migration recorded neither: the change request's author and its revision at
 * the time of the migration are the best that can be said of them (only people with the edit permission can
 * ask, and the author is the one who asks in most workflows), and both columns are filled from there, so that
 * every row answers the fields the API requires. Reviews given by a requested reviewer take that request's
 * `requested_by`. Columns added to existing tables cannot be `not null`
 * without a default on SQLite; the store always writes them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('change_request_reviewers').addColumn('requested_by', 'text', (c) => c.references('users.id').onDelete('cascade')).execute();
  await db.schema.alterTable('change_request_reviewers').addColumn('revision_id', 'text').execute();
  await sql`update change_request_reviewers set
      requested_by = (select cr.created_by from change_requests cr where cr.id = change_request_reviewers.change_request_id),
      revision_id = (select cr.revision_id from change_requests cr where cr.id = change_request_reviewers.change_request_id)`.execute(db);
  await db.schema.alterTable('change_request_reviews').addColumn('requested_by', 'text', (c) => c.references('users.id').onDelete('set null')).execute();
  // A review given while its reviewer was a requested reviewer was asked for by whoever asked them.
  await sql`update change_request_reviews set requested_by = (select r.requested_by from change_request_reviewers r
      where r.change_request_id = change_request_reviews.change_request_id and r.user_id = change_request_reviews.reviewer_id)`.execute(db);
}
