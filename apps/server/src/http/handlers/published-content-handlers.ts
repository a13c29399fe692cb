import { getPublishedContentByUrl } from '../../services/published-content-service.js';
import { deleteSiteVisitorAuth, getSiteVisitorAuth, updateSiteVisitorAuth } from '../../services/site-visitor-auth-service.js';
import { presentPublishedContent, presentSiteVisitorAuth } from '../presenters/published-content-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** What readers of published sites need: resolving an address for a visitor, and visitor authentication. */
export function publishedContentHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getPublishedContentByUrl: async ({ query, signedInCaller }) => ({
      status: 200,
      body: presentPublishedContent(await getPublishedContentByUrl(services, {
        url: query.url,
        ...(query.shareKey !== undefined ? { shareKey: query.shareKey } : {}),
        ...(query.visitorAuthToken !== undefined ? { visitorAuthToken: query.visitorAuthToken } : {}),
        ...(signedInCaller ? { reader: signedInCaller } : {}),
      }, { publicUrl: present.publicUrl })),
    }),

    getSiteVisitorAuth: async ({ caller, params }) => ({
      status: 200,
      body: presentSiteVisitorAuth(await getSiteVisitorAuth(services, caller, params.organizationId, params.siteId)),
    }),

    updateSiteVisitorAuth: async ({ caller, params, body }) => ({
      status: 200,
      body: presentSiteVisitorAuth(await updateSiteVisitorAuth(services, caller, params.organizationId, params.siteId, body)),
    }),

    deleteSiteVisitorAuth: async ({ caller, params }) => {
      await deleteSiteVisitorAuth(services, caller, params.organizationId, params.siteId);
      return { status: 204 };
    },
  };
}
