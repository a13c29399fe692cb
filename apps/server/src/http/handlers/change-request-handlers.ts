import { updateChangeRequestContent } from '../../services/change-request-content.js';
import { mergeChangeRequest, updateChangeRequest } from '../../services/change-request-merge.js';
import { getChangeRequestPDF } from '../../services/change-request-pdf.js';
import {
  createChangeRequest,
  getChangeRequestById,
  listChangeRequestsForOrganization,
  listChangeRequestsForSpace,
  updateChangeRequestById,
  type ChangeRequestPage,
} from '../../services/change-request-service.js';
import {
  getChangeRequestReviewById,
  getRequestedReviewersByChangeRequestId,
  getReviewsByChangeRequestId,
  removeRequestedReviewerFromChangeRequest,
  requestReviewersForChangeRequest,
  submitChangeRequestReview,
} from '../../services/change-request-review-service.js';
import { listAnswer } from '../../pagination.js';
import { presentChangeRequest, presentInsertedFile, presentRequestedReviewer, presentReview } from '../presenters/change-request-presenter.js';
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
      body: listOf(present, await listChangeRequestsForSpace(services, caller, params.spaceId, query)),
    }),

    listChangeRequestsForOrganization: async ({ caller, params, query }) => ({
      status: 200,
      body: listOf(present, await listChangeRequestsForOrganization(services, caller, params.organizationId, query)),
    }),

    createChangeRequest: async ({ caller, params, body }) => ({
      status: 201,
      body: presentChangeRequest(present, await createChangeRequest(services, caller, params.spaceId, body)),
    }),

    getChangeRequestById: async ({ caller, params }) => ({
      status: 200,
      body: presentChangeRequest(present, await getChangeRequestById(services, caller, params.spaceId, params.changeRequestId)),
    }),

    updateChangeRequestById: async ({ caller, params, body }) => ({
      status: 200,
      body: presentChangeRequest(present, await updateChangeRequestById(services, caller, params.spaceId, params.changeRequestId, body)),
    }),

    updateChangeRequestContent: async ({ caller, params, body }) => {
      const outcome = await updateChangeRequestContent(services, caller, params.spaceId, params.changeRequestId, body.changes, body.revision);
      return {
        status: 200,
        body: {
          changeRequest: presentChangeRequest(present, outcome.view),
          changes: outcome.changes,
          ...(outcome.reusableChanges.length > 0 ? { reusableContents: outcome.reusableChanges } : {}),
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
      body: await updateChangeRequest(services, caller, params.spaceId, params.changeRequestId),
    }),

    getRequestedReviewersByChangeRequestId: async ({ caller, params, query }) => {
      const { page, viewer } = await getRequestedReviewersByChangeRequestId(services, caller, params.spaceId, params.changeRequestId, query);
      return { status: 200, body: listAnswer(page, (listing) => presentRequestedReviewer(present, listing, viewer)) };
    },

    requestReviewersForChangeRequest: async ({ caller, params, body }) => {
      const { requests, viewer } = await requestReviewersForChangeRequest(services, caller, params.spaceId, params.changeRequestId, body);
      return { status: 200, body: { users: requests.map((listing) => presentRequestedReviewer(present, listing, viewer)) } };
    },

    removeRequestedReviewerFromChangeRequest: async ({ caller, params }) => {
      await removeRequestedReviewerFromChangeRequest(services, caller, params.spaceId, params.changeRequestId, params.userId);
      return { status: 204 };
    },

    getReviewsByChangeRequestId: async ({ caller, params, query }) => {
      const { page } = await getReviewsByChangeRequestId(services, caller, params.spaceId, params.changeRequestId, query);
      return { status: 200, body: listAnswer(page, (view) => presentReview(present, params.spaceId, view, query.format)) };
    },

    submitChangeRequestReview: async ({ caller, params, body }) => ({
      status: 201,
      body: presentReview(present, params.spaceId, await submitChangeRequestReview(services, caller, params.spaceId, params.changeRequestId, body)),
    }),

    getChangeRequestReviewById: async ({ caller, params }) => ({
      status: 200,
      body: presentReview(present, params.spaceId, await getChangeRequestReviewById(services, caller, params.spaceId, params.changeRequestId, params.reviewId)),
    }),

    getChangeRequestPDF: async ({ caller, params, query }) => ({
      status: 200,
      body: await getChangeRequestPDF(services, caller, params.spaceId, params.changeRequestId, query),
    }),
  };
}
