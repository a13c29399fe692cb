import type { Kysely } from 'kysely';

/*
 * Reviews of change requests (services/change-request-review-service.ts). A review is given on one revision
 * of the request (`revision_id`): when the request's revision moves on, the review is outdated, still
 * listed but no longer counted by the merge rules, so nothing has to be rewritten when content changes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('change_request_reviews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('change_request_id', 'text', (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('reviewer_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // `approved` or `changes-requested`.
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON of the CommentBody given with the review, or null when none was.
    .addColumn('comment', 'text')
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The list (oldest first) and the merge rules' read of a request's reviews.
  await db.schema.createIndex('change_request_reviews_list').on('change_request_reviews').columns(['change_request_id', 'created_at', 'id']).execute();
}
