import type { Kysely } from 'kysely';

/*
 * Redirects of docs sites (services/site-redirect-service.ts): a path of the site and where it sends its
 * visitors, a section, a site space or a page of the same site. The destination is kept as ids with no
 * foreign key, so deleting what it names leaves the redirect to be fixed by an admin rather than vanish; the
 * reader and getSiteRedirectBySource treat a destination no longer in the site as no redirect.
 * One source per site (unique), which is also the index of the reader's lookup by source and of the list's
 * order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('site_redirects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('destination_kind', 'text', (c) => c.notNull())
    .addColumn('site_section_id', 'text')
    .addColumn('site_space_id', 'text')
    .addColumn('page_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_redirects_source').on('site_redirects').columns(['site_id', 'source']).unique().execute();
}
