import type { components } from '@quire/api-types';
import type { FileObject } from '../../content/index.js';
import { canSeeMemberEmail } from '../../policies/member-policy.js';
import type { ReviewView } from '../../services/change-request-review-service.js';
import type { ChangeRequestView } from '../../services/change-request-service.js';
import type { RequestedReviewerListing } from '../../stores/change-request-review-store.js';
import type { UrlSigner } from '../../storage/signed-urls.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';
import type { UserRow } from '../../stores/user-store.js';
import { presentComment, type BodyFormat } from './comment-presenter.js';
import { presentUser } from './user-presenter.js';

export type ApiChangeRequest = components['schemas']['ChangeRequest'];
type ApiRevisionFile = components['schemas']['RevisionFile'];

function parseDocument(text: string | null): ApiChangeRequest['description'] | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as ApiChangeRequest['description'];
  } catch {
    return undefined;
  }
}

/**
 * `outdated` compares the space's main revision with the one the request last caught up with; a merged
 * request is final and never outdated.
 */
export function presentChangeRequest(context: PresentContext, { changeRequest: row, creator, mainRevisionId, spaceOrganizationId, viewer, mergeability }: ChangeRequestView): ApiChangeRequest {
  const space = encodeURIComponent(row.space_id);
  const description = parseDocument(row.description);
  const ancestor = row.revision_merged_ancestor ?? row.revision_initial;
  return {
    object: 'change-request',
    id: row.id,
    number: row.number,
    status: row.status as ApiChangeRequest['status'],
    subject: row.subject,
    ...(description ? { description } : {}),
    createdBy: presentUser(context, creator, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, creator.id) }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    space: row.space_id,
    revision: row.revision_id,
    revisionInitial: row.revision_initial,
    ...(row.revision_merged_ancestor ? { revisionMergedAncestor: row.revision_merged_ancestor } : {}),
    ...(row.revision_merged ? { revisionMerged: row.revision_merged } : {}),
    comments: row.comments_count,
    outdated: row.status !== 'merged' && mainRevisionId !== ancestor,
    ...(mergeability ? { mergeability: { mergeable: mergeability.mergeable, unmetRules: mergeability.unmetRules } } : {}),
    ...(row.conversations_issues_cluster ? { conversationsIssuesCluster: row.conversations_issues_cluster } : {}),
    urls: {
      app: appUrl(context, `/o/${encodeURIComponent(spaceOrganizationId)}/s/${space}/~/changes/${row.number}`),
      location: apiUrl(context, `/spaces/${space}/change-requests/${encodeURIComponent(row.id)}`),
    },
  };
}

/** A file just added by a content batch, with a signed URL to its bytes. */
export function presentInsertedFile(signer: UrlSigner | undefined, file: FileObject): ApiRevisionFile {
  if (!signer) throw new Error('presenting a file needs the URL signer of the service context');
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: signer.sign({ hash: file.blob, filename: file.name, contentType: file.contentType }),
    size: file.size,
    ...(file.dimensions ? { dimensions: file.dimensions } : {}),
    ...(file.git ? { git: file.git } : {}),
  };
}

type ApiReview = components['schemas']['ChangeRequestReview'];
type ApiRequestedReviewer = components['schemas']['ChangeRequestRequestedReviewer'];

/** A review: outdated when the request's revision moved on since it was given. */
/** `format`: the form of the review's comment body, as the list asks for it (its written form otherwise). */
export function presentReview(context: PresentContext, spaceId: string, { review, reviewer, requester, comment, currentRevisionId, viewer }: ReviewView, format?: BodyFormat): ApiReview {
  const user = (row: UserRow) => presentUser(context, row, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, row.id) });
  return {
    object: 'change-request-review',
    id: review.id,
    status: review.status as ApiReview['status'],
    reviewer: user(reviewer),
    ...(requester ? { requestedBy: user(requester) } : {}),
    revision: review.revision_id,
    outdated: review.revision_id !== currentRevisionId,
    ...(comment ? { comment: presentComment(context, viewer, comment, format) } : {}),
    createdAt: review.created_at,
    // A review is never edited (a new submission is a new review), so it was last updated when it was given.
    updatedAt: review.created_at,
    urls: {
      location: apiUrl(context, `/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(review.change_request_id)}/reviews/${encodeURIComponent(review.id)}`),
    },
  };
}

/** A requested reviewer: always a user (requests name users), with who asked and on which revision. */
export function presentRequestedReviewer(context: PresentContext, { user, requestedBy, revisionId, requestedAt }: RequestedReviewerListing, viewer: ChangeRequestView['viewer']): ApiRequestedReviewer {
  const present = (row: UserRow) => presentUser(context, row, { withEmail: canSeeMemberEmail(viewer.membership, viewer.userId, row.id) });
  return {
    object: 'change-request-requested-reviewer',
    kind: 'user',
    user: present(user),
    requestedBy: present(requestedBy),
    revision: revisionId,
    createdAt: requestedAt,
  };
}
