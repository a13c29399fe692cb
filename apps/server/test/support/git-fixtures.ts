/**
 * Test fixtures for Git sync (the unit tests of src/git/ and test/git-sync.test.ts): repositories made with the system
 * git, and a Git smart-HTTP server with basic authentication - `git http-backend` behind a small node:http
 * CGI bridge on 127.0.0.1 - so clone and push run over the same transport as with a real Git host.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ImportedPage } from '../../src/git/types.js';

const cleanEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
});

/** Runs git for a fixture (not through runGit: fixtures must not depend on the code under test). */
export function git(args: string[], cwd?: string): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], {
    cwd,
    env: cleanEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export type FixtureFile = string | Buffer | { symlink: string };
export type FixtureFiles = Record<string, FixtureFile>;

async function writeFixture(dir: string, files: FixtureFiles): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    if (typeof content === 'object' && !Buffer.isBuffer(content)) await symlink(content.symlink, target);
    else await writeFile(target, content);
  }
}

/** Creates `<parent>/<name>.git`, a bare repository whose `branch` holds `files` in one commit. */
export async function makeBareRepo(
  parent: string,
  name: string,
  files: FixtureFiles,
  options: { branch?: string; message?: string } = {},
): Promise<{ path: string; fileUrl: string; oid: string }> {
  const path = join(parent, `${name}.git`);
  git(['init', '-q', '--bare', '--initial-branch=main', path]);
  const oid = await commitToBare(path, options.branch ?? 'main', files, options.message ?? 'Initial content');
  return { path, fileUrl: pathToFileURL(path).href, oid };
}

/** Creates an empty bare repository (no branch at all). */
export function makeEmptyBareRepo(parent: string, name: string): { path: string; fileUrl: string } {
  const path = join(parent, `${name}.git`);
  git(['init', '-q', '--bare', '--initial-branch=main', path]);
  return { path, fileUrl: pathToFileURL(path).href };
}

/** Adds a commit to `branch` of a bare repository (creating the branch if needed); returns its oid. */
export async function commitToBare(bare: string, branch: string, files: FixtureFiles, message: string, remove: string[] = []): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'quire-fixture-'));
  try {
    const exists = git(['ls-remote', '--heads', bare, `refs/heads/${branch}`]).trim() !== '';
    if (exists) git(['clone', '-q', '--branch', branch, bare, work]);
    else git(['init', '-q', `--initial-branch=${branch}`, work]);
    for (const path of remove) git(['rm', '-q', '--', path], work);
    await writeFixture(work, files);
    git(['add', '-A'], work);
    git(['commit', '-q', '--allow-empty', '-m', message], work);
    git(['push', '-q', bare, `HEAD:refs/heads/${branch}`], work);
    return git(['rev-parse', 'HEAD'], work).trim();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The files of a branch, read from a bare repository: path -> content (utf8). */
export function filesOf(bare: string, branch: string): Map<string, string> {
  const files = new Map<string, string>();
  const listing = git(['ls-tree', '-r', '-z', '--name-only', `refs/heads/${branch}`], bare);
  for (const path of listing.split('\0').filter(Boolean)) {
    files.set(path, git(['show', `refs/heads/${branch}:${path}`], bare));
  }
  return files;
}

export interface GitHttpServer {
  port: number;
  /** URL of a repository under the root, with `user:password@` when credentials are given. */
  url(name: string, credentials?: { username: string; password: string }, host?: string): string;
  /** Every request: method, path and whether it carried the right credentials. */
  requests: { method: string; path: string; authorized: boolean }[];
  /** Runs before the server answers the ref advertisement of a push (to move the branch under it). */
  beforeReceivePack?: () => Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the bare repositories under `root` over smart HTTP. Every request needs basic auth with
 * `username`/`password` (401 otherwise, like a private repository on a Git host); `/stall/...` never answers
 * and `/moved/<x>` redirects to `/<x>`.
 */
export async function startGitHttpServer(root: string, username: string, password: string): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const state: GitHttpServer = {
    port: 0,
    url: () => '',
    requests: [],
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const authorized = req.headers.authorization === expected;
    state.requests.push({ method: req.method ?? 'GET', path: url.pathname, authorized });
    if (url.pathname.startsWith('/stall/')) return;
    if (url.pathname.startsWith('/moved/')) {
      // A redirect git must not follow: it would take git past the URL guard.
      res.writeHead(302, { location: `${url.pathname.slice('/moved'.length)}${url.search}` }).end();
      return;
    }
    if (!authorized) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="quire-test"' }).end('unauthorized');
      return;
    }
    void (async () => {
      if (url.searchParams.get('service') === 'git-receive-pack' && state.beforeReceivePack) {
        const hook = state.beforeReceivePack;
        state.beforeReceivePack = undefined;
        await hook();
      }
      const child = spawn('git', ['http-backend'], {
        env: {
          ...cleanEnv(),
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: '1',
          REQUEST_METHOD: req.method ?? 'GET',
          PATH_INFO: decodeURIComponent(url.pathname),
          QUERY_STRING: url.search.replace(/^\?/, ''),
          CONTENT_TYPE: req.headers['content-type'] ?? '',
          // http-backend enables pushes only for authenticated users.
          REMOTE_USER: username,
          REMOTE_ADDR: '127.0.0.1',
          ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
          ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        },
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      req.pipe(child.stdin);
      let head = Buffer.alloc(0);
      let headersDone = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (headersDone) {
          res.write(chunk);
          return;
        }
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n') !== -1 ? head.indexOf('\r\n\r\n') : head.indexOf('\n\n');
        if (end === -1) return;
        const separator = head.indexOf('\r\n\r\n') !== -1 ? 4 : 2;
        let status = 200;
        const headers: Record<string, string> = {};
        for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
          const colon = line.indexOf(':');
          const key = line.slice(0, colon).trim().toLowerCase();
          const value = line.slice(colon + 1).trim();
          if (key === 'status') status = Number.parseInt(value, 10);
          else if (key) headers[key] = value;
        }
        headersDone = true;
        res.writeHead(status, headers);
        res.write(head.subarray(end + separator));
      });
      child.on('close', () => res.end());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = (name, credentials, host = '127.0.0.1') => {
    const auth = credentials ? `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@` : '';
    return `http://${auth}${host}:${state.port}/${name}.git`;
  };
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** The tree without git references, for comparing structure and content. */
export function shape(pages: readonly ImportedPage[]): unknown[] {
  return pages.map(({ git: _git, children, ...page }) => ({ ...page, children: shape(children) }));
}

export const SUMMARY_REPO: FixtureFiles = {
  'README.md':
    '# Welcome\n\nStart with [installing](guide/install.md#requirements), see the ![logo](.gitbook/assets/logo.png).\n',
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Welcome](README.md)',
    '* [Guide](guide/README.md)',
    '  * [Install](guide/install.md)',
    '  * [Configure](guide/configure/README.md)',
    '    * [Advanced](guide/configure/advanced.md)',
    '* [Missing page](guide/missing.md)',
    '',
    '## Reference <a href="#api-reference" id="api-reference"></a>',
    '',
    '* [REST API](reference/rest.md)',
    '* [Status page](https://status.example.com)',
    '* Topics',
    '  * [Errors](reference/errors.md)',
    '',
  ].join('\n'),
  'guide/README.md':
    '---\ndescription: How to use it\nicon: book\nhidden: true\n---\n\n# The guide\n\nBack [home](../README.md). Next: [advanced](configure/advanced.md).\n',
  'guide/install.md': '# Install\n\n## Requirements\n\nCode:\n\n```md\n[not rewritten](../README.md)\n```\n',
  'guide/configure/README.md': '# Configure\n\nSee [REST](../../reference/rest.md) and [site](https://example.com).\n',
  'guide/configure/advanced.md': 'No heading.\r\n',
  'reference/rest.md': '# REST\n\n![diagram](../.gitbook/assets/diagrams/flow.svg)\n',
  'reference/errors.md': '# Errors\n',
  'notes/unlisted.md': '# Not in the summary, so not a page\n',
  '.gitbook/assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
  '.gitbook/assets/diagrams/flow.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
};

export const FOLDER_REPO: FixtureFiles = {
  'README.md': '# Home\n\nSee [the second](2-b.md).\n',
  '2-b.md': '# Second\n',
  '10-a.md': 'no title\n',
  'api/README.md': '# API\n',
  'api/auth.md': '# Auth\n\nBack to [API](README.md) and [home](../README.md).\n',
  'tutorials/basics.md': '# Basics\n',
  'tutorials/advanced/deep.md': '# Deep\n',
  '.github/CONTRIBUTING.md': '# Contributing\n',
  'secret.md': { symlink: '/etc/passwd' },
  'picture.png': Buffer.from([1, 2, 3]),
};

export const ROOT_CONFIG_REPO: FixtureFiles = {
  '.gitbook.yaml': 'root: ./docs/\n\nstructure:\n  readme: intro.md\n  summary: toc.md\n',
  'README.md': '# The repository readme, outside the content root\n',
  'docs/intro.md': '# Introduction\n\nRead [setup](setup.md).\n',
  'docs/toc.md': '* [Intro](intro.md)\n* [Setup](setup.md)\n',
  'docs/setup.md': '# Setup\n\n![](.gitbook/assets/shot.png)\n',
  'docs/.gitbook/assets/shot.png': Buffer.from([9, 9, 9]),
};

export const MONOREPO: FixtureFiles = {
  'README.md': '# Monorepo\n',
  'src/index.js': 'console.log(1);\n',
  'packages/docs/.gitbook.yaml': 'root: ./content/\n',
  'packages/docs/content/README.md': '# Docs home\n\nSee [the guide](guide.md).\n',
  'packages/docs/content/guide.md': '# Guide\n',
  'packages/docs/content/.gitbook/assets/a.txt': 'asset',
};
