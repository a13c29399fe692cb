import { sql, type Kysely } from 'kysely';
import { newId } from '../../ids.js';

/*
 * A review's comment is a discussion comment of the change request, as in the public API (its review's
 * `comment` is a Comment, whose `target.review` names the review): it is listed with the space's comments,
 * can be replied to, resolved or deleted, and counts as an open comment of the space and the change request.
 * `comments.review_id` ties a comment to the review it was written with; `change_request_reviews.comment_id`
 * the other way (null when the review has none, or once its comment is deleted).
 *
 * Reviews given before this migration kept what the reviewer wrote as JSON of a CommentBody in
 * `change_request_reviews.comment`: each becomes a comment here, posted by the reviewer on the review's
 * revision when the review was given, and the open-comment counters move with it. The old column stays
 * (SQLite drops columns only by rebuilding the table); it is no longer read, and new reviews leave it null.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('comments').addColumn('review_id', 'text').execute();
  await db.schema.alterTable('change_request_reviews').addColumn('comment_id', 'text', (c) => c.references('comments.id').onDelete('set null')).execute();

  const reviews = await db.selectFrom('change_request_reviews as rv')
    .innerJoin('change_requests as cr', 'cr.id', 'rv.change_request_id')
    .select(['rv.id', 'rv.change_request_id', 'rv.reviewer_id', 'rv.comment', 'rv.revision_id', 'rv.created_at', 'cr.space_id'])
    .where('rv.comment', 'is not', null)
    .execute();
  for (const review of reviews) {
    const body = bodyOf(review.comment as string);
    if (!body) continue;
    const commentId = newId();
    await db.insertInto('comments').values({
      id: commentId, space_id: review.space_id, change_request_id: review.change_request_id, review_id: review.id,
      revision_id: review.revision_id, page_id: null, node_id: null, table_record: null, table_definition: null,
      author_id: review.reviewer_id, ...body, status: 'open', resolved_at: null, resolved_by: null, posted_at: review.created_at, edited_at: null,
    }).execute();
    await db.updateTable('change_request_reviews').set({ comment_id: commentId }).where('id', '=', review.id).execute();
    await db.updateTable('change_requests').set({ comments_count: sql`comments_count + 1` }).where('id', '=', review.change_request_id).execute();
    await db.updateTable('spaces').set({ comments_count: sql`comments_count + 1` }).where('id', '=', review.space_id).execute();
  }
}

/** The stored form of a comment body (see services/comment-body.ts storedBody) from a review's CommentBody JSON; undefined for no content. */
function bodyOf(json: string): { body_format: 'markdown' | 'document'; body: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { markdown, document } = parsed as { markdown?: unknown; document?: { nodes?: unknown[] } };
  if (typeof markdown === 'string' && markdown.trim() !== '') return { body_format: 'markdown', body: markdown };
  if (document && Array.isArray(document.nodes) && document.nodes.length > 0) return { body_format: 'document', body: JSON.stringify(document) };
  return undefined;
}
