import { searchSiteContent } from '../../services/site-search-service.js';
import { presentSiteSearchResults } from '../presenters/search-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Search of docs sites. */
export function siteSearchHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    searchSiteContent: async ({ caller, params, query, body }) => ({
      status: 200,
      body: presentSiteSearchResults(present, await searchSiteContent(services, caller, params.organizationId, params.siteId, query, body)),
    }),
  };
}
