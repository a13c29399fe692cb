import {
  listChangeRequestFileBacklinks,
  listChangeRequestLinks,
  listChangeRequestPageBacklinks,
  listPageLinksInChangeRequest,
  listPageLinksInSpace,
  listSpaceFileBacklinks,
  listSpaceLinks,
  listSpacePageBacklinks,
} from '../../services/link-service.js';
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
      body: presentContentLinkList(present, await listSpaceLinks(services, caller, params.spaceId, query, options)),
    }),

    listChangeRequestLinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentContentLinkList(present, await listChangeRequestLinks(services, caller, params.spaceId, params.changeRequestId, query, options)),
    }),

    listPageLinksInSpace: async ({ caller, params, query }) => ({
      status: 200,
      body: presentContentLinkList(present, await listPageLinksInSpace(services, caller, params.spaceId, params.pageId, query, options)),
    }),

    listPageLinksInChangeRequest: async ({ caller, params, query }) => ({
      status: 200,
      body: presentContentLinkList(present, await listPageLinksInChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.pageId, query, options)),
    }),

    listSpacePageBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(present, await listSpacePageBacklinks(services, caller, params.spaceId, params.pageId, query, options)),
    }),

    listSpaceFileBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(present, await listSpaceFileBacklinks(services, caller, params.spaceId, params.fileId, query, options)),
    }),

    listChangeRequestPageBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(present, await listChangeRequestPageBacklinks(services, caller, params.spaceId, params.changeRequestId, params.pageId, query, options)),
    }),

    listChangeRequestFileBacklinks: async ({ caller, params, query }) => ({
      status: 200,
      body: presentBacklinkList(present, await listChangeRequestFileBacklinks(services, caller, params.spaceId, params.changeRequestId, params.fileId, query, options)),
    }),
  };
}
