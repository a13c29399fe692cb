import { getSiteAdaptiveSchema, listSiteAdaptiveTemplateConditions, updateSiteAdaptiveSchema } from '../../services/site-adaptive-schema-service.js';
import { presentAdaptiveSchema } from '../presenters/site-adaptive-schema-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The adaptive schema of docs sites and the condition templates made from it. */
export function siteAdaptiveSchemaHandlers({ services }: HandlerDeps): Handlers {
  return {
    getSiteAdaptiveSchema: async ({ caller, params }) => ({
      status: 200,
      body: presentAdaptiveSchema(await getSiteAdaptiveSchema(services, caller, params.organizationId, params.siteId)),
    }),
    updateSiteAdaptiveSchema: async ({ caller, params, body }) => ({
      status: 200,
      body: presentAdaptiveSchema(await updateSiteAdaptiveSchema(services, caller, params.organizationId, params.siteId, body)),
    }),
    listSiteAdaptiveTemplateConditions: async ({ caller, params }) => ({
      status: 200,
      body: { items: await listSiteAdaptiveTemplateConditions(services, caller, params.organizationId, params.siteId) },
    }),
  };
}
