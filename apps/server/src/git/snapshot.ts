/**
 * The files of one commit, read from Git objects rather than from a checkout: a repository may hold symlinks
 * (`README.md -> /etc/passwd`), and reading a working tree would follow them out of the clone. Objects are
 * just bytes. Symlinks and submodules are skipped.
 */
import { GitLimitError, GitError, runGit, type RunGitOptions } from './run-git.js';

export interface SnapshotEntry {
  path: string;
  oid: string;
  size: number;
}

export interface SnapshotLimits {
  /** Sum of the sizes of all files of the commit. */
  maxRepositoryBytes: number;
  /** Number of files (and symlinks, submodules) in the commit. */
  maxFiles: number;
  /** Size of one file Quire reads (a page or an asset). */
  maxFileBytes: number;
}

export class RepoSnapshot {
  readonly entries: ReadonlyMap<string, SnapshotEntry>;
  private readonly gitDir: string;
  private readonly limits: SnapshotLimits;
  private readonly runOptions: RunGitOptions;

  private constructor(gitDir: string, entries: Map<string, SnapshotEntry>, limits: SnapshotLimits, runOptions: RunGitOptions) {
    this.gitDir = gitDir;
    this.entries = entries;
    this.limits = limits;
    this.runOptions = runOptions;
  }

  /** Lists the files of `commit` in the repository at `gitDir`, enforcing the count and size limits. */
  static async load(gitDir: string, commit: string, limits: SnapshotLimits, runOptions: RunGitOptions = {}): Promise<RepoSnapshot> {
    const { stdout } = await runGit(['ls-tree', '-r', '-l', '-z', '--full-tree', commit], { ...runOptions, cwd: gitDir });
    const entries = new Map<string, SnapshotEntry>();
    let count = 0;
    let total = 0;
    for (const record of stdout.toString('utf8').split('\0')) {
      if (record === '') continue;
      count += 1;
      if (count > limits.maxFiles) {
        throw new GitLimitError('too-many-files', `The repository has more than ${limits.maxFiles} files`);
      }
      // `<mode> <type> <oid> <size padded>\t<path>`
      const tab = record.indexOf('\t');
      const [mode = '', type = '', oid = '', size = ''] = record.slice(0, tab).split(/ +/);
      const path = record.slice(tab + 1);
      if (type !== 'blob' || (mode !== '100644' && mode !== '100755')) continue;
      const bytes = Number(size);
      total += bytes;
      if (total > limits.maxRepositoryBytes) {
        throw new GitLimitError('repository-too-large', `The repository is larger than the limit of ${limits.maxRepositoryBytes} bytes`);
      }
      entries.set(path, { path, oid, size: bytes });
    }
    return new RepoSnapshot(gitDir, entries, limits, runOptions);
  }

  has(path: string): boolean {
    return this.entries.has(path);
  }

  /** Reads files in one `git cat-file --batch`; each must be within the per-file limit. */
  async readMany(paths: readonly string[]): Promise<Map<string, Buffer>> {
    const wanted: SnapshotEntry[] = [];
    for (const path of new Set(paths)) {
      const entry = this.entries.get(path);
      if (!entry) throw new GitError('invalid-path', `The repository has no file ${path}`);
      if (entry.size > this.limits.maxFileBytes) {
        throw new GitLimitError('file-too-large', `The file ${path} is larger than the limit of ${this.limits.maxFileBytes} bytes`);
      }
      wanted.push(entry);
    }
    const result = new Map<string, Buffer>();
    if (wanted.length === 0) return result;
    const total = wanted.reduce((sum, entry) => sum + entry.size + 64, 0);
    const { stdout } = await runGit(['cat-file', '--batch'], {
      ...this.runOptions,
      cwd: this.gitDir,
      input: wanted.map((entry) => `${entry.oid}\n`).join(''),
      maxOutputBytes: total + 1024,
    });
    let offset = 0;
    for (const entry of wanted) {
      const newline = stdout.indexOf(0x0a, offset);
      const header = stdout.subarray(offset, newline).toString('utf8').split(' ');
      const size = Number(header[2]);
      if (header[0] !== entry.oid || header[1] !== 'blob' || !Number.isFinite(size)) {
        throw new GitError('command-failed', `git cat-file answered unexpectedly for ${entry.path}`);
      }
      result.set(entry.path, stdout.subarray(newline + 1, newline + 1 + size));
      offset = newline + 1 + size + 1;
    }
    return result;
  }

  async readText(path: string): Promise<string> {
    const bytes = (await this.readMany([path])).get(path);
    return bytes ? bytes.toString('utf8') : '';
  }
}
