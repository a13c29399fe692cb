import type { Kysely } from 'kysely';

/*
 * Integrations published to this installation (services/integration-service.ts): one row per name with its
 * current definition, one per published version with its files (blob hashes) and sealed secrets, and the
 * tags the list filters on (categories, scopes, block domains), one row each so the filters are indexed
 * lookups on both dialects.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integrations')
    .addColumn('name', 'text', (c) => c.primaryKey())
    // A name belongs to its first owner for as long as the integration exists.
    .addColumn('owner_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    // Set by the operator only (admin command line).
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_blocks', 'integer', (c) => c.notNull())
    .addColumn('has_content_sources', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('integrations_owner').on('integrations').columns(['owner_id', 'name']).execute();

  await db.schema
    .createTable('integration_versions')
    .addColumn('name', 'text', (c) => c.notNull().references('integrations.name').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    // JSON of the published definition, without the script, images and secrets.
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('runtime', 'text', (c) => c.notNull())
    // Blob hashes (storage/blob-storage.ts) of the script and the icon, JSON array of the preview images'.
    .addColumn('script_blob', 'text', (c) => c.notNull())
    .addColumn('icon_blob', 'text')
    .addColumn('icon_type', 'text')
    // JSON array of {blob, type}.
    .addColumn('preview_images', 'text', (c) => c.notNull())
    // The secrets sealed with AES-256-GCM (services/sealed-values.ts), or null when none were given.
    .addColumn('secrets', 'text')
    .addColumn('published_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_versions_pk', ['name', 'version'])
    .execute();

  await db.schema
    .createTable('integration_tags')
    .addColumn('name', 'text', (c) => c.notNull().references('integrations.name').onDelete('cascade'))
    // `category`, `scope` or `blockDomain`
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_tags_pk', ['name', 'kind', 'value'])
    .execute();
  await db.schema.createIndex('integration_tags_lookup').on('integration_tags').columns(['kind', 'value', 'name']).execute();
}
