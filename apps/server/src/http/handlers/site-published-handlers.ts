import { getPublishedContentSite } from '../../services/site-published-service.js';
import { presentPublishedContentSite } from '../presenters/site-published-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The published structure of a docs site, as its readers reach it. */
export function sitePublishedHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getPublishedContentSite: async ({ principal, params, query }) => ({
      status: 200,
      body: presentPublishedContentSite(present, await getPublishedContentSite(services, principal, params.organizationId, params.siteId, query.shareKey)),
    }),
  };
}
