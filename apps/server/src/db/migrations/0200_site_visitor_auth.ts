import type { Kysely } from 'kysely';

/*
 * Visitor authentication of `visitor-auth` sites (services/site-publishing-auth-service.ts): the backend visitors
 * sign in at and the HS256 key their JWTs are signed with, sealed (services/sealed-values.ts). `key_id` is
 * new with every key: visitor tokens name it, so rotating or removing the key closes them at once.
 * The index on `sites.basename` serves the published-address lookup (`/sites/{basename}`), run per reader
 * request.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('site_visitor_auth')
    .addColumn('site_id', 'text', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('backend_url', 'text', (c) => c.notNull())
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sites_basename').on('sites').columns(['basename']).execute();
}
