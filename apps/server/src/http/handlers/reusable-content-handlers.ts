import {
  getReusableContentById,
  getReusableContentDocumentInRevisionById,
  getReusableContentInChangeRequestById,
  getReusableContentInRevisionById,
} from '../../services/reusable-content-service.js';
import { presentReusableContent } from '../presenters/reusable-content-presenter.js';
import { presentDocument } from '../presenters/revision-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Reading the reusable contents of the main content, a change request or any revision of a space. */
export function reusableContentHandlers({ services }: HandlerDeps): Handlers {
  return {
    getReusableContentById: async ({ principal, params, query }) => ({
      status: 200,
      body: presentReusableContent(await getReusableContentById(services, principal, params.spaceId, params.reusableContentId), query),
    }),

    getReusableContentInRevisionById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentReusableContent(await getReusableContentInRevisionById(services, caller, params.spaceId, params.revisionId, params.reusableContentId), query),
    }),

    getReusableContentDocumentInRevisionById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentDocument(await getReusableContentDocumentInRevisionById(services, caller, params.spaceId, params.revisionId, params.reusableContentId, query)),
    }),

    getReusableContentInChangeRequestById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentReusableContent(await getReusableContentInChangeRequestById(services, caller, params.spaceId, params.changeRequestId, params.reusableContentId), query),
    }),
  };
}
