import { type Kysely } from 'kysely';

// Change requests of a space, who contributed to them and whose review they ask for. The request's content
// lives in `revisions` (0010) like the space's main content: `revision_id` is its current revision, and
// every revision it made carries `change_request_id`.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('change_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    // Where the space was when the request was made; lists of an organization go through the space's
    // current organization, since a space can be transferred with its requests.
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull().defaultTo(''))
    // JSON of the JSONDocument, or null when none was given.
    .addColumn('description', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // Revision ids; not foreign keys, like spaces.revision_id (the revisions go with the space).
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('revision_initial', 'text', (c) => c.notNull())
    .addColumn('revision_merged_ancestor', 'text')
    .addColumn('revision_merged', 'text')
    .addColumn('merged_at', 'text')
    .addColumn('merged_by', 'text', (c) => c.references('users.id'))
    // Open comments on the request, kept exact by the comment service.
    .addColumn('comments_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('conversations_issues_cluster', 'text')
    // The per-space number comes from the counter store; this is the last line of defence against a duplicate.
    .addUniqueConstraint('change_requests_space_number', ['space_id', 'number'])
    .execute();
  // Lists: newest activity first, per space or per organization, usually filtered by status.
  await db.schema.createIndex('change_requests_space_list').on('change_requests').columns(['space_id', 'status', 'updated_at', 'id']).execute();
  await db.schema.createIndex('change_requests_creator').on('change_requests').columns(['created_by']).execute();
  await db.schema.createIndex('change_requests_cluster').on('change_requests').columns(['conversations_issues_cluster']).execute();

  await db.schema
    .createTable('change_request_contributors')
    .addColumn('change_request_id', 'text', (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('change_request_contributors_pk', ['change_request_id', 'user_id'])
    .execute();
  await db.schema.createIndex('change_request_contributors_user').on('change_request_contributors').columns(['user_id', 'change_request_id']).execute();

  await db.schema
    .createTable('change_request_reviewers')
    .addColumn('change_request_id', 'text', (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('change_request_reviewers_pk', ['change_request_id', 'user_id'])
    .execute();
  await db.schema.createIndex('change_request_reviewers_user').on('change_request_reviewers').columns(['user_id', 'change_request_id']).execute();
}
