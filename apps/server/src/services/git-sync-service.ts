import type { components } from '@quire/api-types';
import { checkGitSyncTarget, type GitSyncTarget } from '../git/import.js';
import { GitError } from '../git/run-git.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { enqueueJob } from '../jobs/queue.js';
import { OutboundUrlError, splitCredentials } from '../net/url-guard.js';
import {
  deleteGitSyncState,
  findGitSyncOperation,
  findGitSyncState,
  insertGitSyncOperation,
  saveGitSyncState,
  type GitSyncOperationRow,
  type GitSyncStateRow,
  type SpaceGitSyncCopy,
} from '../stores/git-sync-store.js';
import { updateSpace } from '../stores/space-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { sealCredentials } from './git-credentials.js';
import { assertSpacePermission, requireSpace } from './space-access.js';

/*
 * Git sync, the request side: check what can be checked at once (the URL against the outbound guard, the
 * ref, the project directory, the ordering `timestamp`), record a running operation and queue the job that
 * does the work (jobs/git-import-job.ts, jobs/git-export-job.ts), in one transaction.
 *
 * Ordering: `timestamp` orders the operations of a space. The newest timestamp of an operation that ran
 * successfully is recorded; an operation with an older one is refused with 409 when it is asked for, and
 * when it only turns out older once its job runs (a newer one was queued after it and ran first) it ends as
 * `failure` with that reason and changes nothing. Operations without a timestamp are not ordered.
 */

export const GIT_IMPORT_JOB = 'git.import';
export const GIT_EXPORT_JOB = 'git.export';

/** The request bodies, with the fields that have defaults optional (the validator fills them in for HTTP). */
type WithDefaults<T> = Omit<T, 'force' | 'standalone'> & { force?: boolean; standalone?: boolean };
export type ImportGitRepositoryBody = WithDefaults<components['schemas']['ImportGitRepositoryBody']>;
export type ExportGitRepositoryBody = WithDefaults<components['schemas']['ExportGitRepositoryBody']>;

/** What a Git sync job gets. `credentials` are sealed (git-credentials.ts); `url` has none. */
export interface GitSyncJobPayload {
  operationId: string;
  spaceId: string;
  direction: 'import' | 'export';
  url: string;
  credentials?: string;
  ref: string;
  repoProjectDirectory?: string;
  repoCommitURL?: string;
  timestamp?: string;
  force: boolean;
  standalone: boolean;
  commitMessage?: string;
}

const STALE_MESSAGE = 'A newer Git sync operation already ran on this space';

/** True when an operation with `timestamp` is older than the newest one applied to the space. */
export function isStale(state: Pick<GitSyncStateRow, 'last_timestamp'> | undefined, timestamp: string | undefined): boolean {
  return timestamp !== undefined && state?.last_timestamp != null && timestamp < state.last_timestamp;
}

export function staleMessage(state: Pick<GitSyncStateRow, 'last_timestamp'> | undefined): string {
  return state?.last_timestamp ? `${STALE_MESSAGE} (at ${state.last_timestamp})` : STALE_MESSAGE;
}

/** `owner/repo` of a repository URL (`https://host/owner/repo.git`), or its last segment. */
function repositoryName(url: string): string | undefined {
  try {
    const segments = decodeURIComponent(new URL(url).pathname).split('/').filter(Boolean);
    if (segments.length === 0) return undefined;
    const last = (segments.pop() as string).replace(/\.git$/i, '');
    const owner = segments.pop();
    return owner ? `${owner}/${last}` : last;
  } catch {
    return undefined;
  }
}

function providerOf(url: string, given: string | undefined): string | null {
  if (given) return given;
  try {
    const host = new URL(url).hostname.toLowerCase();
    if (host === 'github.com' || host.endsWith('.github.com')) return 'github';
    if (host === 'gitlab.com' || host.endsWith('.gitlab.com')) return 'gitlab';
  } catch {
    // not a URL: no provider
  }
  return null;
}

/** The Git module's request-time refusals are the caller's mistakes: 400, with their own words. */
async function checkTarget(context: ServiceContext, body: ImportGitRepositoryBody): Promise<GitSyncTarget> {
  try {
    return await checkGitSyncTarget(
      { url: body.url, ref: body.ref, ...(body.repoProjectDirectory !== undefined ? { repoProjectDirectory: body.repoProjectDirectory } : {}) },
      { allowLocal: context.allowLocalUrls === true },
    );
  } catch (error) {
    if (error instanceof OutboundUrlError) throw new BadRequestError(`body.url: ${error.message}`);
    if (error instanceof GitError && error.code === 'invalid-ref') throw new BadRequestError(`body.ref: ${error.message}`);
    if (error instanceof GitError && error.code === 'invalid-path') throw new BadRequestError(`body.repoProjectDirectory: ${error.message}`);
    throw error;
  }
}

function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/** Optional URLs that are only ever shown: they must not carry credentials, which would then be shown too. */
function checkDisplayedUrls(body: ImportGitRepositoryBody): void {
  const shown: [string, string | undefined][] = [
    ['body.gitInfo.url', body.gitInfo?.url],
    ['body.repoTreeURL', body.repoTreeURL],
    ['body.repoCommitURL', body.repoCommitURL],
  ];
  for (const [field, url] of shown) {
    if (url !== undefined && hasCredentials(url)) throw new BadRequestError(`${field} must not contain credentials`);
  }
}

/**
 * Copies the space's Git sync state and its latest operation onto the space row (or clears the copy), so
 * that a space read presents `gitSync` without another query. Called in every transaction that changes
 * either.
 */
export async function refreshSpaceGitSync(tx: ServiceContext, spaceId: string): Promise<void> {
  const state = await findGitSyncState(tx.db, spaceId);
  if (!state) {
    await updateSpace(tx.db, spaceId, { git_sync: null });
    return;
  }
  const operation = state.operation_id ? await findGitSyncOperation(tx.db, state.operation_id) : undefined;
  const copy: SpaceGitSyncCopy = { state, operation: operation ?? null };
  await updateSpace(tx.db, spaceId, { git_sync: JSON.stringify(copy) });
}

async function queueOperation(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  direction: 'import' | 'export',
  body: ImportGitRepositoryBody & { commitMessage?: string },
): Promise<void> {
  // Visibility and permission first, so that nobody learns anything about URLs on a space they cannot sync.
  assertSpacePermission(await requireSpace(context, caller, spaceId), 'triggerGitSync');
  checkDisplayedUrls(body);
  const target = await checkTarget(context, body);
  if (body.gitInfo?.provider !== undefined && body.gitInfo.provider !== 'github' && body.gitInfo.provider !== 'gitlab') {
    throw new BadRequestError('body.gitInfo.provider must be github or gitlab');
  }
  const split = splitCredentials(body.url);
  const operationId = newId();
  // Sealed before the transaction: the key may have to be made and stored first, which must not depend on
  // (or be rolled back with) this request.
  const credentials = split.username !== undefined || split.password !== undefined
    ? await sealCredentials(context.db, { ...(split.username !== undefined ? { username: split.username } : {}), ...(split.password !== undefined ? { password: split.password } : {}) }, operationId)
    : undefined;
  const timestamp = body.timestamp === undefined ? undefined : new Date(body.timestamp).toISOString();
  const standalone = body.standalone === true;
  const force = body.force === true;

  await inTransaction(context, async (tx) => {
    assertSpacePermission(await requireSpace(tx, caller, spaceId), 'triggerGitSync');
    const state = await findGitSyncState(tx.db, spaceId);
    if (isStale(state, timestamp)) throw new ConflictError(staleMessage(state));
    const now = nowIso();
    const payload: GitSyncJobPayload = {
      operationId,
      spaceId,
      direction,
      url: target.url,
      ...(credentials ? { credentials } : {}),
      ref: body.ref,
      ...(target.projectDirectory !== '' ? { repoProjectDirectory: target.projectDirectory } : {}),
      ...(body.repoCommitURL ? { repoCommitURL: body.repoCommitURL } : {}),
      ...(timestamp ? { timestamp } : {}),
      force,
      standalone,
      ...(body.commitMessage !== undefined ? { commitMessage: body.commitMessage } : {}),
    };
    // A Git failure (bad credentials, missing branch...) is recorded on the operation and not retried: a retry
    // would fail the same way. Only an unexpected error (the database went away) or a dead worker runs the
    // job again, and the handler picks up safely where the operation stands.
    const jobId = await enqueueJob(tx.db, direction === 'import' ? GIT_IMPORT_JOB : GIT_EXPORT_JOB, payload, { maxAttempts: 3 });
    const operation: GitSyncOperationRow = {
      id: operationId,
      space_id: spaceId,
      direction,
      state: 'running',
      standalone: standalone ? 1 : 0,
      force: force ? 1 : 0,
      url: target.url,
      ref: body.ref,
      timestamp: timestamp ?? null,
      job_id: jobId,
      created_by: caller.user.id,
      started_at: now,
      ended_at: null,
      error: null,
      commit_oid: null,
      revision_id: null,
    };
    await insertGitSyncOperation(tx.db, operation);
    const base: GitSyncStateRow = state ?? {
      space_id: spaceId, url: null, ref: null, project_directory: null, provider: null, repo_name: null, repo_tree_url: null,
      repo_commit_url: null, commit_oid: null, revision_id: null, last_timestamp: null, operation_id: null, updated_at: now,
    };
    const relinked = !standalone && (base.url !== target.url || base.ref !== body.ref || (base.project_directory ?? '') !== target.projectDirectory);
    const next: GitSyncStateRow = { ...base, operation_id: operationId, updated_at: now };
    if (!standalone) {
      const shownUrl = body.gitInfo?.url ?? target.url;
      Object.assign(next, {
        url: target.url,
        ref: body.ref,
        project_directory: target.projectDirectory === '' ? null : target.projectDirectory,
        provider: providerOf(shownUrl, body.gitInfo?.provider) ?? (relinked ? null : base.provider),
        repo_name: repositoryName(shownUrl) ?? null,
        repo_tree_url: body.repoTreeURL ?? (relinked ? null : base.repo_tree_url),
        repo_commit_url: body.repoCommitURL ?? (relinked ? null : base.repo_commit_url),
      });
      // Another repository or branch: the commit the space matched is not one of its commits.
      if (relinked) Object.assign(next, { commit_oid: null, revision_id: null });
    }
    await saveGitSyncState(tx.db, next);
    await refreshSpaceGitSync(tx, spaceId);
  });
}

export async function importGitRepository(context: ServiceContext, caller: Caller, spaceId: string, body: ImportGitRepositoryBody): Promise<void> {
  await queueOperation(context, caller, spaceId, 'import', body);
}

export async function exportToGitRepository(context: ServiceContext, caller: Caller, spaceId: string, body: ExportGitRepositoryBody): Promise<void> {
  if (body.commitMessage.trim() === '') throw new BadRequestError('body.commitMessage must not be blank');
  await queueOperation(context, caller, spaceId, 'export', body);
}

export interface GitSyncInfo {
  state: GitSyncStateRow;
  operation: GitSyncOperationRow | undefined;
}

export async function getSpaceGitInfo(context: ServiceContext, caller: Caller, spaceId: string): Promise<GitSyncInfo> {
  assertSpacePermission(await requireSpace(context, caller, spaceId), 'view');
  const state = await findGitSyncState(context.db, spaceId);
  if (!state) throw new NotFoundError('This space has never been synchronized with a Git repository');
  const operation = state.operation_id ? await findGitSyncOperation(context.db, state.operation_id) : undefined;
  return { state, operation };
}

/**
 * Unlinks the space from its repository: its sync settings and state go (so `getSpaceGitInfo` answers 404
 * and `gitSync` is absent, and it can be set up again from scratch); its content and the log of past
 * operations stay. Quire's only kind of installation is the URL-based one, which this removes.
 */
export async function deleteLegacyGitInstallation(context: ServiceContext, caller: Caller, spaceId: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    assertSpacePermission(await requireSpace(tx, caller, spaceId), 'triggerGitSync');
    await deleteGitSyncState(tx.db, spaceId);
    await updateSpace(tx.db, spaceId, { git_sync: null });
  });
}
