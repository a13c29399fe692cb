/**
 * Git sync over smart HTTP with basic authentication, against `git http-backend` (test/support/git-fixtures.ts): the way
 * a private repository on a Git host is reached, credentials in the URL included.
 */
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundUrlError } from '../net/url-guard.js';
import { exportRepository } from './export.js';
import { importRepository } from './import.js';
import { GitAuthenticationError, GitError, GitPushRejectedError, GitTimeoutError, type GitLogEntry } from './run-git.js';
import {
  SUMMARY_REPO,
  commitToBare,
  filesOf,
  git,
  makeBareRepo,
  makeEmptyBareRepo,
  shape,
  startGitHttpServer,
  type GitHttpServer,
} from '../../test/support/git-fixtures.js';
import type { ExportContent } from './types.js';

const USER = 'quire-bot';
const PASSWORD = 'S3cret:p@ss/word';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const main = 'refs/heads/main';
const CONTENT: ExportContent = {
  pages: [{ title: 'Home', slug: 'home', markdown: 'Hello\n' }, { title: 'Next', slug: 'next', markdown: 'More\n' }],
};

/** Every file under a folder, with its content, to look for leaked secrets. */
async function allFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, entry);
    if ((await stat(path)).isFile()) files.set(entry, await readFile(path, 'latin1'));
  }
  return files;
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(encodeURIComponent(PASSWORD));
  expect(text).not.toContain(BASIC);
}

describe('Git sync over HTTP with basic authentication', () => {
  let root: string;
  let server: GitHttpServer;
  let sourcePath: string;
  const good = { username: USER, password: PASSWORD };
  const bad = { username: USER, password: 'wrong-password' };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'quire-git-http-'));
    sourcePath = (await makeBareRepo(root, 'docs', SUMMARY_REPO)).path;
    server = await startGitHttpServer(root, USER, PASSWORD);
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('imports with the credentials of the URL, like from a local repository', async () => {
    const overHttp = await importRepository({ url: server.url('docs', good), ref: main }, { allowLocal: true });
    const local = await importRepository({ url: `file://${sourcePath}`, ref: main }, { allowLocal: true });
    expect(shape(overHttp.pages)).toEqual(shape(local.pages));
    expect(overHttp.commit).toEqual(local.commit);
    // The fixture server really demanded the credentials: every request it served carried them.
    expect(server.requests.filter((r) => r.path.startsWith('/docs.git')).every((r) => r.authorized)).toBe(true);
  });

  it('exports with the credentials of the URL, storing and logging them nowhere', async () => {
    makeEmptyBareRepo(root, 'target');
    const workDir = join(root, 'work-target');
    const log: GitLogEntry[] = [];
    const result = await exportRepository({ url: server.url('target', good), ref: main, commitMessage: 'Over HTTP' }, CONTENT, {
      allowLocal: true,
      workDir,
      log: (entry) => log.push(entry),
    });
    expect(result.oid).toBe(git(['rev-parse', 'main'], join(root, 'target.git')).trim());
    expect([...filesOf(join(root, 'target.git'), 'main').keys()].sort()).toEqual([
      '.gitbook.yaml',
      'README.md',
      'SUMMARY.md',
      'next.md',
    ]);

    expect(git(['config', '--get', 'remote.origin.url'], workDir).trim()).toBe(server.url('target'));
    for (const [path, content] of await allFiles(workDir)) {
      expect({ path, leaked: content.includes(PASSWORD) || content.includes(BASIC) }).toEqual({ path, leaked: false });
    }
    // What runGit reports as its command lines (what `ps` shows) holds no credentials either.
    expect(log.map((entry) => entry.args.join(' ')).join('\n')).toContain('push');
    expectNoSecret(JSON.stringify(log));
  });

  it('also clones the branch it updates, over HTTP', async () => {
    const target = await makeBareRepo(root, 'existing', { 'README.md': '# Old\n', 'old.md': '# Old page\n', 'SUMMARY.md': '* [Old](README.md)\n* [Old page](old.md)\n' });
    const result = await exportRepository({ url: server.url('existing', good), ref: main, commitMessage: 'Update' }, CONTENT, {
      allowLocal: true,
    });
    expect(git(['rev-parse', 'main~1'], target.path).trim()).toBe(target.oid);
    expect(result.oid).toBe(git(['rev-parse', 'main'], target.path).trim());
    expect([...filesOf(target.path, 'main').keys()].sort()).toEqual(['.gitbook.yaml', 'README.md', 'SUMMARY.md', 'next.md']);
  });

  it('fails clearly on a wrong password, without repeating it', async () => {
    const error = await importRepository({ url: server.url('docs', bad), ref: main }, { allowLocal: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitAuthenticationError);
    expect((error as Error).message).toBe(`Authentication to ${server.url('docs')} failed: the credentials in the URL were refused`);
    expect((error as Error).message).not.toContain('wrong-password');

    const exportError = await exportRepository({ url: server.url('target', bad), ref: main, commitMessage: 'x' }, CONTENT, {
      allowLocal: true,
    }).catch((e: unknown) => e);
    expect(exportError).toBeInstanceOf(GitAuthenticationError);
    expect(String(exportError)).not.toContain('wrong-password');
  });

  it('says the repository needs credentials when the URL has none', async () => {
    const error = await importRepository({ url: server.url('docs'), ref: main }, { allowLocal: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitAuthenticationError);
    expect((error as Error).message).toContain('the repository needs credentials');
  });

  it('keeps the credentials out of other errors too', async () => {
    const error = await importRepository({ url: server.url('docs', good), ref: 'refs/heads/nope' }, { allowLocal: true }).catch(
      (e: unknown) => e,
    );
    expect((error as GitError).code).toBe('branch-not-found');
    expectNoSecret(String(error));
    const missing = await importRepository({ url: server.url('nothing-here', good), ref: main }, { allowLocal: true }).catch(
      (e: unknown) => e,
    );
    expect(missing).toBeInstanceOf(GitError);
    expectNoSecret(String(missing));
  });

  it('connects git to the address the guard checked (a name only the guard can resolve)', async () => {
    // `docs.quire.test` does not exist in DNS: the clone works only if libcurl uses the pinned address.
    const url = server.url('docs', good, 'docs.quire.test');
    const content = await importRepository(
      { url, ref: main },
      { allowedCidrs: ['127.0.0.1/32'], resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
    );
    expect(content.pages[0]?.title).toBe('Welcome');
  });

  it('refuses the local server without allowLocal, before any request', async () => {
    const before = server.requests.length;
    const error = await importRepository({ url: server.url('docs', good), ref: main }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundUrlError);
    expect((error as Error).message).toBe(
      'URL points to a loopback address (127.0.0.1); set QUIRE_ALLOW_LOCAL_URLS=true to allow it',
    );
    expect(server.requests.length).toBe(before);
  });

  it('does not let git follow redirects, which would bypass the guard', async () => {
    // /moved/docs.git redirects to /docs.git on the same server: harmless here, but git must not follow it.
    const error = await importRepository({ url: `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}/moved/docs.git`, ref: main }, {
      allowLocal: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toBe(
      `http://127.0.0.1:${server.port}/moved/docs.git answered with a redirect, which Quire does not follow for Git ` +
        "(it could lead past the URL checks); use the repository's final URL",
    );
    expect(server.requests.some((r) => r.path === '/moved/docs.git/info/refs')).toBe(true);
    expectNoSecret(String(error));
  });

  it('times out on a server that stops answering', async () => {
    const started = Date.now();
    const error = await importRepository({ url: `http://127.0.0.1:${server.port}/stall/docs.git`, ref: main }, {
      allowLocal: true,
      limits: { timeoutMs: 1000 },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitTimeoutError);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('reports a push rejected because the branch moved during the export, and force overwrites', async () => {
    const target = await makeBareRepo(root, 'racing', { 'README.md': '# Start\n' });
    let moved = '';
    server.beforeReceivePack = async () => {
      moved = await commitToBare(target.path, 'main', { 'theirs.md': '# Pushed meanwhile\n' }, 'Concurrent edit');
    };
    const error = await exportRepository({ url: server.url('racing', good), ref: main, commitMessage: 'Ours' }, CONTENT, {
      allowLocal: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitPushRejectedError);
    expect((error as GitPushRejectedError).code).toBe('push-rejected');
    expect((error as Error).message).toContain(`The push to ${server.url('racing')} was rejected`);
    expectNoSecret(String(error));
    expect(moved).not.toBe('');
    expect(git(['rev-parse', 'main'], target.path).trim()).toBe(moved);

    const forced = await exportRepository({ url: server.url('racing', good), ref: main, commitMessage: 'Ours', force: true }, CONTENT, {
      allowLocal: true,
    });
    expect(git(['rev-parse', 'main'], target.path).trim()).toBe(forced.oid);
  });
});
