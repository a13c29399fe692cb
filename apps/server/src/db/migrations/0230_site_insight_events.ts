import type { Kysely } from 'kysely';

/*
 * What visitors of docs sites did (services/site-insights-service.ts): one row per event, with only what the
 * aggregates read. Visitors and sessions are keyed hashes (counted, never identified); no IP address,
 * cookie, token, claim or user-agent string is kept, only the kinds read from them. Intervals are worked out
 * when an event is written (`hour_start`...), so that grouping by time is the same plain column on both
 * dialects. Rows go with their site, and are deleted past the retention (366 days) as new ones arrive. The
 * index serves both: every read and every purge is one site over a range of time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('site_insight_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('hour_start', 'text', (c) => c.notNull())
    .addColumn('day_start', 'text', (c) => c.notNull())
    .addColumn('week_start', 'text', (c) => c.notNull())
    .addColumn('month_start', 'text', (c) => c.notNull())
    .addColumn('visitor_hash', 'text', (c) => c.notNull())
    .addColumn('session_hash', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('display_context', 'text', (c) => c.notNull())
    .addColumn('site_section_id', 'text')
    .addColumn('site_space_id', 'text')
    .addColumn('site_share_link_id', 'text')
    .addColumn('space_id', 'text')
    .addColumn('revision_id', 'text')
    .addColumn('page_id', 'text')
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('os', 'text', (c) => c.notNull())
    .addColumn('bot', 'text', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('referrer', 'text', (c) => c.notNull())
    .addColumn('referrer_domain', 'text', (c) => c.notNull())
    .addColumn('utm_source', 'text', (c) => c.notNull())
    .addColumn('utm_medium', 'text', (c) => c.notNull())
    .addColumn('utm_campaign', 'text', (c) => c.notNull())
    .addColumn('utm_term', 'text', (c) => c.notNull())
    .addColumn('utm_content', 'text', (c) => c.notNull())
    .addColumn('search_query', 'text')
    .addColumn('feedback_rating', 'text')
    .addColumn('feedback_comment', 'text')
    .addColumn('answer_rating', 'integer')
    .addColumn('link_target', 'text')
    .addColumn('link_target_kind', 'text')
    .addColumn('link_target_domain', 'text')
    .addColumn('link_position', 'text')
    .addColumn('api_operation_path', 'text')
    .addColumn('api_operation_method', 'text')
    .addColumn('ad_domain', 'text')
    .addColumn('ad_placement', 'text')
    .addColumn('trademark_placement', 'text')
    .execute();
  await db.schema.createIndex('site_insight_events_time').on('site_insight_events').columns(['site_id', 'occurred_at']).execute();
}
