import {
  createSpace,
  deleteSpaceById,
  duplicateSpace,
  getSpaceById,
  listSpacesInOrganizationById,
  moveSpace,
  restoreSpace,
  transferSpace,
  updateSpaceById,
} from '../../services/space-service.js';
import { sharedSiteSpaceOfSpace } from '../../services/site-share-link-service.js';
import { publishedSpaceUrl } from '../presenters/site-space-presenter.js';
import { listAnswer } from '../../pagination.js';
import { presentSpace } from '../presenters/space-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Spaces: their lists, settings, deletion and restoration, copies and place in the organization. */
export function spaceHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listSpacesInOrganizationById: async ({ caller, params, query }) => {
      const page = await listSpacesInOrganizationById(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentSpace(present, row)) };
    },

    createSpace: async ({ caller, params, body }) => ({
      status: 201,
      body: presentSpace(present, await createSpace(services, caller, params.organizationId, body)),
    }),

    // `shareKey` only resolves published URLs of share-link sites; no site publishes a space yet, so the
    // answer is the same with or without it.
    getSpaceById: async ({ principal, params, query }) => {
      const body = presentSpace(present, await getSpaceById(services, principal, params.spaceId));
      // With the key of a share link of a site that publishes the space, its address on that site, key included.
      const shared = query.shareKey === undefined ? undefined : await sharedSiteSpaceOfSpace(services, params.spaceId, query.shareKey);
      return { status: 200, body: shared ? { ...body, urls: { ...body.urls, published: publishedSpaceUrl(present, shared) } } : body };
    },

    updateSpaceById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentSpace(present, await updateSpaceById(services, caller, params.spaceId, body)),
    }),

    deleteSpaceById: async ({ caller, params }) => {
      await deleteSpaceById(services, caller, params.spaceId);
      return { status: 204 };
    },

    restoreSpace: async ({ caller, params }) => ({
      status: 200,
      body: presentSpace(present, await restoreSpace(services, caller, params.spaceId)),
    }),

    duplicateSpace: async ({ caller, params }) => ({
      status: 201,
      body: presentSpace(present, await duplicateSpace(services, caller, params.spaceId)),
    }),

    moveSpace: async ({ caller, params, body }) => ({
      status: 200,
      body: presentSpace(present, await moveSpace(services, caller, params.spaceId, body)),
    }),

    transferSpace: async ({ caller, params, body }) => ({
      status: 200,
      body: presentSpace(present, await transferSpace(services, caller, params.spaceId, body)),
    }),
  };
}
