import { listAnswer } from '../../pagination.js';
import { addSpaceToSite, deleteSiteSpaceById, listSiteSpaces, moveSiteSpace, updateSiteSpaceById, type SiteSpaceView } from '../../services/site-space-service.js';
import type { PresentContext } from '../presenters/context.js';
import { presentSiteSpace } from '../presenters/site-space-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

function siteSpaceBody(present: PresentContext, view: SiteSpaceView) {
  return presentSiteSpace(present, view.site, view.sections, view.record);
}

/** The site spaces of docs sites. */
export function siteSpaceHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSiteSpaces: async ({ caller, params, query }) => {
      const page = await listSiteSpaces(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (record) => presentSiteSpace(present, page.site, page.sections, record, page.shareKey)) };
    },
    addSpaceToSite: async ({ caller, params, body }) => ({ status: 201, body: siteSpaceBody(present, await addSpaceToSite(services, caller, params.organizationId, params.siteId, body)) }),
    updateSiteSpaceById: async ({ caller, params, body }) => ({
      status: 200,
      body: siteSpaceBody(present, await updateSiteSpaceById(services, caller, params.organizationId, params.siteId, params.siteSpaceId, body)),
    }),
    deleteSiteSpaceById: async ({ caller, params }) => {
      await deleteSiteSpaceById(services, caller, params.organizationId, params.siteId, params.siteSpaceId);
      return { status: 204 };
    },
    moveSiteSpace: async ({ caller, params, body }) => ({
      status: 200,
      body: siteSpaceBody(present, await moveSiteSpace(services, caller, params.organizationId, params.siteId, params.siteSpaceId, body)),
    }),
  };
}
