/**
 * Running the system `git` on behalf of a user, safely: no shell, a clean environment (no user or system
 * config, no prompts, no credential helpers), only the https/http transports (plus file for local installs),
 * redirects off and libcurl pinned to the addresses the URL guard checked, a time limit that kills the whole
 * process group (git forks helpers such as git-remote-https and index-pack), and an output cap.
 *
 * Credentials from a remote URL reach git only as an `http.extraHeader` set through GIT_CONFIG_* environment
 * variables for that one command: never in argv (visible to every local user in `ps`), never in the remote
 * URL (git would keep it in .git/config and FETCH_HEAD), and every error message is scrubbed of them.
 */
import { spawn } from 'node:child_process';
import { readdir, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOutboundUrl, redactUrl, redactUrlsInText, splitCredentials, type GuardOptions } from '../net/url-guard.js';

export type GitErrorCode =
  | 'command-failed'
  | 'timeout'
  | 'output-too-large'
  | 'authentication-failed'
  | 'repository-not-found'
  | 'branch-not-found'
  | 'push-rejected'
  | 'remote-moved'
  | 'invalid-ref'
  | 'invalid-path'
  | 'repository-too-large'
  | 'too-many-files'
  | 'file-too-large';

/** A Git operation that failed. Messages are safe to show (and to store as `gitSync.operation.error`). */
export class GitError extends Error {
  override readonly name: string = 'GitError';
  readonly code: GitErrorCode;

  constructor(code: GitErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The remote refused the credentials, or wanted some and got none. */
export class GitAuthenticationError extends GitError {
  override readonly name = 'GitAuthenticationError';
  constructor(message: string) {
    super('authentication-failed', message);
  }
}

/** A git command ran past its time limit (`gitSync.operation.state` = `timeout`). */
export class GitTimeoutError extends GitError {
  override readonly name = 'GitTimeoutError';
  constructor(message: string) {
    super('timeout', message);
  }
}

/** The repository is bigger than Quire accepts (size, file count, one file's size, command output). */
export class GitLimitError extends GitError {
  override readonly name = 'GitLimitError';
  constructor(code: 'repository-too-large' | 'too-many-files' | 'file-too-large' | 'output-too-large', message: string) {
    super(code, message);
  }
}

/**
 * An export that would overwrite commits the space has not seen: the branch moved since the space last
 * synced (`remote-moved`, caught before pushing), or while the export ran (`push-rejected`, refused by the
 * remote as a non-fast-forward). Import first, or export with `force`.
 */
export class GitPushRejectedError extends GitError {
  override readonly name = 'GitPushRejectedError';
  constructor(code: 'push-rejected' | 'remote-moved', message: string) {
    super(code, message);
  }
}

export interface GitCredentials {
  username?: string;
  password?: string;
}

/** A remote URL that passed the guard, split from its credentials. */
export interface GitRemote {
  /** The URL without credentials: the only form given to git, stored, logged or answered. */
  url: string;
  credentials?: GitCredentials;
  /** `host:port:address[,address]` entries for libcurl, so git connects to the checked addresses only. */
  resolvePins: string[];
  allowLocal: boolean;
}

/**
 * Checks a Git remote URL with the outbound URL guard (throws `OutboundUrlError`, answered as 400) and
 * separates its credentials. Services call it when a request arrives, so a bad URL is refused at once
 * rather than in the background job.
 */
export async function openRemote(url: string, options: GuardOptions = {}): Promise<GitRemote> {
  const split = splitCredentials(url);
  const checked = await checkOutboundUrl(split.url, options);
  const remote: GitRemote = { url: split.url, resolvePins: [], allowLocal: options.allowLocal === true };
  if (split.username !== undefined || split.password !== undefined) {
    remote.credentials = {};
    if (split.username !== undefined) remote.credentials.username = split.username;
    if (split.password !== undefined) remote.credentials.password = split.password;
  }
  const host = checked.url.hostname;
  if (checked.addresses.length > 0 && !/^[\d.]+$|^\[/.test(host)) {
    const port = checked.url.port || (checked.url.protocol === 'https:' ? '443' : '80');
    const addresses = checked.addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(',');
    remote.resolvePins.push(`${host}:${port}:${addresses}`);
  }
  return remote;
}

export interface GitLogEntry {
  args: string[];
  durationMs: number;
  exitCode: number | null;
}

export interface RunGitOptions {
  cwd?: string;
  /** The remote the command talks to: adds its credentials and address pins to this command only. */
  remote?: GitRemote;
  /** Allow the file transport (local installs and tests); implied by `remote.allowLocal`. */
  allowLocal?: boolean;
  /** Default 5 minutes. */
  timeoutMs?: number;
  /** Largest stdout kept, in bytes; past it the command is killed. Default 64 MiB. */
  maxOutputBytes?: number;
  input?: string | Buffer;
  /** Aborting kills the command; when the reason is a GitError, that error is thrown. */
  signal?: AbortSignal;
  /** Extra `-c key=value` settings (not secret: they appear in argv). */
  config?: Record<string, string>;
  /** Called once per command with its arguments (never holding credentials) and outcome. */
  log?: (entry: GitLogEntry) => void;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
}

const STDERR_KEEP = 64 * 1024;

function secretsOf(remote: GitRemote | undefined): string[] {
  const credentials = remote?.credentials;
  if (!credentials) return [];
  const secrets: string[] = [];
  const { username, password } = credentials;
  if (password && password.length >= 3) secrets.push(password, encodeURIComponent(password));
  // A user name alone is usually a token (`https://<token>@host/...`); next to a password it is just a name.
  if (username && username.length >= 3 && !password) secrets.push(username, encodeURIComponent(username));
  secrets.push(basicAuth(credentials));
  return secrets;
}

function basicAuth(credentials: GitCredentials): string {
  return Buffer.from(`${credentials.username ?? ''}:${credentials.password ?? ''}`).toString('base64');
}

/** Scrubs URL user-info and the given secrets from a text, for errors and logs. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = redactUrlsInText(text);
  for (const secret of secrets) if (secret) result = result.split(secret).join('***');
  return result;
}

function gitEnvironment(remote: GitRemote | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    // Stable English messages: failures are recognised by their text.
    LC_ALL: 'C',
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    // Nothing from the machine's or the user's configuration: no credential helpers, no url.insteadOf
    // rewrites that could bypass the guard, no hooks path, no signing.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: '0',
  };
  if (remote?.credentials) {
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${basicAuth(remote.credentials)}`;
  }
  return env;
}

function configArgs(options: RunGitOptions): string[] {
  const allowFile = options.allowLocal === true || options.remote?.allowLocal === true;
  const settings: [string, string][] = [
    ['protocol.allow', 'never'],
    ['protocol.https.allow', 'always'],
    ['protocol.http.allow', 'always'],
    ['protocol.file.allow', allowFile ? 'always' : 'never'],
    // Git would follow a redirect to anywhere, including a private address the guard never saw.
    ['http.followRedirects', 'false'],
    ['credential.helper', ''],
    ['core.askPass', ''],
    ['commit.gpgSign', 'false'],
    ['advice.detachedHead', 'false'],
  ];
  for (const pin of options.remote?.resolvePins ?? []) settings.push(['http.curloptResolve', pin]);
  for (const [key, value] of Object.entries(options.config ?? {})) settings.push([key, value]);
  return settings.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
}

/** Runs `git <args>` and resolves with its output; rejects with a GitError whose message is safe to show. */
export function runGit(args: string[], options: RunGitOptions = {}): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024 * 1024;
  const secrets = secretsOf(options.remote);
  const argv = [...configArgs(options), ...args];
  const command = args.find((arg) => !arg.startsWith('-')) ?? 'git';
  const started = Date.now();

  return new Promise<GitResult>((resolve, reject) => {
    const child = spawn('git', argv, {
      cwd: options.cwd,
      env: gitEnvironment(options.remote),
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so a timeout can kill git's helpers along with it.
      detached: true,
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: GitError | undefined;
    let settled = false;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const fail = (error: GitError) => {
      failure ??= error;
      killGroup();
    };
    const timer = setTimeout(
      () => fail(new GitTimeoutError(`git ${command} took longer than the limit of ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
    const onAbort = () => {
      const reason: unknown = options.signal?.reason;
      fail(reason instanceof GitError ? reason : new GitError('command-failed', `git ${command} was cancelled`));
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxOutputBytes) {
        fail(new GitLimitError('output-too-large', `git ${command} produced more than ${maxOutputBytes} bytes of output`));
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });
    child.stdin.on('error', () => {
      // git may exit before reading all of its input; the exit code tells what happened.
    });
    child.stdin.end(options.input);

    const finish = (exitCode: number | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      options.log?.({ args: argv, durationMs: Date.now() - started, exitCode });
      const safeStderr = redactSecrets(stderr, secrets);
      if (spawnError) {
        reject(new GitError('command-failed', `Could not run git: ${redactSecrets(spawnError.message, secrets)}`));
      } else if (failure) {
        reject(failure);
      } else if (exitCode !== 0) {
        reject(classifyFailure(command, safeStderr, options.remote));
      } else {
        resolve({ stdout: Buffer.concat(stdout), stderr: safeStderr });
      }
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code));
  });
}

/** The last meaningful lines of git's error output, for a message a person can act on. */
function gist(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('hint:'));
  const fatal = lines.filter((line) => /^(fatal|error):/.test(line));
  return (fatal.length > 0 ? fatal : lines).slice(-3).join(' ').slice(0, 1000);
}

function classifyFailure(command: string, stderr: string, remote: GitRemote | undefined): GitError {
  const where = remote ? redactUrl(remote.url) : 'the repository';
  if (
    /Authentication failed|could not read (Username|Password)|returned error: 40[13]\b|terminal prompts disabled/i.test(stderr)
  ) {
    return new GitAuthenticationError(
      remote?.credentials
        ? `Authentication to ${where} failed: the credentials in the URL were refused`
        : `Authentication to ${where} failed: the repository needs credentials (put them in the URL: https://user:token@host/...)`,
    );
  }
  if (/Remote branch .* not found|couldn't find remote ref/i.test(stderr)) {
    return new GitError('branch-not-found', `The branch does not exist in ${where}`);
  }
  if (/repository '.*' not found|does not appear to be a git repository|returned error: 404\b|not found: did you run git update-server-info/i.test(stderr)) {
    return new GitError('repository-not-found', `No Git repository at ${where}`);
  }
  if (/returned error: 30[1278]\b/.test(stderr)) {
    return new GitError(
      'command-failed',
      `${where} answered with a redirect, which Quire does not follow for Git (it could lead past the URL checks); use the repository's final URL`,
    );
  }
  if (/\[rejected\]|\[remote rejected\]|non-fast-forward|fetch first|failed to push some refs/i.test(stderr)) {
    return new GitPushRejectedError(
      'push-rejected',
      `The push to ${where} was rejected: the branch has commits that are not in the space. Import them first, or export with force (${gist(stderr)})`,
    );
  }
  return new GitError('command-failed', `git ${command} failed: ${gist(stderr) || 'no error output'}`);
}

/** The branch name of a full ref (`refs/heads/main` -> `main`), checked like git checks ref names. */
export async function branchOfRef(ref: string): Promise<string> {
  const match = /^refs\/heads\/(.+)$/.exec(ref);
  const branch = match?.[1];
  if (!branch || branch.startsWith('-')) {
    throw new GitError('invalid-ref', `"${ref}" is not a branch ref; write it as refs/heads/<branch>`);
  }
  try {
    await runGit(['check-ref-format', ref], { timeoutMs: 10_000 });
  } catch {
    throw new GitError('invalid-ref', `"${ref}" is not a valid branch name`);
  }
  return branch;
}

/** Bytes used by a directory tree (not following symlinks), for watching a clone as it downloads. */
export async function directorySize(path: string): Promise<number> {
  let total = 0;
  const stack = [path];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // Git creates and renames files while we look; a vanished folder is fine.
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else {
        try {
          total += (await lstat(full)).size;
        } catch {
          // Same: renamed under us.
        }
      }
    }
  }
  return total;
}

/**
 * Watches the disk used under `path` while a command runs; aborts `controller` with a GitLimitError when it
 * passes `maxBytes`. A shallow clone's download cannot be capped by git itself, so this is the cap.
 */
export function watchDiskUsage(path: string, maxBytes: number, controller: AbortController, intervalMs = 200): () => void {
  let stopped = false;
  let running = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = true;
    void directorySize(path)
      .then((size) => {
        if (!stopped && size > maxBytes) {
          controller.abort(
            new GitLimitError('repository-too-large', `The repository is larger than the limit of ${maxBytes} bytes`),
          );
        }
      })
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
