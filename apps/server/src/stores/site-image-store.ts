import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SiteImagesTable } from '../db/schema.js';

/** Images uploaded for sites' customizations (migration 0440). */
export type SiteImageRow = Selectable<SiteImagesTable>;

export async function insertSiteImage(db: Db, row: Insertable<SiteImagesTable>): Promise<void> {
  await db.insertInto('site_images').values(row).execute();
}

/** An image of this very site: another site's id answers nothing. */
export async function findSiteImage(db: Db, siteId: string, imageId: string): Promise<SiteImageRow | undefined> {
  return db.selectFrom('site_images').selectAll().where('site_id', '=', siteId).where('id', '=', imageId).executeTakeFirst();
}
