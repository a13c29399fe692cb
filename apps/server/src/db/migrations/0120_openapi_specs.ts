import type { Kysely } from 'kysely';

/** OpenAPI specifications of each organization and their versions (services/openapi-spec-service.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('openapi_specs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    // Exactly one of the two: the URL fetched at each processing, or the text that was sent.
    .addColumn('source_url', 'text')
    .addColumn('source_text', 'text')
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('processing_state', 'text', (c) => c.notNull())
    // Bumped by every new source; a processing job of an older source finds it changed and does nothing.
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('last_version_id', 'text')
    .addColumn('last_processed_at', 'text')
    .addColumn('last_process_error_code', 'text')
    // JSON array of {message, code?}.
    .addColumn('last_processed_errors', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('openapi_specs_slug', ['organization_id', 'slug'])
    .execute();

  await db.schema
    .createTable('openapi_spec_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('spec_id', 'text', (c) => c.notNull().references('openapi_specs.id').onDelete('cascade'))
    // SHA-256 of the files of the version: the same content is one version.
    .addColumn('content_hash', 'text', (c) => c.notNull())
    // Order of creation within the spec (versions list newest first).
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('spec_version', 'text', (c) => c.notNull())
    // The root document as it was fetched or sent, served at the version's raw URL.
    .addColumn('root_text', 'text', (c) => c.notNull())
    .addColumn('root_format', 'text', (c) => c.notNull())
    // JSON object: file name (the root's, then each external file's URL) -> parsed document.
    .addColumn('filesystem', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('openapi_spec_versions_content', ['spec_id', 'content_hash'])
    .addUniqueConstraint('openapi_spec_versions_number', ['spec_id', 'number'])
    .execute();
}
