/**
 * Import: a shallow, bare clone of one branch into a temporary folder (removed afterwards, whatever
 * happens), then the content read from the commit's objects (see repo-content.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { warmMarkdownBatches } from '../content/markdown/index.js';
import type { Resolver } from '../net/url-guard.js';
import { repoPath } from './gitbook-format.js';
import { readRepositoryContent } from './repo-content.js';
import { GitError, branchOfRef, openRemote, runGit, watchDiskUsage, type GitLogEntry, type GitRemote } from './run-git.js';
import { RepoSnapshot, type SnapshotLimits } from './snapshot.js';
import type { ImportedContent } from './types.js';

export interface GitLimits extends SnapshotLimits {
  /** Time limit of each git command (a clone, a push). */
  timeoutMs: number;
}

export const DEFAULT_GIT_LIMITS: GitLimits = {
  maxRepositoryBytes: 200 * 1024 * 1024,
  maxFiles: 20_000,
  maxFileBytes: 25 * 1024 * 1024,
  timeoutMs: 5 * 60_000,
};

export interface GitSyncOptions {
  /** QUIRE_ALLOW_LOCAL_URLS: file URLs and local addresses. */
  allowLocal?: boolean;
  allowedCidrs?: readonly string[];
  resolve?: Resolver;
  limits?: Partial<GitLimits>;
  /** Where temporary clones are made; the system's temporary folder by default. */
  tempDir?: string;
  /** Called for each git command run (arguments never hold credentials). */
  log?: (entry: GitLogEntry) => void;
}

export interface ImportRepositoryInput {
  url: string;
  /** `refs/heads/<branch>`. */
  ref: string;
  repoProjectDirectory?: string;
}

export function limitsOf(options: GitSyncOptions): GitLimits {
  return { ...DEFAULT_GIT_LIMITS, ...options.limits };
}

export async function openSyncRemote(url: string, options: GitSyncOptions): Promise<GitRemote> {
  const guard: Parameters<typeof openRemote>[1] = { allowLocal: options.allowLocal === true };
  if (options.allowedCidrs) guard.allowedCidrs = options.allowedCidrs;
  if (options.resolve) guard.resolve = options.resolve;
  return openRemote(url, guard);
}

export interface GitSyncTarget {
  /** The URL without credentials: what `gitSync.url` shows. */
  url: string;
  branch: string;
  /** Normalized; '' for the repository root. */
  projectDirectory: string;
}

/**
 * Request-time checks of an import or export body, so that a bad URL (OutboundUrlError), ref or project
 * directory (GitError `invalid-ref` / `invalid-path`) is answered with 400 at once instead of failing later
 * in the background job. The job checks again: DNS may have changed since.
 */
export async function checkGitSyncTarget(
  input: { url: string; ref: string; repoProjectDirectory?: string },
  options: GitSyncOptions = {},
): Promise<GitSyncTarget> {
  const branch = await branchOfRef(input.ref);
  const projectDirectory = repoPath(input.repoProjectDirectory ?? '', 'project directory');
  const remote = await openSyncRemote(input.url, options);
  return { url: remote.url, branch, projectDirectory };
}

/** Says which branch was missing, which git's own message does not put plainly. */
export function explainMissingBranch(error: unknown, branch: string, remote: GitRemote): unknown {
  if (error instanceof GitError && error.code === 'branch-not-found') {
    return new GitError('branch-not-found', `The branch "${branch}" does not exist in ${remote.url}`);
  }
  return error;
}

export async function importRepository(input: ImportRepositoryInput, options: GitSyncOptions = {}): Promise<ImportedContent> {
  const limits = limitsOf(options);
  const branch = await branchOfRef(input.ref);
  const projectDir = repoPath(input.repoProjectDirectory ?? '', 'project directory');
  const remote = await openSyncRemote(input.url, options);
  const run = { timeoutMs: limits.timeoutMs, ...(options.log ? { log: options.log } : {}) };

  const work = await mkdtemp(join(options.tempDir ?? tmpdir(), 'quire-import-'));
  try {
    const gitDir = join(work, 'repo.git');
    const controller = new AbortController();
    const stopWatching = watchDiskUsage(work, limits.maxRepositoryBytes, controller);
    try {
      await runGit(
        ['clone', '--bare', '--depth', '1', '--single-branch', '--no-tags', '--branch', branch, '--', remote.url, gitDir],
        { ...run, remote, signal: controller.signal },
      );
    } catch (error) {
      throw explainMissingBranch(error, branch, remote);
    } finally {
      stopWatching();
    }
    const oid = (await runGit(['rev-parse', '--verify', `refs/heads/${branch}^{commit}`], { ...run, cwd: gitDir })).stdout
      .toString('utf8')
      .trim();
    const message = (await runGit(['log', '-1', '--format=%B', oid], { ...run, cwd: gitDir })).stdout.toString('utf8').trimEnd();
    const snapshot = await RepoSnapshot.load(gitDir, oid, limits, run);
    // Many pages are parsed in the batch threads once read: they start meanwhile.
    warmMarkdownBatches([...snapshot.entries.values()].reduce((sum, entry) => sum + (/\.md$/i.test(entry.path) ? entry.size : 0), 0));
    if (projectDir !== '' && ![...snapshot.entries.keys()].some((path) => path.startsWith(`${projectDir}/`))) {
      throw new GitError('invalid-path', `The directory "${projectDir}" does not exist in the branch "${branch}"`);
    }
    const content = await readRepositoryContent(snapshot, projectDir);
    return { commit: { oid, message }, pages: content.pages, files: content.files, reusables: content.reusables, treeDepths: content.treeDepths };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
