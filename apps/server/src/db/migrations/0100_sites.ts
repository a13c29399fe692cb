import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Docs sites (services/site-service.ts): the sites, their sections and section groups, the site spaces that
 * link them to spaces, and their share links. Everything of a site goes with it (cascades); the spaces stay.
 * Sibling positions are fractional keys (services/position-keys.ts), compared byte by byte as in 0010.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const positionType = postgres ? sql`text collate "C"` : sql`text`;

  await db.schema
    .createTable('sites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('basename', 'text')
    // Unique across the installation: a request's Host picks at most one site.
    .addColumn('hostname', 'text', (c) => c.unique())
    .addColumn('proxy', 'text')
    .addColumn('adaptive_content', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('agents_context', 'text', (c) => c.notNull().defaultTo('included'))
    // JSON SiteCustomization: what the customization operations set; `{}` keeps every default.
    .addColumn('customizations', 'text', (c) => c.notNull().defaultTo('{}'))
    // JSON SiteAdaptiveJSONSchema, or null while the site has none.
    .addColumn('adaptive_schema', 'text')
    .addColumn('adaptive_schema_updated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sites_list').on('sites').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('site_section_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    // The service moves children up before deleting a group; the cascade only runs with the site.
    .addColumn('parent_id', 'text', (c) => c.references('site_section_groups.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('icon', 'text')
    .addColumn('position', positionType, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_section_groups_site').on('site_section_groups').columns(['site_id', 'parent_id', 'position']).execute();

  await db.schema
    .createTable('site_sections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('group_id', 'text', (c) => c.references('site_section_groups.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('icon', 'text')
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('condition', 'text')
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('position', positionType, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_sections_site').on('site_sections').columns(['site_id', 'group_id', 'position']).execute();
  await db.schema.createIndex('site_sections_path').on('site_sections').columns(['site_id', 'path']).unique().execute();

  await db.schema
    .createTable('site_spaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    // Null: at the root of a site without sections.
    .addColumn('section_id', 'text', (c) => c.references('site_sections.id').onDelete('cascade'))
    // A purged space leaves the sites that published it.
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('condition', 'text')
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('position', positionType, (c) => c.notNull())
    .addColumn('customizations', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_spaces_level').on('site_spaces').columns(['site_id', 'section_id', 'position']).execute();
  await db.schema.createIndex('site_spaces_space').on('site_spaces').columns(['space_id']).execute();
  await db.schema.createIndex('site_spaces_site_space').on('site_spaces').columns(['site_id', 'space_id']).unique().execute();

  await db.schema
    .createTable('site_share_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    // SHA-256 (hex) of the secret key: how a key given by a reader is looked up.
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    // The key itself, sealed (services/sealed-values.ts), to show it again in `urls.published`.
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_share_links_site').on('site_share_links').columns(['site_id', 'created_at', 'id']).execute();
}
