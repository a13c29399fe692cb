import type { ChangeRequestContentChange } from '@quire/api-types';
import {
  applyChangesToTree,
  checkMarkdownOffThread,
  ContentError,
  MAX_FILE_BYTES,
  parsesOffThread,
  TreeWriter,
  type AppliedChange,
  type AppliedReusableChange,
  type ApplyChangesResult,
  type ContentChangeInput,
  type FileInput,
  type FileObject,
  type NewObject,
} from '../content/index.js';
import { BadRequestError, ConflictError, PreconditionFailedError } from '../errors.js';
import { guardedFetch, OutboundUrlError } from '../net/url-guard.js';
import { addChangeRequestContributor, lockChangeRequest, updateChangeRequestRow, type ChangeRequestRow } from '../stores/change-request-store.js';
import { putObjects } from '../stores/content-object-store.js';
import type { Caller } from './caller.js';
import {
  changeRequestGone,
  changeRequestView,
  insertChangeRequestRevision,
  refuseIfMerged,
  requireChangeRequest,
  type ChangeRequestView,
} from './change-request-service.js';
import type { ServiceContext } from './context.js';
import { planThenWrite } from './plan-then-write.js';
import { contentReader, revisionRoot } from './revision-content.js';
import { keepWorkingTree, takeWorkingTree } from './working-trees.js';

/*
 * Edits to a change request's content: a batch of changes applied all or nothing as one new revision.
 * Files given by URL are downloaded first, and every file's bytes stored, before any transaction.
 */

export interface ContentUpdateOutcome {
  view: ChangeRequestView;
  changes: AppliedChange[];
  reusableChanges: AppliedReusableChange[];
  insertedFiles: FileObject[];
}

function refuseContentEdits(changeRequest: ChangeRequestRow): void {
  refuseIfMerged(changeRequest);
  if (changeRequest.status === 'archived') {
    throw new ConflictError(`Change request #${changeRequest.number} is archived; set it back to draft or open to edit it`);
  }
}

/**
 * The batch's precondition (`revision`): the content it was made against must still be the request's. Checked
 * once before any work (a stale editor learns it at once) and again under the row lock, where it decides.
 */
function refuseIfEditedSince(changeRequest: ChangeRequestRow, expectedRevision: string | undefined): void {
  if (expectedRevision === undefined || changeRequest.revision_id === expectedRevision) return;
  throw new PreconditionFailedError(
    `Change request #${changeRequest.number} was edited since revision ${expectedRevision} (its revision is now ${changeRequest.revision_id}); nothing was changed. Read its content again, then apply your changes to it`,
  );
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
      const markdown = 'document' in change ? change.document?.markdown : undefined;
      if (markdown === undefined || !parsesOffThread(markdown)) {
        inputs.push(change);
        continue;
      }
      // A large page (or one dense with inline delimiters) is checked and parsed in the worker thread, before the batch is applied.
      try {
        inputs.push({ ...change, checkedLinks: await checkMarkdownOffThread(markdown, 'document.markdown') });
      } catch (error) {
        if (error instanceof ContentError) throw new BadRequestError(`body.${error.atChange(index).message}`);
        throw error;
      }
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

/**
 * The batch applied to a revision of the space: the new tree, its objects kept by the writer until written.
 * The tree is the one the request's last edit in this process left (working-trees.ts), brought to this
 * revision, and is kept in turn for the next edit.
 */
async function planBatch(context: ServiceContext, changeRequest: ChangeRequestRow, revisionId: string, inputs: readonly ContentChangeInput[]): Promise<PlannedBatch> {
  const writer = new TreeWriter(contentReader(context.db));
  const root = await revisionRoot(context.db, changeRequest.space_id, revisionId);
  const tree = await takeWorkingTree(writer, root, changeRequest.id);
  try {
    const result = applyChangesToTree(writer, tree, inputs);
    keepWorkingTree(tree, changeRequest.id);
    return { writer, result };
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
    // Pages and reusable contents hold their markdown by hash.
    if (object.kind !== 'page' && object.kind !== 'reusable') continue;
    const content = (JSON.parse(object.body.toString('utf8')) as { content: string | null }).content;
    if (content !== null) pageContent.add(content);
  }
  return objects.filter((object) => !(object.kind === 'blob' && fileBlobs.has(object.hash) && !pageContent.has(object.hash)));
}

/**
 * Applies a batch of 1 to 50 changes to the request's content, all or nothing, as ONE new revision of type
 * `edits`. The batch is tried first outside the transaction (so a bad batch costs no lock and leaves no file
 * bytes behind), the file bytes are stored, then the transaction writes the revision if the request's
 * content is still the one the batch was applied to (else the batch is applied again to the new one).
 */
export async function updateChangeRequestContent(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  changes: readonly ChangeRequestContentChange[],
  expectedRevision?: string,
): Promise<ContentUpdateOutcome> {
  const found = await requireChangeRequest(context, caller, spaceId, idOrNumber, { need: 'edit' });
  refuseContentEdits(found.changeRequest);
  refuseIfEditedSince(found.changeRequest, expectedRevision);
  const inputs = await prepareChanges(context, changes);
  const first = await planBatch(context, found.changeRequest, found.changeRequest.revision_id, inputs);

  const storage = context.blobStorage;
  if (storage) for (const file of inputs.flatMap((input) => (input.operation === 'insert_files' ? input.files : []))) await storage.put(file.data);

  return planThenWrite(context, {
    basis: found.changeRequest.revision_id,
    // The first plan was made above, before the file bytes were stored: a batch it refuses stores nothing.
    plan: async (revisionId) => (revisionId === found.changeRequest.revision_id ? first : planBatch(context, found.changeRequest, revisionId, inputs)),
    lock: async (tx) => {
      const again = await requireChangeRequest(tx, caller, spaceId, found.changeRequest.id, { need: 'edit' });
      const current = await lockChangeRequest(tx.db, context.dialect, again.changeRequest.id);
      if (!current) throw changeRequestGone();
      refuseContentEdits(current);
      refuseIfEditedSince(current, expectedRevision);
      return { basis: current.revision_id, access: again.access, current };
    },
    sameBasis: (a, b) => a === b,
    write: async (tx, { writer, result }, { access, current }) => {
      await putObjects(tx.db, databaseObjects(writer.collect(result.root), result.insertedFiles, storage !== undefined));
      const { revisionId, now } = await insertChangeRequestRevision(tx.db, caller, current, { type: 'edits', parents: [current.revision_id], root: result.root });
      await updateChangeRequestRow(tx.db, current.id, { revision_id: revisionId, updated_at: now });
      await addChangeRequestContributor(tx.db, current.id, caller.user.id);
      const view = await changeRequestView(tx, caller, { access, changeRequest: { ...current, revision_id: revisionId, updated_at: now } });
      return { view, changes: result.changes, reusableChanges: result.reusableChanges, insertedFiles: result.insertedFiles };
    },
    basisName: `The content of change request #${found.changeRequest.number}`,
  });
}
