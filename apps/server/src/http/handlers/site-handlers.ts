import { listAnswer } from '../../pagination.js';
import { createSite, deleteSiteById, getSiteById, listSites, publishSite, unpublishSite, updateSiteById } from '../../services/site-service.js';
import { presentSite } from '../presenters/site-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Docs sites and their publication; their parts have their own site-*-handlers.ts. */
export function siteHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSites: async ({ caller, params, query }) => {
      const page = await listSites(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (site) => presentSite(present, site)) };
    },
    createSite: async ({ caller, params, body }) => ({ status: 201, body: presentSite(present, await createSite(services, caller, params.organizationId, body ?? {})) }),
    getSiteById: async ({ caller, params }) => ({ status: 200, body: presentSite(present, await getSiteById(services, caller, params.organizationId, params.siteId)) }),
    updateSiteById: async ({ caller, params, body }) => ({ status: 200, body: presentSite(present, await updateSiteById(services, caller, params.organizationId, params.siteId, body)) }),
    deleteSiteById: async ({ caller, params }) => {
      await deleteSiteById(services, caller, params.organizationId, params.siteId);
      return { status: 204 };
    },
    publishSite: async ({ caller, params }) => ({ status: 200, body: presentSite(present, await publishSite(services, caller, params.organizationId, params.siteId)) }),
    unpublishSite: async ({ caller, params }) => ({ status: 200, body: presentSite(present, await unpublishSite(services, caller, params.organizationId, params.siteId)) }),
  };
}
