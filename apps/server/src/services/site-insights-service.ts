import { createHmac } from 'node:crypto';
import type { operations } from '@quire/api-types';
import { BadRequestError } from '../errors.js';
import { newId } from '../ids.js';
import { aggregateInsightEvents, insertInsightEvents, purgeInsightEvents, type NewInsightEvent } from '../stores/site-insights-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { addressWithoutQuery, agentKinds, domainOf, intervalStarts, utmOf } from './insights-visitor.js';
import { answerColumns, INSIGHTS_RETENTION_DAYS, planAggregation, type AggregationRequest, type AnswerColumn } from './insights-query.js';
import { serverSecret } from './server-secret-service.js';
import { readableSite } from './site-access.js';
import { inTransaction } from './transaction.js';

/*
 * Site insights: what visitors of a docs site did, recorded by `trackEventsInSiteById` and counted by
 * `aggregateSiteEvents`. The bounds: at most 100 events a request (the contract), each within 5 minutes of
 * the time it arrives; events kept 366 days (each write deletes the site's older ones, one indexed range);
 * a question reads at most 366 days of one site and answers at most 1000 rows. No personal data is kept:
 * visitor and session ids only as HMACs under a server secret (per site, so they cannot be matched across
 * sites), no IP address, cookie, token or claim, and addresses without their query (insights-visitor.ts).
 */

export type InsightEvent = operations['trackEventsInSiteById']['requestBody']['content']['application/json']['events'][number];

const CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
const SECRET_NAME = 'site-insights-visitors';

/** The fields each type of event needs beyond those all have. */
const NEEDS: Partial<Record<InsightEvent['type'], ReadonlyArray<keyof InsightEvent>>> = {
  search_type_query: ['query'],
  search_open_result: ['query', 'result'],
  page_post_feedback: ['feedback'],
  page_post_feedback_comment: ['feedback'],
  ask_question: ['query'],
  ask_rate_response: ['query', 'rating', 'responseId'],
  link_click: ['link'],
  api_client_open: ['operation'],
  api_client_request: ['operation'],
  trademark_click: ['placement'],
  ad_click: ['ad'],
  ad_display: ['ad'],
};

/** The field of a link target that its kind names (`reusableContent` for `reusable-content`). */
const TARGET_FIELDS: Record<string, string> = { 'reusable-content': 'reusableContent' };

function checkEvent(event: InsightEvent, index: number, now: number): Date {
  const where = `body.events[${index}]`;
  for (const field of NEEDS[event.type] ?? []) {
    if (event[field] === undefined) throw new BadRequestError(`${where}.${field} is required for ${event.type} events`);
  }
  if (event.type === 'page_post_feedback_comment' && event.feedback?.comment === undefined) {
    throw new BadRequestError(`${where}.feedback.comment is required for page_post_feedback_comment events`);
  }
  if (event.link) {
    const field = TARGET_FIELDS[event.link.target.kind] ?? event.link.target.kind;
    if ((event.link.target as Record<string, unknown>)[field] === undefined) throw new BadRequestError(`${where}.link.target.${field} is required for ${event.link.target.kind} targets`);
  }
  if (event.timestamp === undefined) return new Date(now);
  const at = Date.parse(event.timestamp);
  if (Number.isNaN(at) || Math.abs(at - now) > CLOCK_SKEW_MS) throw new BadRequestError(`${where}.timestamp must be within 5 minutes of the server's time`);
  return new Date(at);
}

function keyedHash(secret: string, siteId: string, value: string): string {
  return createHmac('sha256', secret).update(`${siteId}\n${value}`, 'utf8').digest('base64url');
}

function eventRow(secret: string, siteId: string, event: InsightEvent, at: Date): NewInsightEvent {
  const { session, location } = event;
  const referrer = session.referrer ? addressWithoutQuery(session.referrer) ?? '' : '';
  const target = event.link?.target;
  return {
    id: newId(),
    site_id: siteId,
    event_type: event.type,
    occurred_at: at.toISOString(),
    ...intervalStarts(at),
    visitor_hash: keyedHash(secret, siteId, session.visitorId),
    session_hash: keyedHash(secret, siteId, session.sessionId),
    url: addressWithoutQuery(location.url) ?? location.url,
    display_context: location.displayContext ?? 'site',
    site_section_id: location.siteSection,
    site_space_id: location.siteSpace,
    site_share_link_id: location.siteShareKey,
    space_id: location.space,
    revision_id: location.revision,
    page_id: location.page,
    ...agentKinds(session.userAgent),
    language: session.language,
    referrer,
    referrer_domain: domainOf(referrer),
    ...utmOf(location.url),
    search_query: event.query ?? null,
    feedback_rating: event.feedback?.rating ?? null,
    feedback_comment: event.feedback?.comment ?? null,
    answer_rating: event.rating ?? null,
    link_target: target ? JSON.stringify(target) : null,
    link_target_kind: target?.kind ?? null,
    link_target_domain: target?.kind === 'url' ? domainOf(target.url) || null : null,
    link_position: event.link?.position ?? null,
    api_operation_path: event.operation?.path ?? null,
    api_operation_method: event.operation?.method ?? null,
    ad_domain: event.ad?.domain ?? null,
    ad_placement: event.ad?.placement ?? null,
    trademark_placement: event.placement ?? null,
  };
}

export async function trackEventsInSiteById(
  context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: { events: InsightEvent[] },
): Promise<void> {
  const { site } = await readableSite(context, caller, organizationId, siteId);
  const now = Date.now();
  // Every event is checked before any is written: a batch is recorded whole or not at all.
  const times = body.events.map((event, index) => checkEvent(event, index, now));
  const secret = await serverSecret(context.db, SECRET_NAME);
  const rows = body.events.map((event, index) => eventRow(secret, site.id, event, times[index]!));
  await inTransaction(context, async (tx) => {
    await purgeInsightEvents(tx.db, site.id, new Date(now - INSIGHTS_RETENTION_DAYS * DAY_MS).toISOString());
    await insertInsightEvents(tx.db, rows);
  });
}

export async function aggregateSiteEvents(
  context: ServiceContext, caller: Caller, organizationId: string, siteId: string, request: AggregationRequest,
): Promise<AnswerColumn[]> {
  const { site } = await readableSite(context, caller, organizationId, siteId);
  const plan = planAggregation(site.id, request, new Date());
  return answerColumns(plan, await aggregateInsightEvents(context.db, plan.aggregation));
}
