import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { notifyChange } from '../db/change-notices.js';
import type { Db } from '../db/index.js';
import type { SiteRedirectsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { setsSomething } from './patch.js';

export type SiteRedirectRow = Selectable<SiteRedirectsTable>;

const REDIRECT_ORDER: KeysetOrder<SiteRedirectRow> = { columns: ['source', 'id'], keyOf: (row) => [row.source, row.id] };
export const SITE_REDIRECT_ORDER_KEY_LENGTH = REDIRECT_ORDER.columns.length;

/** `%`, `_` and the escape itself are LIKE's wildcards; a source may hold the first two (percent-encodings, `_`). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export async function listSiteRedirectsPage(db: Db, siteId: string, search: string | undefined, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<SiteRedirectRow>> {
  let query = db.selectFrom('site_redirects').selectAll().where('site_id', '=', siteId);
  if (search !== undefined) query = query.where(sql<boolean>`lower(source) like ${containsPattern(search)} escape '\\'`);
  return keysetPage(query, REDIRECT_ORDER, after, limit);
}

export async function findSiteRedirect(db: Db, siteId: string, redirectId: string): Promise<SiteRedirectRow | undefined> {
  return db.selectFrom('site_redirects').selectAll().where('site_id', '=', siteId).where('id', '=', redirectId).executeTakeFirst();
}

export async function findSiteRedirectBySource(db: Db, siteId: string, source: string): Promise<SiteRedirectRow | undefined> {
  return db.selectFrom('site_redirects').selectAll().where('site_id', '=', siteId).where('source', '=', source).executeTakeFirst();
}

export async function insertSiteRedirect(db: Db, row: Insertable<SiteRedirectsTable>): Promise<void> {
  await db.insertInto('site_redirects').values(row).execute();
  await notifyChange(db, { kind: 'site', siteId: row.site_id as string });
}

export async function updateSiteRedirect(db: Db, redirectId: string, patch: Updateable<SiteRedirectsTable>): Promise<void> {
  if (!setsSomething(patch)) return;
  const updated = await db.updateTable('site_redirects').set(patch).where('id', '=', redirectId).returning('site_id').executeTakeFirst();
  if (updated) await notifyChange(db, { kind: 'site', siteId: updated.site_id });
}

/** Whether a row was deleted: the public API answers 205 then, 204 when there was none. */
export async function deleteSiteRedirect(db: Db, siteId: string, redirectId: string): Promise<boolean> {
  const result = await db.deleteFrom('site_redirects').where('site_id', '=', siteId).where('id', '=', redirectId).executeTakeFirst();
  await notifyChange(db, { kind: 'site', siteId: siteId });
  return Number(result.numDeletedRows) > 0;
}
