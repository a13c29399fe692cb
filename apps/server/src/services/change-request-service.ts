import type { JSONDocument } from '@quire/api-types';
import type { Db } from '../db/index.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { newId, nowIso } from '../ids.js';
import { membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import {
  addChangeRequestContributor,
  CHANGE_REQUEST_ORDER_KEY_LENGTH,
  findChangeRequestInSpace,
  insertChangeRequest,
  listChangeRequests,
  lockChangeRequest,
  updateChangeRequestRow,
  type ChangeRequestFilters,
  type ChangeRequestListing,
  type ChangeRequestRow,
} from '../stores/change-request-store.js';
import { nextCounterValue } from '../stores/counter-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { insertRevision } from '../stores/revision-store.js';
import { adjustSpaceCounters, type SpaceCounterChanges, type SpaceRow } from '../stores/space-store.js';
import { findUserById } from '../stores/user-store.js';
import type { MergeVerdict } from '../policies/merge-rule-policy.js';
import type { Caller } from './caller.js';
import { judgeChangeRequest } from './change-request-rules.js';
import { checkClusterLink } from './conversation-analysis.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { getOrganizationById } from './organization-service.js';
import { assertSpacePermission, requireSpace, type SpaceAccess } from './space-access.js';

/*
 * Change requests: proposed edits to a space's content, made on revisions of their own and merged into the
 * space's main content with a three-way merge (content/merge.ts). This module holds their lifecycle and
 * lists, and what the other change request modules share: loading a request, its API view, the refusals
 * and the revisions they write. Content edits are in change-request-content.ts, merge and update from main
 * in change-request-merge.ts, the PDF in change-request-pdf.ts. Writes that rest on slow work plan it
 * before their transaction (plan-then-write.ts). Locks are always taken change request first, then space,
 * so concurrent writes cannot deadlock.
 */

export type ChangeRequestStatus = 'draft' | 'open' | 'archived' | 'merged';

/** Who is looking at change requests: decides whether creators' e-mail addresses are shown. */
export interface ChangeRequestViewer {
  userId: string;
  membership: OrganizationMembership | undefined;
}

/** A change request with everything its API object needs. */
export interface ChangeRequestView extends ChangeRequestListing {
  viewer: ChangeRequestViewer;
  /** The merge rules' verdict for the viewer; answers about one request that is not merged carry it, lists do not. */
  mergeability?: MergeVerdict;
}

export interface ChangeRequestAccess {
  space: SpaceRow;
  access: SpaceAccess;
  changeRequest: ChangeRequestRow;
}

export interface RequireChangeRequestOptions {
  /** `edit`: also answer 403 unless the caller has the space's `edit` permission (a locked space refuses it). */
  need?: 'view' | 'edit';
}

/**
 * Loads a change request of a space the caller can see, found by its id or its number in the space: 404
 * for a missing or invisible space (see `requireSpace`) and for a request that is not in that space. For
 * every operation on a change request or its content (content reads, comments...).
 */
export async function requireChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  changeRequestIdOrNumber: string,
  options: RequireChangeRequestOptions = {},
): Promise<ChangeRequestAccess> {
  const access = await requireSpace(context, caller, spaceId);
  const changeRequest = await findChangeRequestInSpace(context.db, access.space.id, changeRequestIdOrNumber);
  if (!changeRequest) throw new NotFoundError('No change request of this space matches this id or number');
  if (options.need === 'edit') assertSpacePermission(access, 'edit');
  return { space: access.space, access, changeRequest };
}

function viewerOf(caller: Caller, membership: OrganizationMembership | undefined): ChangeRequestViewer {
  return { userId: caller.user.id, membership };
}

/** The request with what its API object shows the caller. */
export async function changeRequestView(context: ServiceContext, caller: Caller, found: { access: SpaceAccess; changeRequest: ChangeRequestRow }, mainRevisionId?: string): Promise<ChangeRequestView> {
  const creator = found.changeRequest.created_by === caller.user.id ? caller.user : await findUserById(context.db, found.changeRequest.created_by);
  if (!creator) throw new Error(`change request ${found.changeRequest.id} names a missing creator`);
  const main = mainRevisionId ?? found.access.space.revision_id;
  return {
    changeRequest: found.changeRequest,
    creator,
    mainRevisionId: main,
    spaceOrganizationId: found.access.space.organization_id,
    viewer: viewerOf(caller, found.access.membership),
    ...(found.changeRequest.status !== 'merged' ? { mergeability: await judgeChangeRequest(context, caller, found.access.space, found.changeRequest, main) } : {}),
  };
}

/** What the space's `changeRequestsOpen` and `changeRequestsDraft` count of a request in this status. */
function statusCounters(status: string): Required<Pick<SpaceCounterChanges, 'changeRequestsOpen' | 'changeRequestsDraft'>> {
  return { changeRequestsOpen: status === 'open' ? 1 : 0, changeRequestsDraft: status === 'draft' ? 1 : 0 };
}

/** How the space's counters move when a request goes from one status to another. */
export function statusCounterChange(from: string, to: string): SpaceCounterChanges {
  const before = statusCounters(from);
  const after = statusCounters(to);
  return {
    changeRequestsOpen: after.changeRequestsOpen - before.changeRequestsOpen,
    changeRequestsDraft: after.changeRequestsDraft - before.changeRequestsDraft,
  };
}

export function refuseIfMerged(changeRequest: ChangeRequestRow): void {
  if (changeRequest.status === 'merged') throw new ConflictError(`Change request #${changeRequest.number} is merged and can no longer be changed`);
}

/** A locked row that vanished between the read and the lock: its space was purged meanwhile. */
export function changeRequestGone(): NotFoundError {
  return new NotFoundError('No change request of this space matches this id or number');
}

/**
 * Stores a new revision of the request's content over `root` (whose objects the caller has written), made
 * by the caller: `edits` of the request, an `update` from main, or the `merge` that becomes main.
 */
export async function insertChangeRequestRevision(
  trx: Db,
  caller: Caller,
  changeRequest: ChangeRequestRow,
  revision: { type: 'edits' | 'merge' | 'update'; parents: string[]; root: string },
): Promise<{ revisionId: string; now: string }> {
  const now = nowIso();
  const revisionId = newId();
  await insertRevision(trx, {
    id: revisionId,
    space_id: changeRequest.space_id,
    type: revision.type,
    parents: JSON.stringify(revision.parents),
    root: revision.root,
    created_at: now,
    created_by: caller.user.id,
    git: null,
    change_request_id: changeRequest.id,
  });
  return { revisionId, now };
}

// ----- lifecycle -----

export async function createChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  body: { subject?: string; description?: JSONDocument; conversationsIssuesCluster?: string },
): Promise<ChangeRequestView> {
  return inTransaction(context, async (tx) => {
    const access = await requireSpace(tx, caller, spaceId);
    assertSpacePermission(access, 'edit');
    const cluster = await checkClusterLink(tx.db, access.space.organization_id, body.conversationsIssuesCluster, 'body.conversationsIssuesCluster');
    // The counter row is locked until this transaction ends: concurrent creations get 1, 2, 3... with no gap.
    const number = await nextCounterValue(tx.db, `space:${access.space.id}`, 'change-request-number');
    const now = nowIso();
    const changeRequest: ChangeRequestRow = {
      id: newId(),
      space_id: access.space.id,
      organization_id: access.space.organization_id,
      number,
      status: 'draft',
      subject: body.subject ?? '',
      description: body.description === undefined ? null : JSON.stringify(body.description),
      created_by: caller.user.id,
      created_at: now,
      updated_at: now,
      revision_id: access.space.revision_id,
      revision_initial: access.space.revision_id,
      revision_merged_ancestor: null,
      revision_merged: null,
      merged_at: null,
      merged_by: null,
      comments_count: 0,
      conversations_issues_cluster: cluster ?? null,
    };
    await insertChangeRequest(tx.db, changeRequest);
    await addChangeRequestContributor(tx.db, changeRequest.id, caller.user.id);
    await adjustSpaceCounters(tx.db, access.space.id, { changeRequests: 1, ...statusCounters(changeRequest.status) });
    return {
      changeRequest,
      creator: caller.user,
      mainRevisionId: access.space.revision_id,
      spaceOrganizationId: access.space.organization_id,
      viewer: viewerOf(caller, access.membership),
      mergeability: await judgeChangeRequest(tx, caller, access.space, changeRequest),
    };
  });
}

export interface ChangeRequestListQuery {
  page?: string;
  limit?: number;
  status?: ChangeRequestStatus;
  creator?: string;
  contributor?: string;
  requestedReviewer?: string;
  conversationsIssuesCluster?: string;
}

function filtersOf(query: ChangeRequestListQuery): ChangeRequestFilters {
  return {
    status: query.status ?? 'open',
    ...(query.creator !== undefined ? { creator: query.creator } : {}),
    ...(query.contributor !== undefined ? { contributor: query.contributor } : {}),
    ...(query.requestedReviewer !== undefined ? { requestedReviewer: query.requestedReviewer } : {}),
    ...(query.conversationsIssuesCluster !== undefined ? { conversationsIssuesCluster: query.conversationsIssuesCluster } : {}),
  };
}

export interface ChangeRequestPage {
  page: KeysetPage<ChangeRequestListing>;
  viewer: ChangeRequestViewer;
}

export async function listChangeRequestsForSpace(context: ServiceContext, caller: Caller, spaceId: string, query: ChangeRequestListQuery): Promise<ChangeRequestPage> {
  const { after, limit } = pageRequest(query, CHANGE_REQUEST_ORDER_KEY_LENGTH);
  const access = await requireSpace(context, caller, spaceId);
  const page = await listChangeRequests(context.db, { kind: 'space', spaceId: access.space.id }, filtersOf(query), after, limit);
  return { page, viewer: viewerOf(caller, access.membership) };
}

/** The change requests of every space of the organization the caller can see (deleted spaces' excluded). */
export async function listChangeRequestsForOrganization(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: ChangeRequestListQuery,
): Promise<ChangeRequestPage> {
  const { after, limit } = pageRequest(query, CHANGE_REQUEST_ORDER_KEY_LENGTH);
  const found = await getOrganizationById(context, caller, organizationId);
  const viewer = viewerOf(caller, membershipFromRow(found.membership));
  const page = await listChangeRequests(context.db, { kind: 'organization', organizationId, viewer }, filtersOf(query), after, limit);
  return { page, viewer };
}

export async function getChangeRequestById(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string): Promise<ChangeRequestView> {
  return changeRequestView(context, caller, await requireChangeRequest(context, caller, spaceId, idOrNumber));
}

/** The subject and description a request sets, as stored (updateChangeRequestById, requestReviewersForChangeRequest). */
export function subjectAndDescription(body: { subject?: string; description?: JSONDocument }): { subject?: string; description?: string } {
  return {
    ...(body.subject !== undefined ? { subject: body.subject } : {}),
    ...(body.description !== undefined ? { description: JSON.stringify(body.description) } : {}),
  };
}

/**
 * Subject, description and status. Any of draft, open and archived can follow any other; `merged` is
 * reached only by merging, and a merged request is final (409).
 */
export async function updateChangeRequestById(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  body: { subject?: string; description?: JSONDocument; status?: 'draft' | 'open' | 'archived'; conversationsIssuesCluster?: string | null },
): Promise<ChangeRequestView> {
  return inTransaction(context, async (tx) => {
    const found = await requireChangeRequest(tx, caller, spaceId, idOrNumber, { need: 'edit' });
    const current = await lockChangeRequest(tx.db, context.dialect, found.changeRequest.id);
    if (!current) throw changeRequestGone();
    refuseIfMerged(current);
    const now = nowIso();
    const cluster = await checkClusterLink(tx.db, found.access.space.organization_id, body.conversationsIssuesCluster, 'body.conversationsIssuesCluster');
    const patch = {
      ...(cluster !== undefined ? { conversations_issues_cluster: cluster } : {}),
      ...subjectAndDescription(body),
      ...(body.status !== undefined ? { status: body.status } : {}),
      updated_at: now,
    };
    await updateChangeRequestRow(tx.db, current.id, patch);
    if (body.status !== undefined && body.status !== current.status) {
      await adjustSpaceCounters(tx.db, current.space_id, statusCounterChange(current.status, body.status));
    }
    return changeRequestView(tx, caller, { access: found.access, changeRequest: { ...current, ...patch } });
  });
}
