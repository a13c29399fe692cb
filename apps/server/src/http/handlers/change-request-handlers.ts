import {
  changeRequestPdf,
  createChangeRequest,
  getChangeRequest,
  listChangeRequestsOfOrganization,
  listChangeRequestsOfSpace,
  mergeChangeRequest,
  updateChangeRequestContent,
  updateChangeRequestDetails,
  updateChangeRequestFromMain,
  type ChangeRequestPage,
} from '../../services/change-request-service.js';
import { listAnswer } from '../pagination.js';
import { presentChangeRequest, presentInsertedFile } from '../presenters/change-request-presenter.js';
import type { PresentContext } from '../presenters/context.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

function listOf(present: PresentContext, { page, viewer }: ChangeRequestPage) {
  return listAnswer(page, (listing) => presentChangeRequest(present, { ...listing, viewer }));
}

/** Change requests: their lists and lifecycle, content edits, merge into main and update from main, PDF. */
export function changeRequestHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listChangeRequestsForSpace: async ({ caller, params, query }) => ({
      status: 200,
      body: listOf(present, await listChangeRequestsOfSpace(services, caller, params.spaceId, query)),
    }),

    listChangeRequestsForOrganization: async ({ caller, params, query }) => ({
      status: 200,
      body: listOf(present, await listChangeRequestsOfOrganization(services, caller, params.organizationId, query)),
    }),

    createChangeRequest: async ({ caller, params, body }) => ({
      status: 201,
      body: presentChangeRequest(present, await createChangeRequest(services, caller, params.spaceId, body)),
    }),

    getChangeRequestById: async ({ caller, params }) => ({
      status: 200,
      body: presentChangeRequest(present, await getChangeRequest(services, caller, params.spaceId, params.changeRequestId)),
    }),

    updateChangeRequestById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentChangeRequest(present, await updateChangeRequestDetails(services, caller, params.spaceId, params.changeRequestId, body)),
    }),

    updateChangeRequestContent: async ({ caller, params, body }) => {
      const outcome = await updateChangeRequestContent(services, caller, params.spaceId, params.changeRequestId, body.changes);
      return {
        status: 200,
        body: {
          changeRequest: presentChangeRequest(present, outcome.view),
          changes: outcome.changes,
          ...(outcome.insertedFiles.length > 0 ? { insertedFiles: outcome.insertedFiles.map((file) => presentInsertedFile(services.urlSigner, file)) } : {}),
        },
      };
    },

    mergeChangeRequest: async ({ caller, params }) => ({
      status: 200,
      body: await mergeChangeRequest(services, caller, params.spaceId, params.changeRequestId),
    }),

    updateChangeRequest: async ({ caller, params }) => ({
      status: 200,
      body: await updateChangeRequestFromMain(services, caller, params.spaceId, params.changeRequestId),
    }),

    getChangeRequestPDF: async ({ caller, params, query }) => ({
      status: 200,
      body: await changeRequestPdf(services, caller, params.spaceId, params.changeRequestId, query),
    }),
  };
}
