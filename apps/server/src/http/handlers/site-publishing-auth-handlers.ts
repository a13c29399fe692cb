import { getSitePublishingAuthById, regenerateSitePublishingAuthById, updateSitePublishingAuthById } from '../../services/site-publishing-auth-service.js';
import { presentSitePublishingAuth } from '../presenters/site-publishing-auth-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The visitor authentication of docs sites (the public API's site-publishing-auth family). */
export function sitePublishingAuthHandlers({ services }: HandlerDeps): Handlers {
  return {
    getSitePublishingAuthById: async ({ caller, params }) => ({
      status: 200,
      body: presentSitePublishingAuth(await getSitePublishingAuthById(services, caller, params.organizationId, params.siteId)),
    }),
    updateSitePublishingAuthById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentSitePublishingAuth(await updateSitePublishingAuthById(services, caller, params.organizationId, params.siteId, body)),
    }),
    regenerateSitePublishingAuthById: async ({ caller, params }) => ({
      status: 200,
      body: presentSitePublishingAuth(await regenerateSitePublishingAuthById(services, caller, params.organizationId, params.siteId)),
    }),
  };
}
