import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundUrlError } from '../net/url-guard.js';
import {
  GitError,
  GitLimitError,
  GitTimeoutError,
  branchOfRef,
  openRemote,
  redactSecrets,
  runGit,
  watchDiskUsage,
} from './run-git.js';
import { git, makeBareRepo } from '../../test/support/git-fixtures.js';

/** Command lines of live processes that mention `needle` (read from /proc; nothing is killed). */
async function processesMentioning(needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) found.push(cmdline.replace(/\0/g, ' '));
  }
  return found;
}

describe('openRemote', () => {
  it('splits the credentials off and checks the URL with the guard', async () => {
    const remote = await openRemote('http://alice:p%40ss@127.0.0.1:8080/docs.git', { allowLocal: true });
    expect(remote).toEqual({
      url: 'http://127.0.0.1:8080/docs.git',
      credentials: { username: 'alice', password: 'p@ss' },
      resolvePins: [],
      allowLocal: true,
    });
    await expect(openRemote('http://alice:p%40ss@127.0.0.1:8080/docs.git')).rejects.toBeInstanceOf(OutboundUrlError);
  });

  it('pins host names to the addresses it checked', async () => {
    const remote = await openRemote('https://git.example.test/o/r.git', {
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    });
    expect(remote.resolvePins).toEqual(['git.example.test:443:93.184.215.14,[2606:2800:21f:cb07:6820:80da:af6b:8b2c]']);
    expect((await openRemote('http://[::1]:9000/r.git', { allowLocal: true })).resolvePins).toEqual([]);
  });
});

describe('runGit', () => {
  let dir: string;
  let repo: Awaited<ReturnType<typeof makeBareRepo>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quire-run-git-'));
    repo = await makeBareRepo(dir, 'r', { 'README.md': '# R\n', 'big.bin': Buffer.alloc(300_000, 1) });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('allows the file transport only for local installs', async () => {
    const refused = await runGit(['ls-remote', repo.fileUrl]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GitError);
    expect((refused as GitError).message).toContain("transport 'file' not allowed");
    const listed = await runGit(['ls-remote', repo.fileUrl], { allowLocal: true });
    expect(listed.stdout.toString()).toContain(`${repo.oid}\trefs/heads/main`);
  });

  it('never allows other transports such as ext::, even for local installs', async () => {
    const marker = join(dir, 'pwned');
    const error = await runGit(['ls-remote', `ext::sh -c touch% ${marker}`], { allowLocal: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(existsSync(marker)).toBe(false);
  });

  it('ignores the environment and configuration of the server process', async () => {
    const previous = process.env.GIT_DIR;
    process.env.GIT_DIR = join(dir, 'not-this-one');
    try {
      const { stdout } = await runGit(['rev-parse', '--absolute-git-dir'], { cwd: repo.path });
      expect(stdout.toString().trim()).toBe(repo.path);
    } finally {
      if (previous === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = previous;
    }
  });

  it('kills a command whose output passes the cap', async () => {
    const error = await runGit(['cat-file', 'blob', 'main:big.bin'], { cwd: repo.path, maxOutputBytes: 100_000 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitLimitError);
    expect((error as GitLimitError).code).toBe('output-too-large');
    const { stdout } = await runGit(['cat-file', 'blob', 'main:big.bin'], { cwd: repo.path, maxOutputBytes: 400_000 });
    expect(stdout.length).toBe(300_000);
  });

  describe('against a server that never answers', () => {
    let server: Server;
    let port: number;
    const sockets: Socket[] = [];

    beforeAll(async () => {
      server = createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    it('kills git and its helpers at the time limit', async () => {
      const url = `http://127.0.0.1:${port}/hang.git`;
      const started = Date.now();
      const error = await runGit(['ls-remote', url], { timeoutMs: 800 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GitTimeoutError);
      expect((error as GitError).message).toBe('git ls-remote took longer than the limit of 1 s');
      expect(Date.now() - started).toBeLessThan(5000);
      // git-remote-http is a child of git: killing git alone would leave it hanging on the socket.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await processesMentioning(url)).toEqual([]);
    });
  });

  it('redacts URL user-info and secrets from text', () => {
    expect(redactSecrets("fatal: unable to access 'http://bob:hunter22@h/r.git/': token hunter22", ['hunter22'])).toBe(
      "fatal: unable to access 'http://h/r.git/': token ***",
    );
  });

  it('aborts with the reason given by the watchdog when a folder grows too large', async () => {
    const watched = await mkdtemp(join(dir, 'watched-'));
    const controller = new AbortController();
    const stop = watchDiskUsage(watched, 10_000, controller, 20);
    try {
      await writeFile(join(watched, 'small'), Buffer.alloc(5_000));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(controller.signal.aborted).toBe(false);
      await writeFile(join(watched, 'more'), Buffer.alloc(6_000));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(controller.signal.aborted).toBe(true);
      expect(controller.signal.reason).toBeInstanceOf(GitLimitError);
    } finally {
      stop();
    }
    // A command given that signal fails with the watchdog's error.
    const error = await runGit(['--version'], { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as GitError).code).toBe('repository-too-large');
  });
});

describe('branchOfRef', () => {
  it('accepts full branch refs', async () => {
    expect(await branchOfRef('refs/heads/main')).toBe('main');
    expect(await branchOfRef('refs/heads/release/v2.1')).toBe('release/v2.1');
  });

  it.each(['main', 'refs/tags/v1', 'refs/heads/', 'refs/heads/-rf', 'refs/heads/a..b', 'refs/heads/a b', 'refs/heads/x.lock'])(
    'refuses %s',
    async (ref) => {
      await expect(branchOfRef(ref)).rejects.toMatchObject({ code: 'invalid-ref' });
    },
  );
});

it('the fixture helper and runGit agree on what a repository holds', async () => {
  // Guards the fixtures themselves: if they silently produced empty repositories, other tests would prove little.
  const dir = await mkdtemp(join(tmpdir(), 'quire-fixture-check-'));
  try {
    const repo = await makeBareRepo(dir, 'f', { 'a.md': 'A' });
    expect(git(['ls-tree', '--name-only', 'main'], repo.path).trim()).toBe('a.md');
    expect((await runGit(['cat-file', 'blob', 'main:a.md'], { cwd: repo.path })).stdout.toString()).toBe('A');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
