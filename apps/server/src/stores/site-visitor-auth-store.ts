import type { Insertable, Selectable, Updateable } from 'kysely';
import { notifyChange } from '../db/change-notices.js';
import type { Db } from '../db/index.js';
import type { SiteVisitorAuthTable } from '../db/schema.js';
import { setsSomething } from './patch.js';

export type SiteVisitorAuthRow = Selectable<SiteVisitorAuthTable>;

export async function findVisitorAuth(db: Db, siteId: string): Promise<SiteVisitorAuthRow | undefined> {
  return db.selectFrom('site_visitor_auth').selectAll().where('site_id', '=', siteId).executeTakeFirst();
}

export async function findVisitorAuthKeyId(db: Db, siteId: string): Promise<string | undefined> {
  const row = await db.selectFrom('site_visitor_auth').select('key_id').where('site_id', '=', siteId).executeTakeFirst();
  return row?.key_id;
}

export async function insertVisitorAuth(db: Db, row: Insertable<SiteVisitorAuthTable>): Promise<void> {
  await db.insertInto('site_visitor_auth').values(row).execute();
  await notifyChange(db, { kind: 'site', siteId: row.site_id as string });
}

export async function updateVisitorAuth(db: Db, siteId: string, patch: Updateable<SiteVisitorAuthTable>): Promise<void> {
  if (!setsSomething(patch)) return;
  await db.updateTable('site_visitor_auth').set(patch).where('site_id', '=', siteId).execute();
  await notifyChange(db, { kind: 'site', siteId: siteId });
}
