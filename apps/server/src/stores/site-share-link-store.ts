import type { Insertable, Selectable, Updateable } from 'kysely';
import { notifyChange } from '../db/change-notices.js';
import type { Db } from '../db/index.js';
import type { SiteShareLinksTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { setsSomething } from './patch.js';

export type ShareLinkRow = Selectable<SiteShareLinksTable>;

const SHARE_LINK_ORDER: KeysetOrder<ShareLinkRow> = { columns: ['created_at', 'id'], keyOf: (row) => [row.created_at, row.id] };
export const SHARE_LINK_ORDER_KEY_LENGTH = SHARE_LINK_ORDER.columns.length;

export async function listShareLinksPage(db: Db, siteId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<ShareLinkRow>> {
  return keysetPage(db.selectFrom('site_share_links').selectAll().where('site_id', '=', siteId), SHARE_LINK_ORDER, after, limit);
}

export async function findShareLink(db: Db, siteId: string, shareLinkId: string): Promise<ShareLinkRow | undefined> {
  return db.selectFrom('site_share_links').selectAll().where('site_id', '=', siteId).where('id', '=', shareLinkId).executeTakeFirst();
}

export async function findShareLinkByKeyHash(db: Db, keyHash: string): Promise<ShareLinkRow | undefined> {
  return db.selectFrom('site_share_links').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function insertShareLink(db: Db, row: Insertable<SiteShareLinksTable>): Promise<void> {
  await db.insertInto('site_share_links').values(row).execute();
  await notifyChange(db, { kind: 'site', siteId: row.site_id as string });
}

export async function updateShareLink(db: Db, shareLinkId: string, patch: Updateable<SiteShareLinksTable>): Promise<void> {
  if (!setsSomething(patch)) return;
  const updated = await db.updateTable('site_share_links').set(patch).where('id', '=', shareLinkId).returning('site_id').executeTakeFirst();
  if (updated) await notifyChange(db, { kind: 'site', siteId: updated.site_id });
}

export async function deleteShareLink(db: Db, siteId: string, shareLinkId: string): Promise<void> {
  await db.deleteFrom('site_share_links').where('site_id', '=', siteId).where('id', '=', shareLinkId).execute();
  await notifyChange(db, { kind: 'site', siteId: siteId });
}
