import type { components } from '@quire/api-types';
import type { AnswerColumn } from '../../services/insights-query.js';

export type ApiSiteInsightsAggregationResult = components['schemas']['SiteInsightsAggregationResult'];

/** The answer of aggregateSiteEvents, column by column. */
export function presentAggregationResult(columns: AnswerColumn[]): ApiSiteInsightsAggregationResult {
  return { columns: columns.map(({ column, values }) => ({ column: column as ApiSiteInsightsAggregationResult['columns'][number]['column'], values: values as ApiSiteInsightsAggregationResult['columns'][number]['values'] })) };
}
