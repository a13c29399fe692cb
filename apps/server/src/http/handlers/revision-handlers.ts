import { listAnswer } from '../../pagination.js';
import {
  getDocumentById,
  getFileInRevisionById,
  getPageByPath,
  getPageDocumentInRevisionById,
  getPageInChangeRequestByPath,
  getPageInRevisionById,
  getPageInRevisionByPath,
  getRevisionById,
  listFilesInRevisionById,
  listPagesInRevisionById,
} from '../../services/revision-service.js';
import { getChangeRequestChanges, getRevisionSemanticChanges } from '../../services/semantic-changes-service.js';
import { presentSemanticChanges } from '../presenters/semantic-changes-presenter.js';
import { presentDocument, presentRevision, presentRevisionFile, presentRevisionPage, presentRevisionPages } from '../presenters/revision-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Reading any revision of a space by its id, what it changed, pages by their path, and documents. */
export function revisionHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getRevisionById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevision(present, await getRevisionById(services, caller, params.spaceId, params.revisionId), query),
    }),

    listPagesInRevisionById: async ({ caller, params, query }) => ({
      status: 200,
      body: { pages: presentRevisionPages(present, await listPagesInRevisionById(services, caller, params.spaceId, params.revisionId), query) },
    }),

    listFilesInRevisionById: async ({ caller, params, query }) => {
      const { view, page } = await listFilesInRevisionById(services, caller, params.spaceId, params.revisionId, query);
      return { status: 200, body: listAnswer(page, (file) => presentRevisionFile(view.signer, file, query)) };
    },

    getFileInRevisionById: async ({ caller, params, query }) => {
      const { view, file } = await getFileInRevisionById(services, caller, params.spaceId, params.revisionId, params.fileId);
      return { status: 200, body: presentRevisionFile(view.signer, file, query) };
    },

    getPageInRevisionById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await getPageInRevisionById(services, caller, params.spaceId, params.revisionId, params.pageId, query), query),
    }),

    getPageDocumentInRevisionById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentDocument(await getPageDocumentInRevisionById(services, caller, params.spaceId, params.revisionId, params.pageId, query)),
    }),

    getPageInRevisionByPath: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await getPageInRevisionByPath(services, caller, params.spaceId, params.revisionId, params.pagePath, query), query),
    }),

    getPageByPath: async ({ principal, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await getPageByPath(services, principal, params.spaceId, params.pagePath, query), query),
    }),

    getPageInChangeRequestByPath: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await getPageInChangeRequestByPath(services, caller, params.spaceId, params.changeRequestId, params.pagePath, query), query),
    }),

    getRevisionSemanticChanges: async ({ caller, params, query }) => ({
      status: 200,
      body: presentSemanticChanges(present, await getRevisionSemanticChanges(services, caller, params.spaceId, params.revisionId, query), query),
    }),

    getChangeRequestChanges: async ({ caller, params, query }) => ({
      status: 200,
      body: presentSemanticChanges(present, await getChangeRequestChanges(services, caller, params.spaceId, params.changeRequestId, query), {}),
    }),

    getDocumentById: async ({ caller, params }) => ({
      status: 200,
      body: presentDocument(await getDocumentById(services, caller, params.spaceId, params.documentId)),
    }),
  };
}
