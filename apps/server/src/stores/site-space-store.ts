import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { notifyChange } from '../db/change-notices.js';
import type { Db } from '../db/index.js';
import type { SiteSpacesTable } from '../db/schema.js';
import { parseRole, type RoleOrGuest } from '../policies/roles.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { setsSomething } from './patch.js';
import type { SpaceRow } from './space-store.js';
import { withContentAccess } from './visibility.js';

export type SiteSpaceRow = Selectable<SiteSpacesTable>;

/** A site space with the space it publishes and the viewer's role on that space (null: not theirs to see). */
export interface SiteSpaceRecord {
  siteSpace: SiteSpaceRow;
  space: SpaceRow;
  role: RoleOrGuest;
}

type JoinedSiteSpace = SpaceRow & {
  ss_id: string; ss_site_id: string; ss_section_id: string | null; ss_space_id: string; ss_path: string; ss_condition: string | null;
  ss_is_default: number; ss_position: string; ss_customizations: string; ss_created_at: string; level_position: string; access_role?: string | null;
};

function toRecord(row: JoinedSiteSpace): SiteSpaceRecord {
  const { ss_id, ss_site_id, ss_section_id, ss_space_id, ss_path, ss_condition, ss_is_default, ss_position, ss_customizations, ss_created_at, level_position: _level, access_role, ...space } = row;
  return {
    siteSpace: { id: ss_id, site_id: ss_site_id, section_id: ss_section_id, space_id: ss_space_id, path: ss_path, condition: ss_condition, is_default: ss_is_default, position: ss_position, customizations: ss_customizations, created_at: ss_created_at },
    space: space as SpaceRow,
    role: parseRole(access_role ?? null),
  };
}

/**
 * The site spaces of a site joined with their (live) spaces; `viewer` adds the viewer's role on each space,
 * and with `filter` keeps only the spaces they see (stores/visibility.ts).
 */
function joinedSiteSpaces(db: Db, organizationId: string, siteId: string, viewer: { viewer: ContentViewer; filter: boolean } | undefined) {
  const base = db.selectFrom('site_spaces as ss')
    .innerJoin('spaces as s', 's.id', 'ss.space_id')
    .leftJoin('site_sections as sec', 'sec.id', 'ss.section_id')
    .where('ss.site_id', '=', siteId)
    .where('s.deleted_at', 'is', null)
    .selectAll('s')
    .select([
      'ss.id as ss_id', 'ss.site_id as ss_site_id', 'ss.section_id as ss_section_id', 'ss.space_id as ss_space_id', 'ss.path as ss_path',
      'ss.condition as ss_condition', 'ss.is_default as ss_is_default', 'ss.position as ss_position', 'ss.customizations as ss_customizations',
      'ss.created_at as ss_created_at',
      // Site spaces list section by section (a site without sections has them all at its root).
      sql<string>`coalesce(sec.position, '')`.as('level_position'),
    ]);
  if (!viewer) return base;
  return withContentAccess(base, {
    organizationId, content: { spaces: 's' },
    viewers: [{ viewer: viewer.viewer, roleAs: 'access_role', ...(viewer.filter ? {} : { filter: false as const }) }],
  });
}

const SITE_SPACE_ORDER: KeysetOrder<JoinedSiteSpace> = {
  columns: ['x.level_position', 'x.ss_position', 'x.ss_id'],
  keyOf: (row) => [row.level_position, row.ss_position, row.ss_id],
};
export const SITE_SPACE_ORDER_KEY_LENGTH = SITE_SPACE_ORDER.columns.length;

export async function listSiteSpacesPage(
  db: Db,
  organizationId: string,
  siteId: string,
  viewer: { viewer: ContentViewer; filter: boolean },
  onlyDefault: boolean | undefined,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<SiteSpaceRecord>> {
  let query = db.selectFrom(joinedSiteSpaces(db, organizationId, siteId, viewer).as('x')).selectAll('x');
  if (onlyDefault !== undefined) query = query.where('x.ss_is_default', '=', onlyDefault ? 1 : 0);
  const page = await keysetPage(query as never, SITE_SPACE_ORDER, after, limit);
  return { ...page, rows: (page.rows as JoinedSiteSpace[]).map(toRecord) };
}

/** Every site space of the site, in order, with the viewer's role (all of them when `filter` is false). */
export async function allSiteSpaces(db: Db, organizationId: string, siteId: string, viewer: { viewer: ContentViewer; filter: boolean } | undefined): Promise<SiteSpaceRecord[]> {
  const rows = await db.selectFrom(joinedSiteSpaces(db, organizationId, siteId, viewer).as('x')).selectAll('x')
    .orderBy('x.level_position').orderBy('x.ss_position').orderBy('x.ss_id').execute();
  return (rows as unknown as JoinedSiteSpace[]).map(toRecord);
}

export async function findSiteSpace(db: Db, siteId: string, siteSpaceId: string): Promise<SiteSpaceRow | undefined> {
  return db.selectFrom('site_spaces').selectAll().where('site_id', '=', siteId).where('id', '=', siteSpaceId).executeTakeFirst();
}

export async function findSiteSpaceRecord(db: Db, organizationId: string, siteId: string, siteSpaceId: string, viewer: ContentViewer): Promise<SiteSpaceRecord | undefined> {
  const row = await db.selectFrom(joinedSiteSpaces(db, organizationId, siteId, { viewer, filter: false }).as('x')).selectAll('x')
    .where('x.ss_id', '=', siteSpaceId).executeTakeFirst();
  return row ? toRecord(row as unknown as JoinedSiteSpace) : undefined;
}

/** The site spaces of one level (a section, or the root: null), in order. */
export async function siteSpacesAtLevel(db: Db, siteId: string, sectionId: string | null): Promise<SiteSpaceRow[]> {
  const query = db.selectFrom('site_spaces').selectAll().where('site_id', '=', siteId);
  return (sectionId === null ? query.where('section_id', 'is', null) : query.where('section_id', '=', sectionId))
    .orderBy('position').orderBy('id').execute();
}

export async function siteSpaceOfSpace(db: Db, siteId: string, spaceId: string): Promise<SiteSpaceRow | undefined> {
  return db.selectFrom('site_spaces').selectAll().where('site_id', '=', siteId).where('space_id', '=', spaceId).executeTakeFirst();
}

export async function insertSiteSpace(db: Db, row: Insertable<SiteSpacesTable>): Promise<void> {
  await db.insertInto('site_spaces').values(row).execute();
  await notifyChange(db, { kind: 'site', siteId: row.site_id as string });
}

export async function updateSiteSpace(db: Db, siteSpaceId: string, patch: Updateable<SiteSpacesTable>): Promise<void> {
  if (!setsSomething(patch)) return;
  const updated = await db.updateTable('site_spaces').set(patch).where('id', '=', siteSpaceId).returning('site_id').executeTakeFirst();
  if (updated) await notifyChange(db, { kind: 'site', siteId: updated.site_id });
}

/** Makes one site space the default of its level and the others of that level not. */
export async function setDefaultSiteSpace(db: Db, siteId: string, sectionId: string | null, siteSpaceId: string): Promise<void> {
  const level = db.updateTable('site_spaces').where('site_id', '=', siteId);
  await (sectionId === null ? level.where('section_id', 'is', null) : level.where('section_id', '=', sectionId))
    .set((eb) => ({ is_default: eb.case().when('id', '=', siteSpaceId).then(1).else(0).end() })).execute();
  await notifyChange(db, { kind: 'site', siteId });
}

export async function deleteSiteSpace(db: Db, siteSpaceId: string): Promise<void> {
  const deleted = await db.deleteFrom('site_spaces').where('id', '=', siteSpaceId).returning('site_id').executeTakeFirst();
  if (deleted) await notifyChange(db, { kind: 'site', siteId: deleted.site_id });
}

export async function moveRootSiteSpacesToSection(db: Db, siteId: string, sectionId: string): Promise<void> {
  await db.updateTable('site_spaces').set({ section_id: sectionId }).where('site_id', '=', siteId).where('section_id', 'is', null).execute();
  await notifyChange(db, { kind: 'site', siteId: siteId });
}
