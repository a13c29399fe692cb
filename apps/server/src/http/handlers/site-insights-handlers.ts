import { aggregateSiteEvents, trackEventsInSiteById } from '../../services/site-insights-service.js';
import { presentAggregationResult } from '../presenters/site-insights-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Site insights: visitors' events recorded and aggregated. */
export function siteInsightsHandlers({ services }: HandlerDeps): Handlers {
  return {
    trackEventsInSiteById: async ({ caller, params, body }) => {
      await trackEventsInSiteById(services, caller, params.organizationId, params.siteId, body);
      return { status: 204 };
    },
    aggregateSiteEvents: async ({ caller, params, body }) => ({
      status: 200,
      body: presentAggregationResult(await aggregateSiteEvents(services, caller, params.organizationId, params.siteId, body)),
    }),
  };
}
