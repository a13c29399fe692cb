import type { ChangeRequestConflict, ChangeRequestContentChange, JSONDocument } from '@quire/api-types';
import {
  applyContentChanges,
  ContentError,
  markdownToDocument,
  MAX_FILE_BYTES,
  mergeTrees,
  readMarkdown,
  TreeWriter,
  WorkingTree,
  type AppliedChange,
  type ApplyChangesResult,
  type ContentChangeInput,
  type FileInput,
  type FileObject,
  type NewObject,
  type ObjectReader,
  type PageNode,
} from '../content/index.js';
import type { Db } from '../db/index.js';
import { BadRequestError, ConflictError, NotFoundError } from '../http/errors.js';
import { pageRequest } from '../http/pagination.js';
import { newId, nowIso } from '../ids.js';
import { guardedFetch, OutboundUrlError } from '../net/url-guard.js';
import { membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import type { PdfPageInput } from '../pdf/render.js';
import {
  addChangeRequestContributor,
  CHANGE_REQUEST_ORDER_KEY_LENGTH,
  findChangeRequestInSpace,
  insertChangeRequest,
  listChangeRequests,
  lockChangeRequest,
  lockSpaceMainRevision,
  updateChangeRequestRow,
  type ChangeRequestFilters,
  type ChangeRequestListing,
  type ChangeRequestRow,
} from '../stores/change-request-store.js';
import { putObjects } from '../stores/content-object-store.js';
import { nextCounterValue } from '../stores/counter-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findRevisionOfSpace, insertRevision } from '../stores/revision-store.js';
import { adjustSpaceCounters, setSpaceMainRevision, type SpaceCounterChanges, type SpaceRow } from '../stores/space-store.js';
import { findUserById } from '../stores/user-store.js';
import { readBlob } from '../storage/blob-storage.js';
import type { Caller } from './caller.js';
import { contentVisibility } from './collection-service.js';
import type { ServiceContext } from './context.js';
import { getOrganizationForCaller } from './organization-service.js';
import { contentReader } from './revision-content.js';
import { enqueueSearchReindex } from './search-reindex.js';
import { assertSpacePermission, requireSpace, type SpaceAccess } from './space-service.js';

/*
 * Change requests: proposed edits to a space's content, made on revisions of their own and merged into the
 * space's main content with a three-way merge (content/merge.ts). Work that is slow or touches the network
 * or the disk (downloading files, applying a batch to a large tree, merging, rendering a PDF) is done
 * before the transaction, against the revisions read then; the transaction locks the rows, checks that
 * those revisions are still the current ones, and only recomputes (inside it) when another write got there
 * first. Locks are always taken change request first, then space, so concurrent writes cannot deadlock.
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

async function viewOf(context: ServiceContext, caller: Caller, found: { access: SpaceAccess; changeRequest: ChangeRequestRow }, mainRevisionId?: string): Promise<ChangeRequestView> {
  const creator = found.changeRequest.created_by === caller.user.id ? caller.user : await findUserById(context.db, found.changeRequest.created_by);
  if (!creator) throw new Error(`change request ${found.changeRequest.id} names a missing creator`);
  return {
    changeRequest: found.changeRequest,
    creator,
    mainRevisionId: mainRevisionId ?? found.access.space.revision_id,
    spaceOrganizationId: found.access.space.organization_id,
    viewer: viewerOf(caller, found.access.membership),
  };
}

/** What the space's `changeRequestsOpen` and `changeRequestsDraft` count of a request in this status. */
function statusCounters(status: string): Required<Pick<SpaceCounterChanges, 'changeRequestsOpen' | 'changeRequestsDraft'>> {
  return { changeRequestsOpen: status === 'open' ? 1 : 0, changeRequestsDraft: status === 'draft' ? 1 : 0 };
}

function statusChange(from: string, to: string): SpaceCounterChanges {
  const before = statusCounters(from);
  const after = statusCounters(to);
  return {
    changeRequestsOpen: after.changeRequestsOpen - before.changeRequestsOpen,
    changeRequestsDraft: after.changeRequestsDraft - before.changeRequestsDraft,
  };
}

function refuseIfMerged(changeRequest: ChangeRequestRow): void {
  if (changeRequest.status === 'merged') throw new ConflictError(`Change request #${changeRequest.number} is merged and can no longer be changed`);
}

/** A locked row that vanished between the read and the lock: its space was purged meanwhile. */
function gone(): NotFoundError {
  return new NotFoundError('No change request of this space matches this id or number');
}

/** The main revision the request last caught up with: where it started, or its last update from main. */
function ancestorOf(changeRequest: ChangeRequestRow): string {
  return changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial;
}

async function rootOf(db: Db, spaceId: string, revisionId: string): Promise<string> {
  const revision = await findRevisionOfSpace(db, spaceId, revisionId);
  if (!revision) throw new Error(`space ${spaceId} has no revision ${revisionId}`);
  return revision.root;
}

// ----- lifecycle -----

export async function createChangeRequest(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  body: { subject?: string; description?: JSONDocument },
): Promise<ChangeRequestView> {
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    assertSpacePermission(access, 'edit');
    // The counter row is locked until this transaction ends: concurrent creations get 1, 2, 3... with no gap.
    const number = await nextCounterValue(trx, `space:${access.space.id}`, 'change-request-number');
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
      conversations_issues_cluster: null,
    };
    await insertChangeRequest(trx, changeRequest);
    await addChangeRequestContributor(trx, changeRequest.id, caller.user.id);
    await adjustSpaceCounters(trx, access.space.id, { changeRequests: 1, ...statusCounters(changeRequest.status) });
    return {
      changeRequest,
      creator: caller.user,
      mainRevisionId: access.space.revision_id,
      spaceOrganizationId: access.space.organization_id,
      viewer: viewerOf(caller, access.membership),
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

export async function listChangeRequestsOfSpace(context: ServiceContext, caller: Caller, spaceId: string, query: ChangeRequestListQuery): Promise<ChangeRequestPage> {
  const { after, limit } = pageRequest(query, CHANGE_REQUEST_ORDER_KEY_LENGTH);
  const access = await requireSpace(context, caller, spaceId);
  const page = await listChangeRequests(context.db, { kind: 'space', spaceId: access.space.id }, filtersOf(query), after, limit);
  return { page, viewer: viewerOf(caller, access.membership) };
}

/** The change requests of every space of the organization the caller can see (deleted spaces' excluded). */
export async function listChangeRequestsOfOrganization(
  context: ServiceContext,
  caller: Caller,
  organizationId: string,
  query: ChangeRequestListQuery,
): Promise<ChangeRequestPage> {
  const { after, limit } = pageRequest(query, CHANGE_REQUEST_ORDER_KEY_LENGTH);
  const found = await getOrganizationForCaller(context, caller, organizationId);
  const membership = membershipFromRow(found.membership);
  const { filter } = await contentVisibility(context, membership, organizationId);
  const page = await listChangeRequests(context.db, { kind: 'organization', organizationId, visibility: filter }, filtersOf(query), after, limit);
  return { page, viewer: viewerOf(caller, membership) };
}

export async function getChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string): Promise<ChangeRequestView> {
  return viewOf(context, caller, await requireChangeRequest(context, caller, spaceId, idOrNumber));
}

/**
 * Subject, description and status. Any of draft, open and archived can follow any other; `merged` is
 * reached only by merging, and a merged request is final (409).
 */
export async function updateChangeRequestDetails(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  body: { subject?: string; description?: JSONDocument; status?: 'draft' | 'open' | 'archived' },
): Promise<ChangeRequestView> {
  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const found = await requireChangeRequest(tx, caller, spaceId, idOrNumber, { need: 'edit' });
    const current = await lockChangeRequest(trx, context.dialect, found.changeRequest.id);
    if (!current) throw gone();
    refuseIfMerged(current);
    const now = nowIso();
    const patch = {
      ...(body.subject !== undefined ? { subject: body.subject } : {}),
      ...(body.description !== undefined ? { description: JSON.stringify(body.description) } : {}),
      ...(body.status !== undefined ? { status: body.status } : {}),
      updated_at: now,
    };
    await updateChangeRequestRow(trx, current.id, patch);
    if (body.status !== undefined && body.status !== current.status) {
      await adjustSpaceCounters(trx, current.space_id, statusChange(current.status, body.status));
    }
    return viewOf(tx, caller, { access: found.access, changeRequest: { ...current, ...patch } });
  });
}

// ----- content edits -----

export interface ContentUpdateOutcome {
  view: ChangeRequestView;
  changes: AppliedChange[];
  insertedFiles: FileObject[];
}

function refuseContentEdits(changeRequest: ChangeRequestRow): void {
  refuseIfMerged(changeRequest);
  if (changeRequest.status === 'archived') {
    throw new ConflictError(`Change request #${changeRequest.number} is archived; set it back to draft or open to edit it`);
  }
}

type FileSource = Extract<ChangeRequestContentChange, { operation: 'insert_files' }>['files'][number];

async function downloadFile(context: ServiceContext, url: string, field: string): Promise<{ data: Uint8Array; contentType?: string }> {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new BadRequestError(`${field} is not a valid URL`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new BadRequestError(`${field} must be an http or https URL`);
  try {
    const response = await guardedFetch(url, { allowLocal: context.allowLocalUrls === true, maxBytes: MAX_FILE_BYTES, timeoutMs: 30_000 });
    if (response.status < 200 || response.status > 299) {
      throw new BadRequestError(`${field}: downloading the file answered HTTP ${response.status}`);
    }
    const header = response.headers['content-type'];
    const contentType = typeof header === 'string' && header.trim() !== '' && !/^application\/octet-stream\b/i.test(header) ? header.trim() : undefined;
    return { data: response.body, ...(contentType ? { contentType } : {}) };
  } catch (error) {
    if (error instanceof OutboundUrlError) {
      throw new BadRequestError(error.code === 'too-large' ? `${field}: the file is larger than the limit of 1 MB` : `${field}: ${error.message}`);
    }
    throw error;
  }
}

async function fileInput(context: ServiceContext, file: FileSource, field: string): Promise<FileInput> {
  const common = { name: file.name, ...(file.ref !== undefined ? { ref: file.ref } : {}) };
  if ('base64' in file) {
    const data = Buffer.from(file.base64, 'base64');
    if (data.byteLength > MAX_FILE_BYTES) throw new BadRequestError(`${field}.base64 is larger than 1 MB once decoded`);
    return { ...common, data, ...(file.contentType !== undefined ? { contentType: file.contentType } : {}) };
  }
  const downloaded = await downloadFile(context, file.url, `${field}.url`);
  const contentType = file.contentType ?? downloaded.contentType;
  return { ...common, data: downloaded.data, ...(contentType !== undefined ? { contentType } : {}) };
}

/** The batch with every file's bytes in hand: decoded, or downloaded (outside any transaction). */
async function prepareChanges(context: ServiceContext, changes: readonly ChangeRequestContentChange[]): Promise<ContentChangeInput[]> {
  const inputs: ContentChangeInput[] = [];
  for (const [index, change] of changes.entries()) {
    if (change.operation !== 'insert_files') {
      inputs.push(change);
      continue;
    }
    const files: FileInput[] = [];
    for (const [fileIndex, file] of change.files.entries()) files.push(await fileInput(context, file, `body.changes[${index}].files[${fileIndex}]`));
    inputs.push({ operation: 'insert_files', files });
  }
  return inputs;
}

interface PlannedBatch {
  writer: TreeWriter;
  result: ApplyChangesResult;
}

async function planBatch(reader: ObjectReader, root: string, inputs: readonly ContentChangeInput[]): Promise<PlannedBatch> {
  const writer = new TreeWriter(reader);
  try {
    return { writer, result: await applyContentChanges(writer, root, inputs) };
  } catch (error) {
    if (error instanceof ContentError) throw new BadRequestError(`body.${error.message}`);
    throw error;
  }
}

/**
 * The objects to insert in `content_objects`, minus the bytes of inserted files, which live in the blob
 * storage (written before the transaction). A blob that is also the content of a new page stays: page
 * content is read from the database.
 */
function databaseObjects(objects: readonly NewObject[], insertedFiles: readonly FileObject[], filesOnDisk: boolean): NewObject[] {
  if (!filesOnDisk || insertedFiles.length === 0) return [...objects];
  const fileBlobs = new Set(insertedFiles.map((file) => file.blob));
  const pageContent = new Set<string>();
  for (const object of objects) {
    if (object.kind !== 'page') continue;
    const content = (JSON.parse(object.body.toString('utf8')) as { content: string | null }).content;
    if (content !== null) pageContent.add(content);
  }
  return objects.filter((object) => !(object.kind === 'blob' && fileBlobs.has(object.hash) && !pageContent.has(object.hash)));
}

/**
 * Applies a batch of 1 to 50 changes to the request's content, all or nothing, as ONE new revision of type
 * `edits`. The batch is tried first outside the transaction (so a bad batch costs no lock and leaves no file
 * bytes behind), the file bytes are stored, then the transaction writes the revision, applying the batch
 * again only when another edit landed meanwhile.
 */
export async function updateChangeRequestContent(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  changes: readonly ChangeRequestContentChange[],
): Promise<ContentUpdateOutcome> {
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber, { need: 'edit' });
  refuseContentEdits(found.changeRequest);
  const inputs = await prepareChanges(context, changes);
  let plannedOn = found.changeRequest.revision_id;
  let planned = await planBatch(contentReader(context.db), await rootOf(context.db, found.space.id, plannedOn), inputs);

  const storage = context.blobStorage;
  if (storage) for (const file of inputs.flatMap((input) => (input.operation === 'insert_files' ? input.files : []))) await storage.put(file.data);

  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const again = await requireChangeRequest(tx, caller, spaceId, found.changeRequest.id, { need: 'edit' });
    const current = await lockChangeRequest(trx, context.dialect, again.changeRequest.id);
    if (!current) throw gone();
    refuseContentEdits(current);
    if (current.revision_id !== plannedOn) {
      plannedOn = current.revision_id;
      planned = await planBatch(contentReader(trx), await rootOf(trx, current.space_id, plannedOn), inputs);
    }
    const { writer, result } = planned;
    await putObjects(trx, databaseObjects(writer.collect(result.root), result.insertedFiles, storage !== undefined));
    const now = nowIso();
    const revisionId = newId();
    await insertRevision(trx, {
      id: revisionId,
      space_id: current.space_id,
      type: 'edits',
      parents: JSON.stringify([plannedOn]),
      root: result.root,
      created_at: now,
      created_by: caller.user.id,
      git: null,
      change_request_id: current.id,
    });
    await updateChangeRequestRow(trx, current.id, { revision_id: revisionId, updated_at: now });
    await addChangeRequestContributor(trx, current.id, caller.user.id);
    const view = await viewOf(tx, caller, { access: again.access, changeRequest: { ...current, revision_id: revisionId, updated_at: now } });
    return { view, changes: result.changes, insertedFiles: result.insertedFiles };
  });
}

// ----- merge and update -----

interface MergeInputs {
  base: string;
  ours: string;
  theirs: string;
}

type PlannedMerge = { inputs: MergeInputs; writer: TreeWriter } & ({ ok: true; root: string } | { ok: false; conflicts: ChangeRequestConflict[] });

/** Writes the objects of a clean merge and the revision (a `merge` of main or an `update` of the request) over them. */
async function writeMergedRevision(
  trx: Db,
  plan: PlannedMerge & { ok: true },
  revision: { type: 'merge' | 'update'; parents: string[]; changeRequest: ChangeRequestRow; caller: Caller },
): Promise<{ revisionId: string; now: string }> {
  await putObjects(trx, plan.writer.collect(plan.root));
  const now = nowIso();
  const revisionId = newId();
  await insertRevision(trx, {
    id: revisionId,
    space_id: revision.changeRequest.space_id,
    type: revision.type,
    parents: JSON.stringify(revision.parents),
    root: plan.root,
    created_at: now,
    created_by: revision.caller.user.id,
    git: null,
    change_request_id: revision.changeRequest.id,
  });
  return { revisionId, now };
}

function sameInputs(a: MergeInputs, b: MergeInputs): boolean {
  return a.base === b.base && a.ours === b.ours && a.theirs === b.theirs;
}

/** The three-way merge of three revisions of the space (by revision id). */
async function planMerge(db: Db, spaceId: string, inputs: MergeInputs): Promise<PlannedMerge> {
  const [base, ours, theirs] = await Promise.all([rootOf(db, spaceId, inputs.base), rootOf(db, spaceId, inputs.ours), rootOf(db, spaceId, inputs.theirs)]);
  const writer = new TreeWriter(contentReader(db));
  const merged = await mergeTrees(writer, { base, ours, theirs });
  if (!merged.ok) return { inputs, writer, ok: false, conflicts: merged.conflicts };
  // Every revision has a tree (an empty space has an empty root), so neither side is ever null here.
  if (merged.root === null) throw new Error('a merge of three trees answered no tree');
  return { inputs, writer, ok: true, root: merged.root };
}

export type MergeOutcome =
  | { result: 'merge'; revision: string }
  | { result: 'conflicts'; revision: string; conflicts: ChangeRequestConflict[] };

/**
 * Merges the request into the space's main content: base = where it last caught up with main, ours = the
 * request, theirs = main now. Clean: a `merge` revision becomes main, the request is `merged`, and the
 * search index is queued for a refresh. Conflicts: nothing changes and the answer lists them.
 */
export async function mergeChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string): Promise<MergeOutcome> {
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  assertSpacePermission(found.access, 'merge');
  refuseIfMerged(found.changeRequest);
  const inputsOf = (changeRequest: ChangeRequestRow, main: string): MergeInputs => ({ base: ancestorOf(changeRequest), ours: changeRequest.revision_id, theirs: main });
  let plan = await planMerge(context.db, found.space.id, inputsOf(found.changeRequest, found.space.revision_id));

  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const access = await requireSpace(tx, caller, spaceId);
    assertSpacePermission(access, 'merge');
    const current = await lockChangeRequest(trx, context.dialect, found.changeRequest.id);
    if (!current) throw gone();
    refuseIfMerged(current);
    // Main must not move between the merge and the write, or a merge landing meanwhile would be lost.
    const main = await lockSpaceMainRevision(trx, context.dialect, current.space_id);
    if (main === undefined) throw gone();
    const inputs = inputsOf(current, main);
    if (!sameInputs(inputs, plan.inputs)) plan = await planMerge(trx, current.space_id, inputs);
    if (!plan.ok) return { result: 'conflicts', revision: main, conflicts: plan.conflicts };

    const { revisionId, now } = await writeMergedRevision(trx, plan, { type: 'merge', parents: [main, current.revision_id], changeRequest: current, caller });
    await setSpaceMainRevision(trx, current.space_id, revisionId, now);
    await updateChangeRequestRow(trx, current.id, { status: 'merged', revision_merged: revisionId, merged_at: now, merged_by: caller.user.id, updated_at: now });
    await adjustSpaceCounters(trx, current.space_id, statusChange(current.status, 'merged'));
    await enqueueSearchReindex(trx, current.space_id);
    return { result: 'merge', revision: revisionId };
  });
}

export type UpdateOutcome =
  | { result: 'update'; revision: string }
  | { result: 'conflicts'; revision: string; conflicts: ChangeRequestConflict[] };

/**
 * Brings what changed on main since the request last caught up into the request, its own edits kept on
 * top: the same three-way merge as `mergeChangeRequest` (ours = the request, theirs = main, so conflicts
 * are reported as the request shows the pages), written as an `update` revision of the request.
 */
export async function updateChangeRequestFromMain(context: ServiceContext, caller: Caller, spaceId: string, idOrNumber: string): Promise<UpdateOutcome> {
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber, { need: 'edit' });
  refuseIfMerged(found.changeRequest);
  const inputsOf = (changeRequest: ChangeRequestRow, main: string): MergeInputs => ({ base: ancestorOf(changeRequest), ours: changeRequest.revision_id, theirs: main });
  let plan: PlannedMerge | undefined;
  if (ancestorOf(found.changeRequest) !== found.space.revision_id) {
    plan = await planMerge(context.db, found.space.id, inputsOf(found.changeRequest, found.space.revision_id));
  }

  return context.db.transaction().execute(async (trx) => {
    const tx: ServiceContext = { ...context, db: trx };
    const again = await requireChangeRequest(tx, caller, spaceId, found.changeRequest.id, { need: 'edit' });
    const current = await lockChangeRequest(trx, context.dialect, again.changeRequest.id);
    if (!current) throw gone();
    refuseIfMerged(current);
    const main = again.space.revision_id;
    if (ancestorOf(current) === main) return { result: 'update', revision: current.revision_id };
    const inputs = inputsOf(current, main);
    if (!plan || !sameInputs(inputs, plan.inputs)) plan = await planMerge(trx, current.space_id, inputs);
    if (!plan.ok) return { result: 'conflicts', revision: current.revision_id, conflicts: plan.conflicts };

    const { revisionId, now } = await writeMergedRevision(trx, plan, { type: 'update', parents: [current.revision_id, main], changeRequest: current, caller });
    await updateChangeRequestRow(trx, current.id, { revision_id: revisionId, revision_merged_ancestor: main, updated_at: now });
    await addChangeRequestContributor(trx, current.id, caller.user.id);
    return { result: 'update', revision: revisionId };
  });
}

// ----- PDF -----

/** The pages the PDF holds, parents before children: every page, or one page with (or without) its descendants. */
function pdfPages(tree: WorkingTree, query: { page?: string; only?: boolean }): PageNode[] {
  if (query.only && query.page === undefined) throw new BadRequestError('query.only needs query.page: the page to make the PDF of');
  if (query.page === undefined) return [...tree.walk()];
  const start = tree.getPage(query.page);
  if (!start) throw new NotFoundError('No page of this change request matches query.page');
  if (query.only) return [start];
  const pages: PageNode[] = [];
  const stack = [start];
  while (stack.length > 0) {
    const node = stack.pop()!;
    pages.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return pages;
}

/**
 * Renders the request's content (or one page, see `pdfPages`) to a PDF in the blob storage and answers a
 * signed URL to it. Pages that hold no document (links, groups) give no sheet of their own. Nothing here
 * runs in a transaction: reading immutable objects needs none, and rendering is slow.
 */
export async function changeRequestPdf(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  query: { page?: string; only?: boolean },
): Promise<{ url: string }> {
  const { blobStorage, urlSigner } = context;
  if (!blobStorage || !urlSigner) throw new Error('PDFs need the blob storage and the URL signer in the service context');
  const { space, changeRequest } = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  const reader = contentReader(context.db);
  const tree = await WorkingTree.load(reader, await rootOf(context.db, space.id, changeRequest.revision_id));
  const pages: PdfPageInput[] = [];
  for (const node of pdfPages(tree, query)) {
    if (node.fields.type !== 'document' && node.content === null) continue;
    pages.push({ id: node.id, title: node.fields.title, path: tree.pathOf(node), document: markdownToDocument(await readMarkdown(reader, node.content)) });
  }
  const subject = changeRequest.subject.trim();
  // The PDF renderer (pdfkit and its fonts) is loaded on first use: it is a quarter of the server's start-up.
  const { fileImageLoader, publishPdf } = await import('../pdf/publish.js');
  const published = await publishPdf(
    {
      title: subject === '' ? `Change request #${changeRequest.number}` : `Change request #${changeRequest.number}: ${subject}`,
      subtitle: space.title === '' ? 'Untitled space' : space.title,
      pages,
      images: fileImageLoader(async (fileId) => {
        const file = tree.getFile(fileId);
        return file ? readBlob(blobStorage, file.blob, 16 * 1024 * 1024) : undefined;
      }),
      // The same content at the same moment renders the same bytes, which the storage keeps once.
      createdAt: new Date(changeRequest.updated_at),
    },
    { storage: blobStorage, signer: urlSigner },
  );
  return { url: published.url };
}
