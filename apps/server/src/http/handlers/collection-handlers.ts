import {
  createCollection,
  deleteCollectionById,
  getCollectionById,
  listCollectionsInOrganizationById,
  listSpacesInCollectionById,
  moveCollection,
  transferCollection,
  updateCollectionById,
} from '../../services/collection-service.js';
import { listAnswer } from '../../pagination.js';
import { presentCollection } from '../presenters/collection-presenter.js';
import { presentSpace } from '../presenters/space-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Collections: their lists, settings, place in the organization and the spaces they hold. */
export function collectionHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listCollectionsInOrganizationById: async ({ caller, params, query }) => {
      const page = await listCollectionsInOrganizationById(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentCollection(present, row)) };
    },

    createCollection: async ({ caller, params, body }) => {
      const created = await createCollection(services, caller, params.organizationId, body);
      return { status: 201, body: presentCollection(present, created) };
    },

    getCollectionById: async ({ caller, params }) => ({
      status: 200,
      body: presentCollection(present, await getCollectionById(services, caller, params.collectionId)),
    }),

    updateCollectionById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentCollection(present, await updateCollectionById(services, caller, params.collectionId, body)),
    }),

    deleteCollectionById: async ({ caller, params }) => {
      await deleteCollectionById(services, caller, params.collectionId);
      return { status: 204 };
    },

    listSpacesInCollectionById: async ({ caller, params, query }) => {
      const page = await listSpacesInCollectionById(services, caller, params.collectionId, query);
      return { status: 200, body: listAnswer(page, (row) => presentSpace(present, row)) };
    },

    moveCollection: async ({ caller, params, body }) => ({
      status: 200,
      body: presentCollection(present, await moveCollection(services, caller, params.collectionId, body)),
    }),

    transferCollection: async ({ caller, params, body }) => ({
      status: 200,
      body: presentCollection(present, await transferCollection(services, caller, params.collectionId, body)),
    }),
  };
}
