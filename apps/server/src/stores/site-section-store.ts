import type { Insertable, Selectable, Updateable } from 'kysely';
import { notifyChange } from '../db/change-notices.js';
import type { Db } from '../db/index.js';
import type { SiteSectionGroupsTable, SiteSectionsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { setsSomething } from './patch.js';

export type SiteSectionRow = Selectable<SiteSectionsTable>;
export type SiteSectionGroupRow = Selectable<SiteSectionGroupsTable>;

/**
 * Sections and section groups are both rows of one site placed by a fractional `position` among the items of
 * their level; reading and writing them is the same for either table, so it is written once here. What
 * differs (defaults of sections, the nesting of groups) follows below.
 */
interface PlacedRows<Table, Row> {
  /** How many values a page cursor of `page` holds. */
  orderKeyLength: number;
  page(db: Db, siteId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<Row>>;
  /** Every row of the site, in order. */
  all(db: Db, siteId: string): Promise<Row[]>;
  find(db: Db, siteId: string, id: string): Promise<Row | undefined>;
  insert(db: Db, row: Insertable<Table>): Promise<void>;
  /** An update with nothing to set changes nothing. */
  update(db: Db, id: string, patch: Updateable<Table>): Promise<void>;
}

type PlacedTable = 'site_sections' | 'site_section_groups';

function placedRows<Table, Row extends { id: string; position: string }>(table: PlacedTable): PlacedRows<Table, Row> {
  const order: KeysetOrder<Row> = { columns: ['position', 'id'], keyOf: (row) => [row.position, row.id] };
  // Kysely cannot follow a table name that is one of two, so the queries are typed as the sections table's;
  // both tables have the `id`, `site_id` and `position` columns these use, and the rows are typed as `Row`.
  const rowsOf = (db: Db, siteId: string) => db.selectFrom(table as 'site_sections').selectAll().where('site_id', '=', siteId);
  return {
    orderKeyLength: order.columns.length,
    page: (db, siteId, after, limit) => keysetPage(rowsOf(db, siteId), order as unknown as KeysetOrder<SiteSectionRow>, after, limit) as unknown as Promise<KeysetPage<Row>>,
    all: (db, siteId) => rowsOf(db, siteId).orderBy('position').orderBy('id').execute() as unknown as Promise<Row[]>,
    find: (db, siteId, id) => rowsOf(db, siteId).where('id', '=', id).executeTakeFirst() as unknown as Promise<Row | undefined>,
    insert: async (db, row) => {
      await db.insertInto(table as 'site_sections').values(row as Insertable<SiteSectionsTable>).execute();
    },
    update: async (db, id, patch) => {
      if (!setsSomething(patch as object)) return;
      await db.updateTable(table as 'site_sections').set(patch as Updateable<SiteSectionsTable>).where('id', '=', id).execute();
    },
  };
}

export const siteSections: PlacedRows<SiteSectionsTable, SiteSectionRow> = placedRows('site_sections');
export const siteSectionGroups: PlacedRows<SiteSectionGroupsTable, SiteSectionGroupRow> = placedRows('site_section_groups');

/** Makes one section the site's default and the others not. */
export async function setDefaultSection(db: Db, siteId: string, sectionId: string): Promise<void> {
  await db.updateTable('site_sections').where('site_id', '=', siteId)
    .set((eb) => ({ is_default: eb.case().when('id', '=', sectionId).then(1).else(0).end() })).execute();
  await notifyChange(db, { kind: 'site', siteId });
}

/** Deletes a section with the site spaces it holds. */
export async function deleteSection(db: Db, sectionId: string): Promise<void> {
  await db.deleteFrom('site_spaces').where('section_id', '=', sectionId).execute();
  const deleted = await db.deleteFrom('site_sections').where('id', '=', sectionId).returning('site_id').executeTakeFirst();
  if (deleted) await notifyChange(db, { kind: 'site', siteId: deleted.site_id });
}

/** Deletes a group after moving its sections and child groups to `parentId` (the level it was at). */
export async function deleteGroup(db: Db, siteId: string, groupId: string, parentId: string | null): Promise<void> {
  await db.updateTable('site_sections').set({ group_id: parentId }).where('site_id', '=', siteId).where('group_id', '=', groupId).execute();
  await db.updateTable('site_section_groups').set({ parent_id: parentId }).where('site_id', '=', siteId).where('parent_id', '=', groupId).execute();
  await db.deleteFrom('site_section_groups').where('id', '=', groupId).execute();
  await notifyChange(db, { kind: 'site', siteId: siteId });
}
