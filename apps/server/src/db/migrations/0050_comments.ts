import { sql, type Kysely } from 'kysely';

// Discussions on spaces, their pages and blocks, and their change requests: comments, the replies to them
// and the emoji reactions on both. Everything goes with its space (cascade), so purging a space leaves no
// orphan; the open-comment counters of spaces and change requests are kept by the comment service.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    // No foreign key: change requests come from another family's migration, and a change request is never
    // deleted on its own (it goes with its space, which takes its comments with it).
    .addColumn('change_request_id', 'text')
    // The revision the comment was posted on (the space's main one, or the change request's).
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('page_id', 'text')
    .addColumn('node_id', 'text')
    .addColumn('table_record', 'text')
    .addColumn('table_definition', 'text')
    .addColumn('author_id', 'text', (c) => c.notNull().references('users.id'))
    // `markdown`, `document` (body holds the JSON of the document) or `empty` (body is '').
    .addColumn('body_format', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text', (c) => c.references('users.id'))
    .addColumn('posted_at', 'text', (c) => c.notNull())
    .addColumn('edited_at', 'text')
    .addCheckConstraint('comments_status', sql`status in ('open', 'resolved')`)
    .addCheckConstraint('comments_body_format', sql`body_format in ('markdown', 'document', 'empty')`)
    .execute();
  // The comment list pages through a space by posting date (either way), optionally narrowed by page or author.
  await db.schema.createIndex('comments_space_posted').on('comments').columns(['space_id', 'posted_at', 'id']).execute();
  await db.schema.createIndex('comments_space_page').on('comments').columns(['space_id', 'page_id']).execute();
  await db.schema.createIndex('comments_space_author').on('comments').columns(['space_id', 'author_id']).execute();
  await db.schema.createIndex('comments_change_request').on('comments').column('change_request_id').execute();

  await db.schema
    .createTable('comment_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id').onDelete('cascade'))
    // Copied from the comment so that the commenters of a space are found without going through comments.
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('author_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('body_format', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('posted_at', 'text', (c) => c.notNull())
    .addColumn('edited_at', 'text')
    .addCheckConstraint('comment_replies_body_format', sql`body_format in ('markdown', 'document', 'empty')`)
    .execute();
  await db.schema.createIndex('comment_replies_comment_posted').on('comment_replies').columns(['comment_id', 'posted_at', 'id']).execute();
  await db.schema.createIndex('comment_replies_space_author').on('comment_replies').columns(['space_id', 'author_id']).execute();

  // One row per person and emoji on a comment or a reply. `subject_id` is the id of what was reacted to (a
  // comment or a reply; ids never collide), so one primary key makes each person's reaction unique on both.
  await db.schema
    .createTable('comment_reactions')
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id').onDelete('cascade'))
    // null for a reaction on the comment itself.
    .addColumn('reply_id', 'text', (c) => c.references('comment_replies.id').onDelete('cascade'))
    .addColumn('emoji', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('reacted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('comment_reactions_pk', ['subject_id', 'emoji', 'user_id'])
    .execute();
  await db.schema.createIndex('comment_reactions_comment').on('comment_reactions').column('comment_id').execute();
  await db.schema.createIndex('comment_reactions_reply').on('comment_reactions').column('reply_id').execute();
}
