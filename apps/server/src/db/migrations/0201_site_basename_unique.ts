import { sql, type Kysely } from 'kysely';

/*
 * A site's address is `{QUIRE_PUBLIC_URL}/sites/{basename}`, one namespace for the whole installation, so a
 * basename names one site (services/site-service.ts answers 409 to a second one). Before this rule two sites
 * could share a basename; only the oldest was reachable there, and the others' `urls.published` led readers to
 * it. Those later sites lose the basename and are addressed by their id again (`/sites/{id}`), the address that
 * reaches them; the oldest keeps it. Then a unique index holds the rule against concurrent updates.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    UPDATE sites SET basename = NULL
    WHERE basename IS NOT NULL AND EXISTS (
      SELECT 1 FROM sites AS older
      WHERE older.basename = sites.basename
        AND (older.created_at < sites.created_at OR (older.created_at = sites.created_at AND older.id < sites.id))
    )`.execute(db);
  await db.schema.dropIndex('sites_basename').execute();
  await db.schema.createIndex('sites_basename').on('sites').columns(['basename']).unique().execute();
}
