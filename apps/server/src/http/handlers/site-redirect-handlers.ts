import { listAnswer } from '../../pagination.js';
import { createSiteRedirect, deleteSiteRedirectById, getSiteRedirectBySource, listSiteRedirects, updateSiteRedirectById } from '../../services/site-redirect-service.js';
import { presentSiteRedirect, redirectTargetAddress } from '../presenters/site-redirect-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The redirects of docs sites. */
export function siteRedirectHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSiteRedirects: async ({ caller, params, query }) => ({
      status: 200,
      body: listAnswer(await listSiteRedirects(services, caller, params.organizationId, params.siteId, query), presentSiteRedirect),
    }),
    createSiteRedirect: async ({ caller, params, body }) => ({
      status: 201,
      body: presentSiteRedirect(await createSiteRedirect(services, caller, params.organizationId, params.siteId, body)),
    }),
    getSiteRedirectBySource: async ({ caller, params, query }) => {
      const found = await getSiteRedirectBySource(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: { redirect: presentSiteRedirect(found.redirect), target: redirectTargetAddress(present, found.site, found.destination, found.shareKey) } };
    },
    updateSiteRedirectById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentSiteRedirect(await updateSiteRedirectById(services, caller, params.organizationId, params.siteId, params.siteRedirectId, body)),
    }),
    deleteSiteRedirectById: async ({ caller, params }) => {
      const deleted = await deleteSiteRedirectById(services, caller, params.organizationId, params.siteId, params.siteRedirectId);
      return { status: deleted ? 205 : 204 };
    },
  };
}
