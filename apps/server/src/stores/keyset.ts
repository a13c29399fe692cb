import { sql, type SelectQueryBuilder } from 'kysely';
import { toCount } from '../db/dialect.js';
import { BadRequestError } from '../errors.js';

/**
 * Keyset pagination over a stable order: the page after a cursor holds the rows whose order key is
 * strictly after the cursor's in the order (a row-value comparison, supported by SQLite and PostgreSQL), so rows
 * inserted or deleted between two fetches never make a page repeat or skip an existing row.
 */
export interface KeysetOrder<Row> {
  /** Qualified columns of the order, most significant first; the last one must be unique (the id). */
  columns: readonly string[];
  /** Reads the same key from a result row, to build the cursor of the last row of a page. */
  keyOf: (row: Row) => Array<string | number>;
  /** Every column sorts this way; `desc` lists newest first (the default is `asc`). */
  direction?: 'asc' | 'desc';
  /**
   * The JavaScript type of each key value, for orders with a numeric column: a cursor made for another list
   * may carry text where a number is compared, which PostgreSQL refuses with an error (SQLite compares
   * anyway), so such a cursor is the caller's mistake, 400, before it reaches the database.
   */
  kinds?: ReadonlyArray<'string' | 'number'>;
}

export interface KeysetPage<Row> {
  rows: Row[];
  count: number;
  /** The key of the last row when more rows follow. */
  nextKey?: Array<string | number>;
}

export async function keysetPage<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  order: KeysetOrder<Row>,
  after: ReadonlyArray<string | number> | undefined,
  limit: number,
): Promise<KeysetPage<Row>> {
  if (after && order.kinds && after.some((value, index) => typeof value !== order.kinds![index])) {
    throw new BadRequestError('query.page is not a valid page cursor');
  }
  const columns = sql.join(order.columns.map((column) => sql.ref(column)));
  let pageQuery = query;
  const descending = order.direction === 'desc';
  if (after) {
    const comparison = descending ? sql.raw('<') : sql.raw('>');
    pageQuery = pageQuery.where(sql<boolean>`(${columns}) ${comparison} (${sql.join(after.map((value) => sql.val(value)))})`);
  }
  for (const column of order.columns) pageQuery = pageQuery.orderBy(sql.ref(column) as never, descending ? 'desc' : 'asc');
  // One row more than asked tells whether another page follows without a second query.
  const rows = await pageQuery.limit(limit + 1).execute();
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  // A first page that holds every row is its own count: the count query is skipped. It built the visibility
  // tables of the list a second time (a guest's grants, walked down the collections), which cost a guest
  // seeing 100 spaces about a sixth of their list's time.
  const count = !after && !hasMore ? pageRows.length : toCount((await query
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirst() as { count: unknown } | undefined)?.count);
  return {
    rows: pageRows,
    count,
    ...(hasMore && last !== undefined ? { nextKey: order.keyOf(last) } : {}),
  };
}
