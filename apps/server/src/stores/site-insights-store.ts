import { sql, type Expression, type ExpressionBuilder, type Insertable, type SqlBool } from 'kysely';
import type { Db } from '../db/index.js';
import type { Database, SiteInsightEventsTable } from '../db/schema.js';

/*
 * The events of docs sites' visitors (0230) and the one query that reads them: a group-by over one site's
 * events in a range of time, with the filters, measures and order a plan names. Columns come from the plan
 * as names of this table's columns (the service maps the API's names onto them), never from text of a
 * request, so every reference here is one of the table's own columns.
 */

export type NewInsightEvent = Insertable<SiteInsightEventsTable>;
/** A column of the table that events are grouped or filtered by. */
export type InsightColumn = Exclude<keyof SiteInsightEventsTable, 'id' | 'site_id' | 'visitor_hash' | 'session_hash'>;
/** What is counted in each group. */
export type InsightMeasure = 'events' | 'sessions' | 'visitors' | 'feedback_bad' | 'feedback_ok' | 'feedback_good' | 'answers_positive' | 'answers_negative';
export type InsightOperator = 'in' | 'notIn' | 'greaterThan' | 'greaterThanOrEqual' | 'lessThan' | 'lessThanOrEqual';
type Scalar = string | number | null;

export interface InsightFilter {
  /** One column, or several compared together (a page is its page and space ids): each value then has one entry per column. */
  columns: InsightColumn[];
  operator: InsightOperator;
  values: Scalar[][];
}

export interface InsightAggregation {
  siteId: string;
  /** ISO timestamps: events with from <= occurred_at < to. */
  from: string;
  to: string;
  /** Grouped columns, by the key each answer row holds them under. */
  groups: Array<{ key: string; column: InsightColumn }>;
  measures: Array<{ key: string; measure: InsightMeasure }>;
  /** Events without a value in these columns are left out (grouping by a property only some events have). */
  present: InsightColumn[];
  where: InsightFilter[];
  having: Array<{ measure: InsightMeasure; operator: Exclude<InsightOperator, 'in' | 'notIn'>; value: number } | { measure: InsightMeasure; operator: 'in' | 'notIn'; values: number[] }>;
  order?: { key: string; direction: 'asc' | 'desc' };
  limit: number;
}

export async function insertInsightEvents(db: Db, rows: readonly NewInsightEvent[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('site_insight_events').values([...rows]).execute();
}

/** Deletes the site's events that happened before `before` (retention); answers how many went. */
export async function purgeInsightEvents(db: Db, siteId: string, before: string): Promise<number> {
  const result = await db.deleteFrom('site_insight_events').where('site_id', '=', siteId).where('occurred_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

const MEASURES: Record<InsightMeasure, Expression<unknown>> = {
  events: sql`count(*)`,
  sessions: sql`count(distinct session_hash)`,
  visitors: sql`count(distinct visitor_hash)`,
  feedback_bad: sql`sum(case when feedback_rating = 'bad' then 1 else 0 end)`,
  feedback_ok: sql`sum(case when feedback_rating = 'ok' then 1 else 0 end)`,
  feedback_good: sql`sum(case when feedback_rating = 'good' then 1 else 0 end)`,
  answers_positive: sql`sum(case when answer_rating = 1 then 1 else 0 end)`,
  answers_negative: sql`sum(case when answer_rating = -1 then 1 else 0 end)`,
};

const COMPARISONS = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' } as const;

type Eb = ExpressionBuilder<Database, 'site_insight_events'>;

/** One value of a filter: its columns equal the value's entries (null: the column is empty). */
function matches(eb: Eb, columns: InsightColumn[], value: Scalar[]): Expression<SqlBool> {
  return eb.and(columns.map((column, index) => {
    const entry = value[index] ?? null;
    return entry === null ? eb(eb.ref(column), 'is', null) : eb(eb.ref(column), '=', entry);
  }));
}

function filterExpression(eb: Eb, filter: InsightFilter): Expression<SqlBool> {
  if (filter.operator === 'in' || filter.operator === 'notIn') {
    const any = eb.or(filter.values.map((value) => matches(eb, filter.columns, value)));
    return filter.operator === 'in' ? any : eb.not(any);
  }
  const [column] = filter.columns;
  const value = filter.values[0]?.[0] ?? null;
  if (!column || value === null) return sql<SqlBool>`1 = 0`;
  return eb(eb.ref(column), COMPARISONS[filter.operator], value);
}

/** The answer rows, each holding the grouped columns and the measures under their keys (measures as numbers). */
export async function aggregateInsightEvents(db: Db, plan: InsightAggregation): Promise<Array<Record<string, unknown>>> {
  let query = db
    .selectFrom('site_insight_events')
    .where('site_id', '=', plan.siteId)
    .where('occurred_at', '>=', plan.from)
    .where('occurred_at', '<', plan.to);
  for (const column of plan.present) query = query.where(column, 'is not', null);
  for (const filter of plan.where) query = query.where((eb) => filterExpression(eb, filter));
  let selected = query.select((eb) => [
    ...plan.groups.map((group) => eb.ref(group.column).as(group.key)),
    ...plan.measures.map((measure) => sql`${MEASURES[measure.measure]}`.as(measure.key)),
  ]);
  if (plan.groups.length > 0) selected = selected.groupBy(plan.groups.map((group) => group.column));
  for (const condition of plan.having) {
    const measure = MEASURES[condition.measure];
    selected = selected.having(() => 'values' in condition
      ? condition.operator === 'in'
        ? sql<SqlBool>`${measure} in (${sql.join(condition.values)})`
        : sql<SqlBool>`${measure} not in (${sql.join(condition.values)})`
      : sql<SqlBool>`${measure} ${sql.raw(COMPARISONS[condition.operator])} ${condition.value}`);
  }
  if (plan.order) selected = selected.orderBy(sql.ref(plan.order.key), plan.order.direction);
  // Ties are ordered by the grouped columns, so that the same question gives the same rows.
  for (const group of plan.groups) selected = selected.orderBy(sql.ref(group.key), 'asc');
  const rows = (await selected.limit(plan.limit).execute()) as Array<Record<string, unknown>>;
  return rows.map((row) => {
    const converted: Record<string, unknown> = { ...row };
    for (const measure of plan.measures) converted[measure.key] = Number(row[measure.key] ?? 0);
    return converted;
  });
}
