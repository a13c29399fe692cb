import { type Kysely } from 'kysely';

// The links found in the content of a revision, for the link and backlink lists. A revision never changes,
// so its links are worked out once (on the first request that needs them) and kept: `revision_link_sets`
// says that a revision's rows are complete (a revision without any link has a set and no rows), and
// `revision_links` holds one row per link target and page using it. Both go with their revision.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('revision_link_sets')
    .addColumn('revision_id', 'text', (c) => c.primaryKey().references('revisions.id').onDelete('cascade'))
    // Distinct link targets of the revision, and how many of them are broken.
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('broken', 'integer', (c) => c.notNull())
    .addColumn('computed_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('revision_links')
    .addColumn('revision_id', 'text', (c) => c.notNull().references('revisions.id').onDelete('cascade'))
    // What one item of a link list is: the relation and the target (a URL target is keyed by its hash,
    // so that long URLs stay out of the key). Lists are ordered by it.
    .addColumn('item_key', 'text', (c) => c.notNull())
    // Where the link is: `page` (or `reusable-content`) and its id.
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('relation', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // `page`, `file`, `space`, `openapi` or `url`; the id of a page, file or specification, or the URL.
    .addColumn('target_kind', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('target_url', 'text')
    .addPrimaryKeyConstraint('revision_links_pk', ['revision_id', 'item_key', 'source_kind', 'source_id'])
    .execute();
  // The links of one page of a revision, and the places linking to one page or file (backlinks).
  await db.schema.createIndex('revision_links_source').on('revision_links').columns(['revision_id', 'source_kind', 'source_id', 'item_key']).execute();
  await db.schema.createIndex('revision_links_target').on('revision_links').columns(['revision_id', 'target_kind', 'target_id']).execute();
}
