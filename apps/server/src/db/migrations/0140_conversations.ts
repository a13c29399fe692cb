import type { Kysely } from 'kysely';

/*
 * Support conversations and what their analysis finds (see services/conversation-analysis.ts): the
 * conversations as ingested, the issues found in them, the clusters the issues are grouped into, and the
 * per-organization figures the grouping needs (how many issues use each term, for the IDF weights).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // `email` or `integration:<name>:<installation>`; the ingested `id` is unique within it.
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    // JSON of the parts and of the metadata, as given.
    .addColumn('parts', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    // SHA-256 of what was ingested: sending the same conversation again changes nothing.
    .addColumn('content_hash', 'text', (c) => c.notNull())
    // When the conversation started (metadata.createdAt, else its first ingestion): the weekly pulse counts by it.
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // Null while the conversation waits for analysis (new, or changed since it was analysed).
    .addColumn('processed_at', 'text')
    .addUniqueConstraint('conversations_source_id', ['organization_id', 'source', 'external_id'])
    .execute();
  await db.schema.createIndex('conversations_list').on('conversations').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('conversations_source_list').on('conversations').columns(['organization_id', 'source', 'created_at', 'id']).execute();
  await db.schema.createIndex('conversations_pending').on('conversations').columns(['organization_id', 'processed_at', 'created_at', 'id']).execute();

  await db.schema
    .createTable('conversation_clusters')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('icon', 'text', (c) => c.notNull())
    // pending (issues joined since the label was drawn) -> analysing (being drawn) -> ready
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON of the summed term weights of its issues (the centroid before IDF weighting), bounded in size.
    .addColumn('terms', 'text', (c) => c.notNull())
    // Order of creation within the organization: the tie-break of the grouping, so it is deterministic.
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('issues_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('conversations_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conversation_clusters_updated').on('conversation_clusters').columns(['organization_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('conversation_clusters_issues').on('conversation_clusters').columns(['organization_id', 'issues_count', 'id']).execute();
  await db.schema.createIndex('conversation_clusters_conversations').on('conversation_clusters').columns(['organization_id', 'conversations_count', 'id']).execute();
  await db.schema.createIndex('conversation_clusters_status').on('conversation_clusters').columns(['organization_id', 'status']).execute();

  await db.schema
    .createTable('conversation_issues')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('cluster_id', 'text', (c) => c.references('conversation_clusters.id').onDelete('set null'))
    // Place of the issue in its conversation (0, 1, ...).
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    // JSON of the term weights (stems), as the grouping used them.
    .addColumn('terms', 'text', (c) => c.notNull())
    // Copied from the conversation for the cluster figures: its source, and the Monday (UTC) of the week it started.
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('week', 'text', (c) => c.notNull())
    .addColumn('ingested_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conversation_issues_list').on('conversation_issues').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('conversation_issues_cluster').on('conversation_issues').columns(['cluster_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('conversation_issues_conversation').on('conversation_issues').columns(['conversation_id', 'position']).execute();

  await db.schema
    .createTable('conversation_terms')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('term', 'text', (c) => c.notNull())
    // Issues of the organization whose terms include this one.
    .addColumn('issues', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('conversation_terms_pk', ['organization_id', 'term'])
    .execute();

  await db.schema
    .createTable('conversation_analysis_states')
    .addColumn('organization_id', 'text', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    // Issues of the organization (N of the IDF weights) and clusters made so far (the next `sequence`).
    .addColumn('issues', 'integer', (c) => c.notNull())
    .addColumn('clusters_made', 'integer', (c) => c.notNull())
    // Bumped by every analysis pass that writes: a pass that read an older version starts again.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
