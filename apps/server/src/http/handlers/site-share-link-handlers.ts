import { listAnswer } from '../../pagination.js';
import { createSiteShareLink, deleteSiteShareLinkById, listSiteShareLinks, updateSiteShareLinkById } from '../../services/site-share-link-service.js';
import { presentShareLink } from '../presenters/site-share-link-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The share links of docs sites. */
export function siteShareLinkHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSiteShareLinks: async ({ caller, params, query }) => {
      const page = await listSiteShareLinks(services, caller, params.organizationId, params.siteId, query);
      return { status: 200, body: listAnswer(page, (record) => presentShareLink(present, page.site, record)) };
    },
    createSiteShareLink: async ({ caller, params, body }) => {
      const created = await createSiteShareLink(services, caller, params.organizationId, params.siteId, body);
      return { status: 201, body: presentShareLink(present, created.site, created) };
    },
    updateSiteShareLinkById: async ({ caller, params, body }) => {
      const updated = await updateSiteShareLinkById(services, caller, params.organizationId, params.siteId, params.shareLinkId, body);
      return { status: 200, body: presentShareLink(present, updated.site, updated) };
    },
    deleteSiteShareLinkById: async ({ caller, params }) => {
      await deleteSiteShareLinkById(services, caller, params.organizationId, params.siteId, params.shareLinkId);
      return { status: 204 };
    },
  };
}
