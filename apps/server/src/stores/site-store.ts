import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, DialectName } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import type { SiteSectionGroupsTable, SiteSectionsTable, SiteShareLinksTable, SitesTable, SiteSpacesTable, SiteVisitorAuthTable } from '../db/schema.js';
import { parseRole, type RoleOrGuest } from '../policies/roles.js';
import type { ContentViewer } from '../policies/visibility-policy.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import type { SpaceRow } from './space-store.js';
import { withContentAccess } from './visibility.js';

export type SiteRow = Selectable<SitesTable>;
export type SiteSectionRow = Selectable<SiteSectionsTable>;
export type SiteSectionGroupRow = Selectable<SiteSectionGroupsTable>;
export type SiteSpaceRow = Selectable<SiteSpacesTable>;
export type ShareLinkRow = Selectable<SiteShareLinksTable>;
export type SiteVisitorAuthRow = Selectable<SiteVisitorAuthTable>;

/** A site with the number of its site spaces. */
export interface SiteWithCount extends SiteRow {
  site_spaces_count: number;
}

/** A site space with the space it publishes and the viewer's role on that space (null: not theirs to see). */
export interface SiteSpaceRecord {
  siteSpace: SiteSpaceRow;
  space: SpaceRow;
  role: RoleOrGuest;
}

// ---------------------------------------------------------------------------------------------- sites

const SITE_ORDER: KeysetOrder<SiteWithCount> = { columns: ['sites.created_at', 'sites.id'], keyOf: (row) => [row.created_at, row.id] };
export const SITE_ORDER_KEY_LENGTH = SITE_ORDER.columns.length;

function sitesWithCount(db: Db) {
  return db.selectFrom('sites').selectAll('sites').select((eb) =>
    eb.selectFrom('site_spaces').select(eb.fn.countAll().as('c')).whereRef('site_spaces.site_id', '=', 'sites.id').as('site_spaces_count'));
}

function withCount<Row extends { site_spaces_count: unknown }>(row: Row): Row & { site_spaces_count: number } {
  return { ...row, site_spaces_count: toCount(row.site_spaces_count) };
}

export interface SiteFilters {
  space?: string;
  title?: string;
  published?: boolean;
  types?: readonly string[];
}

export async function listSites(db: Db, organizationId: string, filters: SiteFilters, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<SiteWithCount>> {
  let query = sitesWithCount(db).where('sites.organization_id', '=', organizationId);
  if (filters.space !== undefined) {
    const spaceId = filters.space;
    query = query.where((eb) => eb.exists(eb.selectFrom('site_spaces').select('site_spaces.id').whereRef('site_spaces.site_id', '=', 'sites.id').where('site_spaces.space_id', '=', spaceId)));
  }
  if (filters.title !== undefined) {
    // Case-insensitive containment on both dialects; the pattern's own wildcards are escaped.
    const pattern = `%${filters.title.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    query = query.where(sql<boolean>`lower(sites.title) like ${pattern} escape '\\'`);
  }
  if (filters.published !== undefined) query = query.where('sites.published', '=', filters.published ? 1 : 0);
  if (filters.types !== undefined) query = query.where('sites.type', 'in', [...filters.types]);
  const page = await keysetPage(query, SITE_ORDER as unknown as KeysetOrder<{ site_spaces_count: unknown } & SiteRow>, after, limit);
  return { ...page, rows: page.rows.map(withCount) };
}

export async function findSite(db: Db, organizationId: string, siteId: string): Promise<SiteWithCount | undefined> {
  const row = await sitesWithCount(db).where('sites.organization_id', '=', organizationId).where('sites.id', '=', siteId).executeTakeFirst();
  return row ? withCount(row) : undefined;
}

export async function findSiteById(db: Db, siteId: string): Promise<SiteWithCount | undefined> {
  const row = await sitesWithCount(db).where('sites.id', '=', siteId).executeTakeFirst();
  return row ? withCount(row) : undefined;
}

export async function findSiteIdByHostname(db: Db, hostname: string): Promise<string | undefined> {
  const row = await db.selectFrom('sites').select('id').where('hostname', '=', hostname).executeTakeFirst();
  return row?.id;
}

/**
 * The published sites a `/sites/{segment}` address may name: the site with that id, and those with that
 * basename (basenames are not unique across organizations), oldest first; the caller picks.
 */
export async function findPublishedSitesBySegment(db: Db, segment: string): Promise<SiteWithCount[]> {
  const rows = await sitesWithCount(db).where('sites.published', '=', 1)
    .where((eb) => eb.or([eb('sites.id', '=', segment), eb('sites.basename', '=', segment)]))
    .orderBy('sites.created_at').orderBy('sites.id').limit(50).execute();
  return rows.map(withCount);
}

export async function findSiteByHostname(db: Db, hostname: string): Promise<SiteWithCount | undefined> {
  const row = await sitesWithCount(db).where('sites.hostname', '=', hostname).executeTakeFirst();
  return row ? withCount(row) : undefined;
}

/** What a visitor token re-checks on every request: one row by primary key, no count. */
export async function findSiteState(db: Db, siteId: string): Promise<Pick<SiteRow, 'id' | 'organization_id' | 'published' | 'visibility'> | undefined> {
  return db.selectFrom('sites').select(['id', 'organization_id', 'published', 'visibility']).where('id', '=', siteId).executeTakeFirst();
}

/** Serialises the structure changes of one site (positions, defaults) until the transaction ends. */
export async function lockSite(db: Db, dialect: DialectName, siteId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('sites').select('id').where('id', '=', siteId).forUpdate().execute();
}

export async function insertSite(db: Db, row: Insertable<SitesTable>): Promise<void> {
  await db.insertInto('sites').values(row).execute();
}

export async function updateSite(db: Db, siteId: string, patch: Updateable<SitesTable>): Promise<void> {
  await db.updateTable('sites').set(patch).where('id', '=', siteId).execute();
}

export async function deleteSite(db: Db, organizationId: string, siteId: string): Promise<void> {
  // Children first: SQLite enforces foreign keys, and the group -> group cascade is not to be relied on for order.
  await db.deleteFrom('site_share_links').where('site_id', '=', siteId).execute();
  await db.deleteFrom('site_visitor_auth').where('site_id', '=', siteId).execute();
  await db.deleteFrom('site_spaces').where('site_id', '=', siteId).execute();
  await db.deleteFrom('site_sections').where('site_id', '=', siteId).execute();
  await db.updateTable('site_section_groups').set({ parent_id: null }).where('site_id', '=', siteId).execute();
  await db.deleteFrom('site_section_groups').where('site_id', '=', siteId).execute();
  await db.deleteFrom('sites').where('organization_id', '=', organizationId).where('id', '=', siteId).execute();
}

// ---------------------------------------------------------------------------------------- site spaces

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
}

export async function updateSiteSpace(db: Db, siteSpaceId: string, patch: Updateable<SiteSpacesTable>): Promise<void> {
  await db.updateTable('site_spaces').set(patch).where('id', '=', siteSpaceId).execute();
}

/** Makes one site space the default of its level and the others of that level not. */
export async function setDefaultSiteSpace(db: Db, siteId: string, sectionId: string | null, siteSpaceId: string): Promise<void> {
  const level = db.updateTable('site_spaces').where('site_id', '=', siteId);
  await (sectionId === null ? level.where('section_id', 'is', null) : level.where('section_id', '=', sectionId))
    .set((eb) => ({ is_default: eb.case().when('id', '=', siteSpaceId).then(1).else(0).end() })).execute();
}

export async function deleteSiteSpace(db: Db, siteSpaceId: string): Promise<void> {
  await db.deleteFrom('site_spaces').where('id', '=', siteSpaceId).execute();
}

export async function moveRootSiteSpacesToSection(db: Db, siteId: string, sectionId: string): Promise<void> {
  await db.updateTable('site_spaces').set({ section_id: sectionId }).where('site_id', '=', siteId).where('section_id', 'is', null).execute();
}

// ------------------------------------------------------------------------------ sections and groups

const SECTION_ORDER: KeysetOrder<SiteSectionRow> = { columns: ['position', 'id'], keyOf: (row) => [row.position, row.id] };
export const SECTION_ORDER_KEY_LENGTH = SECTION_ORDER.columns.length;

export async function listSectionsPage(db: Db, siteId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<SiteSectionRow>> {
  return keysetPage(db.selectFrom('site_sections').selectAll().where('site_id', '=', siteId), SECTION_ORDER, after, limit);
}

export async function allSections(db: Db, siteId: string): Promise<SiteSectionRow[]> {
  return db.selectFrom('site_sections').selectAll().where('site_id', '=', siteId).orderBy('position').orderBy('id').execute();
}

export async function findSection(db: Db, siteId: string, sectionId: string): Promise<SiteSectionRow | undefined> {
  return db.selectFrom('site_sections').selectAll().where('site_id', '=', siteId).where('id', '=', sectionId).executeTakeFirst();
}

export async function insertSection(db: Db, row: Insertable<SiteSectionsTable>): Promise<void> {
  await db.insertInto('site_sections').values(row).execute();
}

export async function updateSection(db: Db, sectionId: string, patch: Updateable<SiteSectionsTable>): Promise<void> {
  await db.updateTable('site_sections').set(patch).where('id', '=', sectionId).execute();
}

export async function setDefaultSection(db: Db, siteId: string, sectionId: string): Promise<void> {
  await db.updateTable('site_sections').where('site_id', '=', siteId)
    .set((eb) => ({ is_default: eb.case().when('id', '=', sectionId).then(1).else(0).end() })).execute();
}

export async function deleteSection(db: Db, sectionId: string): Promise<void> {
  await db.deleteFrom('site_spaces').where('section_id', '=', sectionId).execute();
  await db.deleteFrom('site_sections').where('id', '=', sectionId).execute();
}

const GROUP_ORDER: KeysetOrder<SiteSectionGroupRow> = { columns: ['position', 'id'], keyOf: (row) => [row.position, row.id] };
export const GROUP_ORDER_KEY_LENGTH = GROUP_ORDER.columns.length;

export async function listGroupsPage(db: Db, siteId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<SiteSectionGroupRow>> {
  return keysetPage(db.selectFrom('site_section_groups').selectAll().where('site_id', '=', siteId), GROUP_ORDER, after, limit);
}

export async function allGroups(db: Db, siteId: string): Promise<SiteSectionGroupRow[]> {
  return db.selectFrom('site_section_groups').selectAll().where('site_id', '=', siteId).orderBy('position').orderBy('id').execute();
}

export async function findGroup(db: Db, siteId: string, groupId: string): Promise<SiteSectionGroupRow | undefined> {
  return db.selectFrom('site_section_groups').selectAll().where('site_id', '=', siteId).where('id', '=', groupId).executeTakeFirst();
}

export async function insertGroup(db: Db, row: Insertable<SiteSectionGroupsTable>): Promise<void> {
  await db.insertInto('site_section_groups').values(row).execute();
}

export async function updateGroup(db: Db, groupId: string, patch: Updateable<SiteSectionGroupsTable>): Promise<void> {
  await db.updateTable('site_section_groups').set(patch).where('id', '=', groupId).execute();
}

/** Deletes a group after moving its sections and child groups to `parentId` (the level it was at). */
export async function deleteGroup(db: Db, siteId: string, groupId: string, parentId: string | null): Promise<void> {
  await db.updateTable('site_sections').set({ group_id: parentId }).where('site_id', '=', siteId).where('group_id', '=', groupId).execute();
  await db.updateTable('site_section_groups').set({ parent_id: parentId }).where('site_id', '=', siteId).where('parent_id', '=', groupId).execute();
  await db.deleteFrom('site_section_groups').where('id', '=', groupId).execute();
}

// ------------------------------------------------------------------------------------- share links

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
}

export async function updateShareLink(db: Db, shareLinkId: string, patch: Updateable<SiteShareLinksTable>): Promise<void> {
  await db.updateTable('site_share_links').set(patch).where('id', '=', shareLinkId).execute();
}

export async function deleteShareLink(db: Db, siteId: string, shareLinkId: string): Promise<void> {
  await db.deleteFrom('site_share_links').where('site_id', '=', siteId).where('id', '=', shareLinkId).execute();
}

// ---------------------------------------------------------------------------------- visitor authentication

export async function findVisitorAuth(db: Db, siteId: string): Promise<SiteVisitorAuthRow | undefined> {
  return db.selectFrom('site_visitor_auth').selectAll().where('site_id', '=', siteId).executeTakeFirst();
}

export async function findVisitorAuthKeyId(db: Db, siteId: string): Promise<string | undefined> {
  const row = await db.selectFrom('site_visitor_auth').select('key_id').where('site_id', '=', siteId).executeTakeFirst();
  return row?.key_id;
}

export async function insertVisitorAuth(db: Db, row: Insertable<SiteVisitorAuthTable>): Promise<void> {
  await db.insertInto('site_visitor_auth').values(row).execute();
}

export async function updateVisitorAuth(db: Db, siteId: string, patch: Updateable<SiteVisitorAuthTable>): Promise<void> {
  await db.updateTable('site_visitor_auth').set(patch).where('site_id', '=', siteId).execute();
}

export async function deleteVisitorAuth(db: Db, siteId: string): Promise<void> {
  await db.deleteFrom('site_visitor_auth').where('site_id', '=', siteId).execute();
}
