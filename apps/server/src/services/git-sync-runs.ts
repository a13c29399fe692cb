import { ContentError, TreeWriter, WorkingTree } from '../content/index.js';
import { exportRepository } from '../git/export.js';
import { importRepository, type GitLimits, type GitSyncOptions } from '../git/import.js';
import { GitError, GitTimeoutError, redactSecrets } from '../git/run-git.js';
import { newId, nowIso } from '../ids.js';
import { OutboundUrlError } from '../net/url-guard.js';
import type { BlobStorage } from '../storage/blob-storage.js';
import { putObjects } from '../stores/content-object-store.js';
import {
  finishGitSyncOperation,
  findGitSyncOperation,
  findGitSyncState,
  updateGitSyncState,
  type GitSyncOperationRow,
  type GitSyncStateRow,
} from '../stores/git-sync-store.js';
import { findRevisionOfSpace, insertRevision } from '../stores/revision-store.js';
import { findSpaceById, setSpaceMainRevision, type SpaceRow } from '../stores/space-store.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { credentialSecrets, openCredentials, SealedCredentialsError, urlWithCredentials } from './git-credentials.js';
import { buildImportedTree, checkImportedMarkdown, exportContentOf, storeImportedFiles } from './git-sync-content.js';
import { isStale, refreshSpaceGitSync, staleMessage, type GitSyncJobPayload } from './git-sync-service.js';
import { contentReader } from './revision-content.js';
import { enqueueSearchReindex } from './search-reindex.js';

/*
 * Git sync, the job side: the import or export of one queued operation (git-sync-service.ts), run outside
 * any transaction (cloning and pushing take time), then recorded in one transaction: the new revision and
 * the move of the space's main content for an import, the operation's outcome and the sync state for both.
 *
 * Idempotent: a job run again (its worker died) finds its operation already ended and stops, or runs it
 * anew; the outcome is recorded only while the operation is still running, so two attempts never both
 * apply. A Git failure ends the operation as `failure` (or `timeout`) with git's scrubbed message, and the
 * space is left as it was. Credentials are opened only here, given to git through its environment (see
 * git/run-git.ts), and scrubbed from every message that is kept.
 */

export interface GitRunAttempt {
  attempts: number;
  maxAttempts: number;
}

export interface GitRunOptions {
  /** Git limits (sizes, time) other than the defaults, e.g. for the import bench. */
  limits?: Partial<GitLimits>;
  /** Where clones are made; the system's temporary folder by default. */
  tempDir?: string;
}

/** Ends the operation with its message and changes nothing else: the caller's or the repository's problem. */
class OperationRefused extends Error {
  override readonly name = 'OperationRefused';
}

/** Another attempt recorded the outcome first; this one's work is dropped. */
class AlreadyEnded extends Error {
  override readonly name = 'AlreadyEnded';
}

const MESSAGE_MAX_LENGTH = 2000;

export function parseGitSyncPayload(payload: unknown, direction: 'import' | 'export'): GitSyncJobPayload {
  const value = payload as Partial<GitSyncJobPayload> | null;
  const ok =
    value !== null &&
    typeof value === 'object' &&
    typeof value.operationId === 'string' &&
    typeof value.spaceId === 'string' &&
    value.direction === direction &&
    typeof value.url === 'string' &&
    typeof value.ref === 'string' &&
    (direction === 'import' || typeof value.commitMessage === 'string');
  if (!ok) throw new Error(`git.${direction} payload is malformed`);
  return value as GitSyncJobPayload;
}

function gitOptions(context: ServiceContext, options: GitRunOptions): GitSyncOptions {
  return {
    allowLocal: context.allowLocalUrls === true,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.tempDir ? { tempDir: options.tempDir } : {}),
    // git's arguments never hold credentials (they travel in its environment), so they can be logged.
    log: (entry) => context.logger.debug({ git: entry.args.filter((arg) => !arg.startsWith('-c') && !arg.includes('=')), durationMs: entry.durationMs, exitCode: entry.exitCode }, 'git command'),
  };
}

function blobStorageOf(context: ServiceContext): BlobStorage {
  if (!context.blobStorage) throw new Error('Git sync needs a blob storage in the service context');
  return context.blobStorage;
}

/** Errors whose message is meant for the person who asked for the operation, and that a retry would repeat. */
function isOperationError(error: unknown): error is Error {
  // A ContentError is the repository's content refused (a page past a content limit): retrying cannot help.
  return error instanceof ContentError || error instanceof GitError || error instanceof OutboundUrlError || error instanceof OperationRefused || error instanceof SealedCredentialsError;
}

function commitUrl(payload: GitSyncJobPayload, oid: string): string {
  return payload.repoCommitURL ? `${payload.repoCommitURL.replace(/\/+$/, '')}/${oid}` : payload.url;
}

/**
 * The sync state after an applied operation: its timestamp becomes the newest when it is, and the commit it
 * made the space match is remembered, unless it was standalone or the space was linked elsewhere meanwhile.
 */
function appliedPatch(state: GitSyncStateRow, payload: GitSyncJobPayload, match: { commitOid: string; revisionId: string }, now: string): Partial<GitSyncStateRow> {
  const patch: Partial<GitSyncStateRow> = { updated_at: now };
  if (payload.timestamp && (state.last_timestamp === null || payload.timestamp > state.last_timestamp)) patch.last_timestamp = payload.timestamp;
  const sameTarget = state.url === payload.url && state.ref === payload.ref && (state.project_directory ?? '') === (payload.repoProjectDirectory ?? '');
  if (!payload.standalone && sameTarget) {
    patch.commit_oid = match.commitOid;
    patch.revision_id = match.revisionId;
  }
  return patch;
}

/** Records the end of an operation that failed: its state, its scrubbed message, nothing else. */
async function recordFailure(context: ServiceContext, payload: GitSyncJobPayload, error: unknown, secrets: readonly string[], fallback?: string): Promise<void> {
  const state = error instanceof GitTimeoutError ? 'timeout' : 'failure';
  const raw = fallback ?? (error instanceof Error ? error.message : String(error));
  const message = redactSecrets(raw, secrets).slice(0, MESSAGE_MAX_LENGTH) || 'The operation failed';
  await inTransaction(context, async (tx) => {
    const now = nowIso();
    if (!(await finishGitSyncOperation(tx.db, payload.operationId, { state, ended_at: now, error: message }))) return;
    await updateGitSyncState(tx.db, payload.spaceId, { updated_at: now });
    await refreshSpaceGitSync(tx, payload.spaceId);
  });
}

/** Runs `work` for a running operation; failures are recorded on it as described above. */
async function runOperation(
  context: ServiceContext,
  payload: GitSyncJobPayload,
  attempt: GitRunAttempt,
  work: (operation: GitSyncOperationRow, secrets: string[]) => Promise<void>,
): Promise<void> {
  const operation = await findGitSyncOperation(context.db, payload.operationId);
  // Ended by an earlier attempt, or gone with its space.
  if (!operation || operation.state !== 'running') return;
  const secrets: string[] = [];
  try {
    await work(operation, secrets);
  } catch (error) {
    if (error instanceof AlreadyEnded) return;
    if (isOperationError(error)) {
      await recordFailure(context, payload, error, secrets);
      return;
    }
    if (attempt.attempts >= attempt.maxAttempts) {
      const what = payload.direction === 'import' ? 'import' : 'export';
      await recordFailure(context, payload, error, secrets, `The ${what} failed because of an internal error of the server (after ${attempt.attempts} attempts)`);
    }
    throw error;
  }
}

async function openPayloadCredentials(context: ServiceContext, payload: GitSyncJobPayload, secrets: string[]): Promise<string> {
  if (!payload.credentials) return payload.url;
  const credentials = await openCredentials(context.db, payload.credentials, payload.operationId);
  secrets.push(...credentialSecrets(credentials));
  return urlWithCredentials(payload.url, credentials);
}

async function liveSpace(db: ServiceContext['db'], spaceId: string, direction: string): Promise<SpaceRow> {
  const space = await findSpaceById(db, spaceId);
  if (!space || space.deleted_at !== null) throw new OperationRefused(`The space was deleted before the ${direction} could run`);
  return space;
}

async function refuseIfStale(db: ServiceContext['db'], payload: GitSyncJobPayload): Promise<GitSyncStateRow | undefined> {
  const state = await findGitSyncState(db, payload.spaceId);
  if (isStale(state, payload.timestamp)) throw new OperationRefused(staleMessage(state));
  return state;
}

/**
 * Imports the repository into a new revision of the space, which becomes its main content unless the
 * operation is standalone. Without `force`, a commit the space's current content already came from (or was
 * exported as) is not imported again: the operation succeeds without a new revision.
 */
export async function runGitImport(context: ServiceContext, payload: GitSyncJobPayload, attempt: GitRunAttempt, options: GitRunOptions = {}): Promise<void> {
  await runOperation(context, payload, attempt, async (operation, secrets) => {
    const { db } = context;
    const before = await refuseIfStale(db, payload);
    const url = await openPayloadCredentials(context, payload, secrets);
    const imported = await importRepository(
      { url, ref: payload.ref, ...(payload.repoProjectDirectory ? { repoProjectDirectory: payload.repoProjectDirectory } : {}) },
      gitOptions(context, options),
    );
    const commitOid = imported.commit.oid;
    const space = await liveSpace(db, payload.spaceId, 'import');

    if (!payload.force && !payload.standalone && before?.commit_oid === commitOid && before.revision_id === space.revision_id) {
      await inTransaction(context, async (tx) => {
        const state = await refuseIfStale(tx.db, payload);
        const now = nowIso();
        if (!(await finishGitSyncOperation(tx.db, payload.operationId, { state: 'success', ended_at: now, commit_oid: commitOid, revision_id: space.revision_id }))) throw new AlreadyEnded();
        if (state) await updateGitSyncState(tx.db, payload.spaceId, appliedPatch(state, payload, { commitOid, revisionId: space.revision_id }, now));
        await refreshSpaceGitSync(tx, payload.spaceId);
      });
      return;
    }

    const current = await findRevisionOfSpace(db, space.id, space.revision_id);
    if (!current) throw new Error(`space ${space.id} has no revision ${space.revision_id}`);
    await checkImportedMarkdown(imported.pages, imported.reusables, imported.treeDepths);
    const blobs = await storeImportedFiles(imported, blobStorageOf(context));
    const reader = contentReader(db);
    const previous = await WorkingTree.load(reader, current.root);
    const writer = new TreeWriter(reader);
    const root = buildImportedTree(imported, writer, { previous, blobs }).commit(writer);
    const objects = writer.collect(root);
    const revisionId = newId();

    await inTransaction(context, async (tx) => {
      const state = await refuseIfStale(tx.db, payload);
      const main = await liveSpace(tx.db, payload.spaceId, 'import');
      const now = nowIso();
      if (!(await finishGitSyncOperation(tx.db, payload.operationId, { state: 'success', ended_at: now, commit_oid: commitOid, revision_id: revisionId }))) {
        throw new AlreadyEnded();
      }
      await putObjects(tx.db, objects);
      await insertRevision(tx.db, {
        id: revisionId,
        space_id: main.id,
        type: 'computed',
        parents: JSON.stringify([main.revision_id]),
        root,
        created_at: now,
        created_by: operation.created_by,
        git: JSON.stringify({ oid: commitOid, message: imported.commit.message, createdByService: false, url: commitUrl(payload, commitOid), ref: payload.ref }),
        change_request_id: null,
      });
      if (!payload.standalone) {
        await setSpaceMainRevision(tx.db, main.id, revisionId, now);
        await enqueueSearchReindex(tx.db, main.id);
      }
      if (state) await updateGitSyncState(tx.db, main.id, appliedPatch(state, payload, { commitOid, revisionId }, now));
      await refreshSpaceGitSync(tx, main.id);
    });
  });
}

/**
 * Writes the space's main content to the branch as one commit. Unless `force`, commits pushed to the branch
 * after the one the space last synced with are not overwritten: the export fails and says so.
 */
export async function runGitExport(context: ServiceContext, payload: GitSyncJobPayload, attempt: GitRunAttempt, options: GitRunOptions = {}): Promise<void> {
  await runOperation(context, payload, attempt, async (_operation, secrets) => {
    const { db } = context;
    const before = await refuseIfStale(db, payload);
    const url = await openPayloadCredentials(context, payload, secrets);
    const space = await liveSpace(db, payload.spaceId, 'export');
    const revision = await findRevisionOfSpace(db, space.id, space.revision_id);
    if (!revision) throw new Error(`space ${space.id} has no revision ${space.revision_id}`);
    const reader = contentReader(db);
    const content = await exportContentOf(await WorkingTree.load(reader, revision.root), reader, blobStorageOf(context));
    const linked =
      !payload.standalone &&
      before !== undefined &&
      before.url === payload.url &&
      before.ref === payload.ref &&
      (before.project_directory ?? '') === (payload.repoProjectDirectory ?? '');
    const result = await exportRepository(
      {
        url,
        ref: payload.ref,
        commitMessage: payload.commitMessage ?? '',
        ...(payload.repoProjectDirectory ? { repoProjectDirectory: payload.repoProjectDirectory } : {}),
        force: payload.force,
        ...(linked && before.commit_oid ? { expectedOid: before.commit_oid } : {}),
      },
      content,
      gitOptions(context, options),
    );

    await inTransaction(context, async (tx) => {
      const state = await refuseIfStale(tx.db, payload);
      const now = nowIso();
      if (!(await finishGitSyncOperation(tx.db, payload.operationId, { state: 'success', ended_at: now, commit_oid: result.oid, revision_id: revision.id }))) {
        throw new AlreadyEnded();
      }
      if (state) await updateGitSyncState(tx.db, payload.spaceId, appliedPatch(state, payload, { commitOid: result.oid, revisionId: revision.id }, now));
      await refreshSpaceGitSync(tx, payload.spaceId);
    });
  });
}
