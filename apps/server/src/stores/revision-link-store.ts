import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { toCount } from '../db/dialect.js';
import type { Database, Db } from '../db/index.js';
import type { RevisionLinksTable, RevisionLinkSetsTable } from '../db/schema.js';
import { chunks } from './collection-store.js';
import { keysetPage, type KeysetPage } from './keyset.js';

export type RevisionLinkRow = Selectable<RevisionLinksTable>;
export type RevisionLinkSetRow = Selectable<RevisionLinkSetsTable>;

/** Rows per INSERT: 9 parameters each, far below the bound-parameter limits of both databases. */
const INSERT_BATCH = 100;

export async function findLinkSet(db: Db, revisionId: string): Promise<RevisionLinkSetRow | undefined> {
  return db.selectFrom('revision_link_sets').selectAll().where('revision_id', '=', revisionId).executeTakeFirst();
}

/**
 * Stores the links of a revision, in the caller's transaction. Two requests may work out the same
 * revision's links at once: both compute the same rows, and "insert ... on conflict do nothing" keeps the
 * first complete set whichever commits first.
 */
export async function insertLinkSet(db: Db, set: RevisionLinkSetRow, rows: readonly RevisionLinkRow[]): Promise<void> {
  for (const batch of chunks(rows, INSERT_BATCH)) {
    await db.insertInto('revision_links').values(batch)
      .onConflict((conflict) => conflict.columns(['revision_id', 'item_key', 'source_kind', 'source_id']).doNothing())
      .execute();
  }
  await db.insertInto('revision_link_sets').values(set).onConflict((conflict) => conflict.column('revision_id').doNothing()).execute();
}

export interface LinkFilter {
  revisionId: string;
  status?: string;
  /** Only the links used in this page. */
  sourcePageId?: string;
  /** Only the broken links (beside `status`, which then leaves none unless it is `broken`). */
  brokenOnly?: boolean;
  /** Only the links that were not broken in this earlier revision (with `brokenOnly`: those a change request breaks). */
  brokenSince?: string;
}

/** Whether the item `l.item_key` is broken in the revision, for the filters below. */
function brokenIn(revisionId: string) {
  return ({ exists, selectFrom }: ExpressionBuilder<Database & { l: Database['revision_links'] }, 'l'>) => exists(
    selectFrom('revision_links as b')
      .select(sql<number>`1`.as('one'))
      .where('b.revision_id', '=', revisionId)
      .whereRef('b.item_key', '=', 'l.item_key')
      .where('b.status', '=', 'broken'),
  );
}

/** Items (distinct `item_key`s) of a link list, in key order. */
export async function listLinkItemKeys(db: Db, filter: LinkFilter, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<{ item_key: string }>> {
  let keys = db.selectFrom('revision_links as l').select('l.item_key').distinct().where('l.revision_id', '=', filter.revisionId);
  if (filter.status !== undefined) keys = keys.where('l.status', '=', filter.status);
  if (filter.sourcePageId !== undefined) keys = keys.where('l.source_kind', '=', 'page').where('l.source_id', '=', filter.sourcePageId);
  if (filter.brokenOnly) keys = keys.where('l.status', '=', 'broken');
  if (filter.brokenSince !== undefined) {
    const base = brokenIn(filter.brokenSince);
    keys = keys.where((eb) => eb.not(base(eb)));
  }
  const query = db.selectFrom(keys.as('items')).select('items.item_key');
  return keysetPage(query, { columns: ['items.item_key'], keyOf: (row) => [row.item_key] }, after, limit);
}

/** Every row of these items (one per page using the item), or only those of one page. */
export async function findLinkRows(db: Db, revisionId: string, itemKeys: readonly string[], sourcePageId?: string): Promise<RevisionLinkRow[]> {
  const rows: RevisionLinkRow[] = [];
  for (const batch of chunks(itemKeys, 200)) {
    let query = db.selectFrom('revision_links').selectAll().where('revision_id', '=', revisionId).where('item_key', 'in', batch);
    if (sourcePageId !== undefined) query = query.where('source_kind', '=', 'page').where('source_id', '=', sourcePageId);
    rows.push(...await query.orderBy('item_key').orderBy('source_kind').orderBy('source_id').execute());
  }
  return rows;
}

/** Distinct items of one page of a revision, and how many of them are broken. */
export async function countPageLinkItems(db: Db, revisionId: string, pageId: string): Promise<{ total: number; broken: number }> {
  const row = await db.selectFrom('revision_links')
    .select([
      sql<number>`count(distinct item_key)`.as('total'),
      sql<number>`count(distinct case when status = 'broken' then item_key end)`.as('broken'),
    ])
    .where('revision_id', '=', revisionId)
    .where('source_kind', '=', 'page')
    .where('source_id', '=', pageId)
    .executeTakeFirst();
  return { total: toCount(row?.total), broken: toCount(row?.broken) };
}

/**
 * Broken items of `revisionId` (of one of its pages, when given) that are not broken items of
 * `baseRevisionId`: the broken links a change request brings in compared with the content it started from.
 */
export async function countNewlyBrokenItems(db: Db, revisionId: string, baseRevisionId: string, pageId?: string): Promise<number> {
  let query = db.selectFrom('revision_links as l')
    .select(sql<number>`count(distinct l.item_key)`.as('count'))
    .where('l.revision_id', '=', revisionId)
    .where('l.status', '=', 'broken')
    .where((eb) => eb.not(brokenIn(baseRevisionId)(eb)));
  if (pageId !== undefined) query = query.where('l.source_kind', '=', 'page').where('l.source_id', '=', pageId);
  const row = await query.executeTakeFirst();
  return toCount(row?.count);
}

export interface LinkSource {
  source_kind: string;
  source_id: string;
}

/** The places (pages...) of a revision holding a link to a page or file, in a stable order. */
export async function listLinkSources(
  db: Db,
  revisionId: string,
  target: { kind: 'page' | 'file'; id: string },
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<LinkSource>> {
  const sources = db.selectFrom('revision_links')
    .select(['source_kind', 'source_id'])
    .distinct()
    .where('revision_id', '=', revisionId)
    .where('target_kind', '=', target.kind)
    .where('target_id', '=', target.id);
  const query = db.selectFrom(sources.as('sources')).select(['sources.source_kind', 'sources.source_id']);
  return keysetPage(query, { columns: ['sources.source_kind', 'sources.source_id'], keyOf: (row) => [row.source_kind, row.source_id] }, after, limit);
}
