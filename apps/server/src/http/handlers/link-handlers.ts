import { listBacklinks, listContentLinks, listPageLinks } from '../../services/link-service.js';
import { changeRequestContentScope, mainContentScope } from '../../services/space-content-service.js';
import { presentBacklinkList, presentContentLinkList } from '../presenters/content-link-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Links found in the content of a space or change request, and the backlinks of its pages and files. */
export function linkHandlers({ services, present }: HandlerDeps): Handlers {
  // URLs below the server's own public URL are links into the app (`in-app`).
  const options = { publicUrl: present.publicUrl };

  return {
    listSpaceLinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentContentLinkList(await listContentLinks(services, await mainContentScope(services, caller, params.spaceId), query, options)),
    }),

    listChangeRequestLinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentContentLinkList(await listContentLinks(
        services, await changeRequestContentScope(services, caller, params.spaceId, params.changeRequestId), query, options,
      )),
    }),

    listPageLinksInSpace: async ({ caller, params, query }) => ({
      status: 200,
      body: presentContentLinkList(await listPageLinks(services, await mainContentScope(services, caller, params.spaceId), params.pageId, query, options)),
    }),

    listPageLinksInChangeRequest: async ({ caller, params, query }) => ({
      status: 200,
      body: presentContentLinkList(await listPageLinks(
        services, await changeRequestContentScope(services, caller, params.spaceId, params.changeRequestId), params.pageId, query, options,
      )),
    }),

    listSpacePageBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(await listBacklinks(
        services, await mainContentScope(services, caller, params.spaceId), { kind: 'page', id: params.pageId }, query, options,
      )),
    }),

    listSpaceFileBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(await listBacklinks(
        services, await mainContentScope(services, caller, params.spaceId), { kind: 'file', id: params.fileId }, query, options,
      )),
    }),

    listChangeRequestPageBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(await listBacklinks(
        services, await changeRequestContentScope(services, caller, params.spaceId, params.changeRequestId), { kind: 'page', id: params.pageId }, query, options,
      )),
    }),

    listChangeRequestFileBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(await listBacklinks(
        services, await changeRequestContentScope(services, caller, params.spaceId, params.changeRequestId), { kind: 'file', id: params.fileId }, query, options,
      )),
    }),
  };
}
