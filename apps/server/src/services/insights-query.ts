import { BadRequestError } from '../errors.js';
import type { InsightAggregation, InsightColumn, InsightFilter, InsightMeasure } from '../stores/site-insights-store.js';

/*
 * A question of `aggregateSiteEvents`, in the public API's column names, turned into the plan the store
 * runs, and its rows turned back into the answer's columns. Pure: the one statement of which API column is
 * which stored column or measure, and of the bounds of a question (range, rows).
 */

export type ColumnName = string;
export interface ColumnRequest { column: ColumnName; interval?: 'hour' | 'day' | 'week' | 'month'; precision?: number; claim?: string }
export interface FilterRequest { column: ColumnName; claim?: string; operator?: InsightFilter['operator']; values: unknown[] }
export type RangeRequest = 'lastYear' | 'last3Months' | 'last30Days' | 'last7Days' | 'last24Hours' | { from: string; to: string };
export interface AggregationRequest {
  select?: ColumnRequest[];
  where?: FilterRequest[];
  groupBy?: ColumnRequest[];
  order?: { by: ColumnRequest; direction: 'asc' | 'desc' };
  range: RangeRequest;
  limit?: number;
}
export interface AnswerColumn { column: ColumnName; values: unknown[] }

const DAY_MS = 86_400_000;
/** How long events are kept, and the widest range a question may read. */
export const INSIGHTS_RETENTION_DAYS = 366;
const PRESET_DAYS: Record<Exclude<RangeRequest, object>, number> = { last24Hours: 1, last7Days: 7, last30Days: 30, last3Months: 92, lastYear: 365 };

/** A property of events: its stored columns (several for `page`), and the column events must have to count. */
interface Dimension { kind: 'dimension'; columns: InsightColumn[]; presentIn?: InsightColumn; integer?: boolean; json?: boolean }
/** A measure: what is counted, one or several counts shown as one object. */
interface Measure { kind: 'measure'; measures: InsightMeasure[]; fields?: string[] }
type Column = Dimension | Measure;

const dimension = (column: InsightColumn, options: Omit<Dimension, 'kind' | 'columns'> = {}): Dimension => ({ kind: 'dimension', columns: [column], ...options });
const eventProperty = (column: InsightColumn, options: Omit<Dimension, 'kind' | 'columns' | 'presentIn'> = {}): Dimension => dimension(column, { presentIn: column, ...options });

const COLUMNS: Record<string, Column> = {
  url: dimension('url'),
  eventType: dimension('event_type'),
  siteSection: dimension('site_section_id'),
  siteSpace: dimension('site_space_id'),
  siteShareKey: dimension('site_share_link_id'),
  displayContext: dimension('display_context'),
  page: { kind: 'dimension', columns: ['page_id', 'space_id'] },
  visitorDevice: dimension('device'),
  visitorBrowser: dimension('browser'),
  visitorOS: dimension('os'),
  visitorBot: dimension('bot'),
  visitorLanguage: dimension('language'),
  referrer: dimension('referrer'),
  referrerDomain: dimension('referrer_domain'),
  utmSource: dimension('utm_source'),
  utmMedium: dimension('utm_medium'),
  utmCampaign: dimension('utm_campaign'),
  utmTerm: dimension('utm_term'),
  utmContent: dimension('utm_content'),
  eventLinkTargetValue: eventProperty('link_target', { json: true }),
  eventLinkTargetKind: eventProperty('link_target_kind'),
  eventLinkTargetDomain: dimension('link_target_domain', { presentIn: 'link_target_kind' }),
  eventLinkPosition: eventProperty('link_position'),
  eventAPIOperationPath: eventProperty('api_operation_path'),
  eventAPIOperationMethod: eventProperty('api_operation_method'),
  eventSearchQuery: eventProperty('search_query'),
  eventPageFeedbackRating: eventProperty('feedback_rating'),
  eventPageFeedbackComment: eventProperty('feedback_comment'),
  eventAskResponseRating: eventProperty('answer_rating', { integer: true }),
  eventAdDomain: eventProperty('ad_domain'),
  eventAdPlacement: eventProperty('ad_placement'),
  eventTrademarkPlacement: eventProperty('trademark_placement'),
  eventsCount: { kind: 'measure', measures: ['events'] },
  sessionsCount: { kind: 'measure', measures: ['sessions'] },
  visitorsCount: { kind: 'measure', measures: ['visitors'] },
  pageFeedbackRating: { kind: 'measure', measures: ['feedback_bad', 'feedback_ok', 'feedback_good'], fields: ['bad', 'ok', 'good'] },
  askResponseRating: { kind: 'measure', measures: ['answers_positive', 'answers_negative'], fields: ['positive', 'negative'] },
};

const NOT_KEPT: Record<string, string> = {
  visitorClaim: 'Quire does not keep visitors\' claims (they identify people), so it cannot group or filter by them',
  visitorClaimProperty: 'Quire does not keep visitors\' claims (they identify people), so it cannot group or filter by them',
  visitorGeoCountry: 'Quire keeps no IP address of visitors, so it cannot place them',
  visitorGeoPoint: 'Quire keeps no IP address of visitors, so it cannot place them',
};

const INTERVAL_COLUMNS = { hour: 'hour_start', day: 'day_start', week: 'week_start', month: 'month_start' } as const;

function columnOf(request: ColumnRequest, where: string): Column {
  const refusal = NOT_KEPT[request.column];
  if (refusal) throw new BadRequestError(`${where}: ${request.column}: ${refusal}`);
  if (request.column === 'datetime') return dimension(INTERVAL_COLUMNS[request.interval ?? 'day']);
  const column = COLUMNS[request.column];
  if (!column) throw new BadRequestError(`${where}: unknown column ${request.column}`);
  return column;
}

/** The same column asked twice is one column (`datetime` with each interval is its own). */
const identity = (request: ColumnRequest) => (request.column === 'datetime' ? `datetime:${request.interval ?? 'day'}` : request.column);

function rangeOf(range: RangeRequest, now: Date): { from: string; to: string } {
  if (typeof range === 'string') return { from: new Date(now.getTime() - PRESET_DAYS[range] * DAY_MS).toISOString(), to: new Date(now.getTime() + 1).toISOString() };
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  if (Number.isNaN(from) || Number.isNaN(to) || from >= to) throw new BadRequestError('body.range: from must be an earlier date-time than to');
  if (to - from > INSIGHTS_RETENTION_DAYS * DAY_MS) throw new BadRequestError(`body.range spans more than ${INSIGHTS_RETENTION_DAYS} days, the time events are kept`);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

function scalarValue(value: unknown, where: string, integer: boolean): string | number | null {
  if (value === null) return null;
  if (integer ? Number.isInteger(value) : typeof value === 'string') return value as string | number;
  throw new BadRequestError(`${where} must be ${integer ? 'integers' : 'strings'} or null`);
}

function filterOf(request: FilterRequest, index: number): { filter?: InsightFilter; having?: InsightAggregation['having'][number] } {
  const where = `body.where[${index}]`;
  const operator = request.operator ?? 'in';
  const comparison = operator !== 'in' && operator !== 'notIn';
  if (request.column === 'datetime') {
    const values = request.values.map((value) => {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new BadRequestError(`${where}.values must be date-times`);
      return [new Date(value).toISOString()];
    });
    return { filter: { columns: ['occurred_at'], operator, values } };
  }
  const column = columnOf(request, where);
  if (column.kind === 'measure') {
    if (column.measures.length !== 1) throw new BadRequestError(`${where}: ${request.column} holds several counts and cannot be compared`);
    const numbers = request.values.map((value) => {
      if (typeof value !== 'number') throw new BadRequestError(`${where}.values must be numbers`);
      return value;
    });
    const measure = column.measures[0]!;
    return { having: comparison ? { measure, operator, value: numbers[0]! } : { measure, operator, values: numbers } };
  }
  if (comparison) throw new BadRequestError(`${where}: ${operator} compares datetime and counts only; use in or notIn`);
  const values = request.values.map((value) => {
    if (request.column !== 'page') return [scalarValue(value, `${where}.values`, column.integer === true)];
    if (value === null) return [null, null];
    const page = value as { page?: unknown; space?: unknown };
    if (typeof value !== 'object' || typeof page.space !== 'string' || (page.page !== null && typeof page.page !== 'string')) {
      throw new BadRequestError(`${where}.values must be {page, space} objects or null`);
    }
    return [page.page as string | null, page.space];
  });
  return { filter: { columns: column.columns, operator, values: column.json ? values.map(([value]) => [value === null ? null : JSON.stringify(value)]) : values } };
}

export interface Plan {
  aggregation: InsightAggregation;
  /** How to read each answer column out of the rows. */
  answer: Array<{ column: ColumnName; read: (row: Record<string, unknown>) => unknown }>;
}

export function planAggregation(siteId: string, request: AggregationRequest, now: Date): Plan {
  const { from, to } = rangeOf(request.range, now);
  const groups: InsightAggregation['groups'] = [];
  const measures: InsightAggregation['measures'] = [];
  const present = new Set<InsightColumn>();
  const readers = new Map<string, (row: Record<string, unknown>) => unknown>();

  (request.groupBy ?? []).forEach((group, index) => {
    const column = columnOf(group, `body.groupBy[${index}]`);
    if (column.kind === 'measure') throw new BadRequestError(`body.groupBy[${index}]: ${group.column} is a count, not something to group by`);
    if (readers.has(identity(group))) return;
    const keys = column.columns.map((stored, part) => {
      const key = `g${groups.length}`;
      groups.push({ key, column: stored });
      return key;
    });
    if (column.presentIn) present.add(column.presentIn);
    readers.set(identity(group), (row) => readDimension(group.column, column, keys.map((key) => row[key])));
  });

  const selected = request.select ?? [...(request.groupBy ?? []), { column: 'eventsCount' }];
  const addMeasure = (request: ColumnRequest, column: Measure) => {
    if (readers.has(identity(request))) return;
    const keys = column.measures.map((measure) => {
      const key = `m${measures.length}`;
      measures.push({ key, measure });
      return key;
    });
    const fields = column.fields;
    readers.set(identity(request), fields ? (row) => Object.fromEntries(fields.map((field, part) => [field, row[keys[part]!]])) : (row) => row[keys[0]!]);
  };
  const answer = selected.map((request, index) => {
    const column = columnOf(request, `body.select[${index}]`);
    if (column.kind === 'measure') addMeasure(request, column);
    else if (!readers.has(identity(request))) throw new BadRequestError(`body.select[${index}]: ${request.column} is not grouped by; add it to groupBy`);
    return { column: request.column, read: readers.get(identity(request))! };
  });

  // The contract asks for one column at least; a question that still selects nothing has no rows to answer.
  if (groups.length === 0 && measures.length === 0) throw new BadRequestError('body.select must name a count or a grouped column');

  let order: InsightAggregation['order'];
  if (request.order) {
    const by = request.order.by;
    const column = columnOf(by, 'body.order.by');
    if (column.kind === 'measure') addMeasure(by, column);
    if (!readers.has(identity(by))) throw new BadRequestError(`body.order.by: ${by.column} is neither grouped by nor a count`);
    const key = column.kind === 'measure'
      ? measures.find((measure) => measure.measure === column.measures[0])!.key
      : groups.find((group) => group.column === column.columns[0])!.key;
    order = { key, direction: request.order.direction };
  }

  const where: InsightFilter[] = [];
  const having: InsightAggregation['having'] = [];
  (request.where ?? []).forEach((filter, index) => {
    const made = filterOf(filter, index);
    if (made.filter) where.push(made.filter);
    if (made.having) having.push(made.having);
  });

  return {
    aggregation: { siteId, from, to, groups, measures, present: [...present], where, having, limit: request.limit ?? 1000, ...(order ? { order } : {}) },
    answer,
  };
}

function readDimension(name: ColumnName, column: Dimension, parts: unknown[]): unknown {
  const [value] = parts;
  if (name === 'page') return parts[1] === null || parts[1] === undefined ? null : { page: parts[0] ?? null, space: parts[1] };
  if (value === null || value === undefined) return null;
  if (column.json) return JSON.parse(String(value)) as unknown;
  if (column.integer) return Number(value);
  return value;
}

/** The answer's columns, each with its values in the rows' order. */
export function answerColumns(plan: Plan, rows: ReadonlyArray<Record<string, unknown>>): AnswerColumn[] {
  return plan.answer.map(({ column, read }) => ({ column, values: rows.map(read) }));
}
