import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { notifyChange } from '../db/change-notices.js';
import type { Db, DialectName } from '../db/index.js';
import { toCount } from '../db/dialect.js';
import type { SitesTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { setsSomething } from './patch.js';

/*
 * Docs sites. Their parts have their own stores, one per family of the contract: site spaces
 * (site-space-store.ts), sections and section groups (site-section-store.ts), share links
 * (site-share-link-store.ts) and visitor authentication (site-visitor-auth-store.ts).
 */

export type SiteRow = Selectable<SitesTable>;

/** A site with the number of its site spaces. */
export interface SiteWithCount extends SiteRow {
  site_spaces_count: number;
}

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

/** The site that holds this text as its address segment: as its basename, or as its id. */
export async function findSiteIdByAddressSegment(db: Db, segment: string): Promise<string | undefined> {
  const row = await db.selectFrom('sites').select('id')
    .where((eb) => eb.or([eb('basename', '=', segment), eb('id', '=', segment)])).executeTakeFirst();
  return row?.id;
}

export async function findSiteIdByHostname(db: Db, hostname: string): Promise<string | undefined> {
  const row = await db.selectFrom('sites').select('id').where('hostname', '=', hostname).executeTakeFirst();
  return row?.id;
}

/**
 * The sites an address can name, in one read (each term an indexed equality): those whose hostname is one of
 * `hostnames`, and those whose id or basename is `segment` (published or not: the caller picks). Every term is
 * unique, so at most four rows.
 */
export async function findSitesForAddress(db: Db, hostnames: string[], segment: string | undefined): Promise<SiteWithCount[]> {
  const rows = await sitesWithCount(db)
    .where((eb) => eb.or([
      eb('sites.hostname', 'in', hostnames),
      ...(segment === undefined ? [] : [eb('sites.id', '=', segment), eb('sites.basename', '=', segment)]),
    ]))
    .orderBy('sites.created_at').orderBy('sites.id').execute();
  return rows.map(withCount);
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
  await notifyChange(db, { kind: 'site', siteId: row.id as string });
}

export async function updateSite(db: Db, siteId: string, patch: Updateable<SitesTable>): Promise<void> {
  if (!setsSomething(patch)) return;
  await db.updateTable('sites').set(patch).where('id', '=', siteId).execute();
  await notifyChange(db, { kind: 'site', siteId: siteId });
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
  await notifyChange(db, { kind: 'site', siteId: siteId });
}
