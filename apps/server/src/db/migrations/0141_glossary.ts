import type { Kysely } from 'kysely';

/** The translation glossary of each organization (services/glossary-service.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('glossary_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // JSON object: canonical BCP 47 language tag -> the term in that language.
    .addColumn('translations', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Place of the insert in its batch: entries made by one batch list in the order they were given.
    .addColumn('batch_index', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('glossary_entries_list').on('glossary_entries').columns(['organization_id', 'created_at', 'batch_index', 'id']).execute();
}
