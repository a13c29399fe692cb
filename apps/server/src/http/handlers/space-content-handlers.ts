import { searchSpaceContent } from '../../services/search-service.js';
import {
  changeRequestContentScope,
  listRevisionFiles,
  mainContentScope,
  readFile,
  readPage,
  readRevision,
} from '../../services/space-content-service.js';
import { applyTemplate } from '../../services/template-service.js';
import { listAnswer } from '../pagination.js';
import { presentRevision, presentRevisionFile, presentRevisionPage, presentRevisionPages } from '../presenters/revision-presenter.js';
import { presentSearchResults } from '../presenters/search-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/**
 * Reading the content of a space (its main content) and of its change requests, which answer alike;
 * templates; search.
 */
export function spaceContentHandlers({ services, present }: HandlerDeps): Handlers {
  const main = (caller: Parameters<typeof mainContentScope>[1], spaceId: string) => mainContentScope(services, caller, spaceId);
  const request = (caller: Parameters<typeof mainContentScope>[1], spaceId: string, changeRequestId: string) =>
    changeRequestContentScope(services, caller, spaceId, changeRequestId);

  return {
    getCurrentRevision: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevision(present, await readRevision(services, await main(caller, params.spaceId)), query),
    }),

    getRevisionOfChangeRequestById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevision(present, await readRevision(services, await request(caller, params.spaceId, params.changeRequestId)), query),
    }),

    listPages: async ({ caller, params, query }) => ({
      status: 200,
      body: { pages: presentRevisionPages(present, await readRevision(services, await main(caller, params.spaceId)), query) },
    }),

    listPagesInChangeRequest: async ({ caller, params, query }) => ({
      status: 200,
      body: { pages: presentRevisionPages(present, await readRevision(services, await request(caller, params.spaceId, params.changeRequestId)), query) },
    }),

    getPageById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await readPage(services, await main(caller, params.spaceId), params.pageId, query), query),
    }),

    getPageInChangeRequestById: async ({ caller, params, query }) => ({
      status: 200,
      body: presentRevisionPage(present, await readPage(services, await request(caller, params.spaceId, params.changeRequestId), params.pageId, query), query),
    }),

    listFiles: async ({ caller, params, query }) => {
      const { view, page } = await listRevisionFiles(services, await main(caller, params.spaceId), query);
      return { status: 200, body: listAnswer(page, (file) => presentRevisionFile(view.signer, file, query)) };
    },

    listFilesInChangeRequestById: async ({ caller, params, query }) => {
      const { view, page } = await listRevisionFiles(services, await request(caller, params.spaceId, params.changeRequestId), query);
      return { status: 200, body: listAnswer(page, (file) => presentRevisionFile(view.signer, file, query)) };
    },

    getFileById: async ({ caller, params, query }) => {
      const { view, file } = await readFile(services, await main(caller, params.spaceId), params.fileId);
      return { status: 200, body: presentRevisionFile(view.signer, file, query) };
    },

    getFileInChangeRequestById: async ({ caller, params, query }) => {
      const { view, file } = await readFile(services, await request(caller, params.spaceId, params.changeRequestId), params.fileId);
      return { status: 200, body: presentRevisionFile(view.signer, file, query) };
    },

    applyTemplateToSpace: async ({ caller, params, body }) => {
      await applyTemplate(services, caller, params.spaceId, body);
      return { status: 201 };
    },

    searchSpaceContent: async ({ caller, params, query }) => ({
      status: 200,
      body: presentSearchResults(present, await searchSpaceContent(services, caller, params.spaceId, query)),
    }),
  };
}
