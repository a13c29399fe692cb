import { getSitePublishingPreviewById } from '../../services/site-preview-service.js';
import { presentSitePreview } from '../presenters/site-preview-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Previews of docs sites. */
export function sitePreviewHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getSitePublishingPreviewById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentSitePreview(present, await getSitePublishingPreviewById(services, caller, params.organizationId, params.siteId, query)),
    }),
  };
}
