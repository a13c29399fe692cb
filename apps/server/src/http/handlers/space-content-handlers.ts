import { getComputedDocument, getComputedRevision } from '../../services/computed-content-service.js';
import { searchSpaceContent } from '../../services/search-service.js';
import {
  getCurrentRevision,
  getFileById,
  getFileInChangeRequestById,
  getPageById,
  getPageInChangeRequestById,
  getRevisionOfChangeRequestById,
  getSpacePDF,
  listFiles,
  listFilesInChangeRequestById,
  listPages,
  listPagesInChangeRequest,
} from '../../services/space-content-service.js';
import { applyTemplateToSpace } from '../../services/template-service.js';
import { listAnswer } from '../../pagination.js';
import { presentComputedRevision, presentDocument, presentRevision, presentRevisionFile, presentRevisionPage, presentRevisionPages } from '../presenters/revision-presenter.js';
import { presentSearchResults } from '../presenters/search-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/**
 * Reading the content of a space (its main content) and of its change requests, which answer alike;
 * templates; search.
 */
export function spaceContentHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    getCurrentRevision: async ({ principal, params, query }) => ({
      status: 200,
      body: presentRevision(present, await getCurrentRevision(services, principal, params.spaceId), query),
    }),

    getRevisionOfChangeRequestById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevision(present, await getRevisionOfChangeRequestById(services, caller, params.spaceId, params.changeRequestId), query),
    }),

    getComputedDocument: async ({ caller, params, body }) => ({
      status: 200,
      body: presentDocument(await getComputedDocument(services, caller, params.spaceId, body)),
    }),

    getComputedRevision: async ({ caller, params, body }) => ({
      status: 200,
      body: presentComputedRevision(present, await getComputedRevision(services, caller, params.spaceId, body)),
    }),

    getSpacePDF: async ({ caller, params, query }) => ({
      status: 200,
      body: await getSpacePDF(services, caller, params.spaceId, query),
    }),

    listPages: async ({ principal, params, query }) => ({
      status: 200,
      body: { pages: presentRevisionPages(present, await listPages(services, principal, params.spaceId), query) },
    }),

    listPagesInChangeRequest: async ({ caller, params, query }) => ({
      status: 200,
      body: { pages: presentRevisionPages(present, await listPagesInChangeRequest(services, caller, params.spaceId, params.changeRequestId), query) },
    }),

    getPageById: async ({ principal, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await getPageById(services, principal, params.spaceId, params.pageId, query), query),
    }),

    getPageInChangeRequestById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await getPageInChangeRequestById(services, caller, params.spaceId, params.changeRequestId, params.pageId, query), query),
    }),

    listFiles: async ({ principal, params, query }) => {
      const { view, page } = await listFiles(services, principal, params.spaceId, query);
      return { status: 200, body: listAnswer(page, (file) => presentRevisionFile(view.signer, file, query)) };
    },

    listFilesInChangeRequestById: async ({ caller, params, query }) => {
      const { view, page } = await listFilesInChangeRequestById(services, caller, params.spaceId, params.changeRequestId, query);
      return { status: 200, body: listAnswer(page, (file) => presentRevisionFile(view.signer, file, query)) };
    },

    getFileById: async ({ principal, params, query }) => {
      const { view, file } = await getFileById(services, principal, params.spaceId, params.fileId);
      return { status: 200, body: presentRevisionFile(view.signer, file, query) };
    },

    getFileInChangeRequestById: async ({ caller, params, query }) => {
      const { view, file } = await getFileInChangeRequestById(services, caller, params.spaceId, params.changeRequestId, params.fileId);
      return { status: 200, body: presentRevisionFile(view.signer, file, query) };
    },

    applyTemplateToSpace: async ({ caller, params, body }) => {
      await applyTemplateToSpace(services, caller, params.spaceId, body);
      return { status: 201 };
    },

    searchSpaceContent: async ({ principal, params, query }) => ({
      status: 200,
      body: presentSearchResults(present, await searchSpaceContent(services, principal, params.spaceId, query)),
    }),
  };
}
