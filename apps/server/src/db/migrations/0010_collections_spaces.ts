import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Collections, spaces, and the content storage of their revisions. Portable like 0001, with two column types
// that have to differ per dialect: sibling positions are compared byte by byte (PostgreSQL would otherwise
// order them by the database's locale, which disagrees with the order the keys are generated in), and
// object bodies are raw bytes.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const positionType = postgres ? sql`text collate "C"` : sql`text`;
  const bytesType = postgres ? sql`bytea` : sql`blob`;

  await db.schema
    .createTable('collections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // Deleting a collection deletes the collections inside it; the service soft-deletes their spaces first.
    .addColumn('parent_id', 'text', (c) => c.references('collections.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'text')
    .addColumn('default_level', 'text', (c) => c.defaultTo('inherit'))
    .addColumn('position', positionType, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('collections_siblings').on('collections').columns(['organization_id', 'parent_id', 'position']).execute();
  await db.schema.createIndex('collections_parent').on('collections').column('parent_id').execute();
  await db.schema.createIndex('collections_created').on('collections').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('spaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // No foreign key: a deleted space keeps the id of the collection it was in after that collection is
    // gone, so that restoring it can tell whether it goes back there or to the top level.
    .addColumn('collection_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('emoji', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('edit_mode', 'text', (c) => c.notNull().defaultTo('live'))
    .addColumn('default_level', 'text', (c) => c.defaultTo('inherit'))
    .addColumn('language', 'text')
    .addColumn('merge_rules', 'text', (c) => c.notNull().defaultTo('{"type":"inherit"}'))
    // The current main revision. Not a foreign key: the space row is written before its first revision,
    // which itself refers to the space.
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('git_sync', 'text')
    .addColumn('visitor_auth', 'text')
    .addColumn('position', positionType, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .addColumn('comments_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('change_requests_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('change_requests_open', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('change_requests_draft', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('spaces_created').on('spaces').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('spaces_siblings').on('spaces').columns(['organization_id', 'collection_id', 'position']).execute();
  await db.schema.createIndex('spaces_collection').on('spaces').columns(['collection_id', 'position', 'id']).execute();

  await db.schema
    .createTable('content_objects')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('body', bytesType, (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('revisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('parents', 'text', (c) => c.notNull().defaultTo('[]'))
    // Hash of the tree root in content_objects. Objects are shared between revisions and spaces, so a
    // revision that goes away never takes its objects with it.
    .addColumn('root', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('git', 'text')
    .addColumn('change_request_id', 'text')
    .execute();
  await db.schema.createIndex('revisions_space').on('revisions').columns(['space_id', 'created_at']).execute();
}
