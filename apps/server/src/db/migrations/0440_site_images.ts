import type { Kysely } from 'kysely';

/*
 * Images uploaded for a docs site's customization (its logo and icon, issue 25): the bytes live in the file
 * store under `blob_hash`; this row says they belong to this site, so that the reader serves an image only at
 * the address of the site it was uploaded for (a visitor of one site cannot fetch another's bytes by hash).
 * Deleting the site deletes its rows (the bytes stay in the content-addressed store, like every file's).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('site_images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('blob_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Deleting a site cascades through site_id: indexed, so the cascade does not scan every site's images.
  await db.schema.createIndex('site_images_by_site').on('site_images').column('site_id').execute();
}
