import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Revision, Space } from '@quire/api-types';
import { unwrap, type QuireClient } from '@quire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_EXPORT_JOB, GIT_IMPORT_JOB } from '../src/services/git-sync-service.js';
import { SEARCH_REINDEX_JOB } from '../src/services/search-reindex.js';
import {
  MONOREPO,
  SUMMARY_REPO,
  commitToBare,
  filesOf,
  git,
  makeBareRepo,
  makeEmptyBareRepo,
  startGitHttpServer,
  type GitHttpServer,
} from './support/git-fixtures.js';
import { newId } from '../src/ids.js';
import { gitImportJob } from '../src/jobs/git-import-job.js';
import { allJobHandlers } from '../src/jobs/index.js';
import { JobRunner } from '../src/jobs/runner.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { findGitSyncState } from '../src/stores/git-sync-store.js';
import type { JobRow } from '../src/stores/job-store.js';
import { readPageTree, readRevision, type PageWithMarkdown } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace as createSpaceIn, expectError, newMember, newOrg as createOrg, type TestOrg } from './helpers.js';
import { startTestServer, type TestServer } from './server.js';
import {
  countStoredRows,
  storedGitSyncOperations,
  storedJobs,
  storedRevision,
  storedRevisionsOfSpace,
  storedText,
  storedTree,
} from './storage-facts.js';
import { dropJob, setJobsDueAt } from './storage-setup.js';

const USER = 'quire-bot';
const PASSWORD = 'S3cret:p@ss/word';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const MAIN = 'refs/heads/main';

function expectNoSecret(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(encodeURIComponent(PASSWORD));
  expect(text).not.toContain(BASIC);
}

/** A page tree without ids, dates and git locations, with each page's markdown: what a round trip keeps. */
interface PageShape {
  type: string;
  title: string;
  slug?: string;
  markdown: string;
  description?: string;
  icon?: string;
  hidden: boolean;
  href?: string;
  pages: PageShape[];
}

describeEachDialect('git sync', (dialect) => {
  let server: TestServer;
  let runner: JobRunner;
  let dir: string;
  let http: GitHttpServer;
  let docs: Awaited<ReturnType<typeof makeBareRepo>>;

  beforeAll(async () => {
    server = await startTestServer({ dialect });
    runner = new JobRunner({ services: server.running.services, handlers: allJobHandlers(), backoffMs: () => 60_000 });
    dir = await mkdtemp(join(tmpdir(), 'quire-git-sync-test-'));
    docs = await makeBareRepo(dir, 'docs', SUMMARY_REPO, { message: 'Docs\n\nWith a body.' });
    http = await startGitHttpServer(dir, USER, PASSWORD);
  });
  afterAll(async () => {
    await http?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  type Org = TestOrg;

  const newOrg = (title = 'Git org'): Promise<Org> => createOrg(server, title);
  async function member(org: Org, role: RoleOrGuest): Promise<QuireClient> {
    return (await newMember(server, org, role)).client;
  }
  const createSpace = (org: Org, title = 'Docs'): Promise<Space> => createSpaceIn(org, { title });

  const onSpace = (spaceId: string) => ({ params: { path: { spaceId } } });

  function postImport(client: QuireClient, spaceId: string, body: Record<string, unknown>) {
    return client.POST('/spaces/{spaceId}/git/import', { ...onSpace(spaceId), body: body as never });
  }

  function postExport(client: QuireClient, spaceId: string, body: Record<string, unknown>) {
    return client.POST('/spaces/{spaceId}/git/export', { ...onSpace(spaceId), body: body as never });
  }

  async function importNow(org: Org, spaceId: string, body: Record<string, unknown>): Promise<void> {
    const result = await postImport(org.client, spaceId, body);
    expect(result.response.status, JSON.stringify(result.error)).toBe(204);
    await runJobs();
  }

  async function runJobs(): Promise<void> {
    while (await runner.runOnce()) {
      // drain
    }
  }

  async function gitInfo(client: QuireClient, spaceId: string) {
    return unwrap(client.GET('/spaces/{spaceId}/git/info', onSpace(spaceId)));
  }

  async function getSpace(client: QuireClient, spaceId: string): Promise<Space> {
    return unwrap(client.GET('/spaces/{spaceId}', onSpace(spaceId)));
  }

  /** A page tree as a round trip keeps it: no ids, dates or Git locations. */
  function shapeOf(page: PageWithMarkdown): PageShape {
    return {
      type: page.type,
      title: page.title,
      ...(page.slug !== undefined ? { slug: page.slug } : {}),
      markdown: page.markdown,
      ...(page.description ? { description: page.description } : {}),
      ...(page.icon ? { icon: page.icon } : {}),
      hidden: page.hidden,
      ...(page.href ? { href: page.href } : {}),
      pages: page.pages.map(shapeOf),
    };
  }

  /** The space's main content as clients read it, Git metadata included: the revision and its pages' shape. */
  async function mainContent(client: QuireClient, spaceId: string): Promise<{ revision: Revision; shape: PageShape[] }> {
    const revision = await readRevision(client, { spaceId });
    const pages = await readPageTree(client, { spaceId });
    return { revision, shape: pages.map(shapeOf) };
  }

  /** The files of a revision with their bytes, downloaded as clients download them. */
  async function filesWithBytes(revision: Revision) {
    const out = [];
    for (const file of revision.files) {
      const download = await fetch(file.downloadURL.replace(/^https?:\/\/[^/]+/, server.url));
      expect(download.status).toBe(200);
      out.push({ name: file.name, contentType: file.contentType, size: file.size, bytes: Buffer.from(await download.arrayBuffer()) });
    }
    return out;
  }

  /** Every operation of the space, oldest first: storage is the only place that keeps more than the latest. */
  const operations = (spaceId: string) => storedGitSyncOperations(server, spaceId);

  describe('importGitRepository', () => {
    it('imports over HTTP with basic auth: pages, markdown and files, a main revision from the commit, credentials nowhere', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const url = http.url('docs', { username: USER, password: PASSWORD });
      const queued = await postImport(org.client, space.id, { url, ref: MAIN, repoCommitURL: 'https://git.example.com/o/docs/commit' });
      expect(queued.response.status, JSON.stringify(queued.error)).toBe(204);

      // Queued, not run yet: the operation is visible as running, the content has not moved.
      const running = await gitInfo(org.client, space.id);
      expect(running).toMatchObject({ url: http.url('docs'), repoName: 'docs', operation: { state: 'running', direction: 'import' } });
      expect(running.operation?.endedAt).toBeUndefined();
      expect((await getSpace(org.client, space.id)).revision).toBe(space.revision);

      // The job's payload carries the credentials sealed, never in clear: what is stored is the subject.
      const [job] = await storedJobs(server, GIT_IMPORT_JOB, space.id);
      expect(job).toBeDefined();
      expectNoSecret(job!.payload);
      expect(job!.payload).not.toContain(USER);
      expect(JSON.parse(job!.payload)).toMatchObject({ url: http.url('docs'), credentials: expect.stringMatching(/^v1\./) });

      await runJobs();
      const info = await gitInfo(org.client, space.id);
      expect(info).toEqual({
        repoName: 'docs',
        url: http.url('docs'),
        updatedAt: expect.any(String),
        operation: { state: 'success', direction: 'import', startedAt: running.operation!.startedAt, endedAt: expect.any(String) },
      });
      expect(http.requests.some((request) => request.authorized)).toBe(true);
      const after = await getSpace(org.client, space.id);
      expect(after.gitSync).toEqual(info);
      expect(after.revision).not.toBe(space.revision);

      // The content reads show it, Git locations and file bytes included.
      const { revision, shape } = await mainContent(org.client, space.id);
      expect(revision).toMatchObject({ id: after.revision, type: 'computed', parents: [space.revision] });
      expect(revision.git).toEqual({
        oid: docs.oid,
        message: 'Docs\n\nWith a body.',
        createdByService: false,
        url: `https://git.example.com/o/docs/commit/${docs.oid}`,
        ref: MAIN,
      });
      // Who made the revision is stored only: no API object shows it.
      expect((await storedRevision(server, after.revision)).created_by).toBe(org.userId);

      expect(shape.map((page) => [page.type, page.title, page.slug])).toEqual([
        ['document', 'Welcome', 'welcome'],
        ['document', 'Guide', 'guide'],
        ['document', 'Missing page', 'missing'],
        ['group', 'Reference', 'api-reference'],
      ]);
      expect(shape[0]!.markdown).toBe('Start with [installing](/guide/install#requirements), see the ![logo](.gitbook/assets/logo.png).\n');
      expect(shape[1]).toMatchObject({ description: 'How to use it', icon: 'book', hidden: true });
      expect(shape[1]!.pages.map((page) => page.title)).toEqual(['Install', 'Configure']);
      expect(shape[3]!.pages.map((page) => [page.type, page.title])).toEqual([['document', 'REST API'], ['link', 'Status page'], ['group', 'Topics']]);
      expect(shape[3]!.pages[1]!.href).toBe('https://status.example.com');
      expect(revision.pages[0]!.git).toEqual({ oid: expect.stringMatching(/^[0-9a-f]{40}$/), path: 'README.md' });

      expect(revision.files.map((file) => [file.name, file.contentType, file.size])).toEqual([
        ['diagrams/flow.svg', 'image/svg+xml', Buffer.byteLength(SUMMARY_REPO['.gitbook/assets/diagrams/flow.svg'] as string)],
        ['logo.png', 'image/png', 8],
      ]);
      expect(revision.files.find((file) => file.name === 'logo.png')!.git).toEqual({ oid: expect.any(String), path: '.gitbook/assets/logo.png' });
      expect((await filesWithBytes(revision)).find((file) => file.name === 'logo.png')!.bytes).toEqual(SUMMARY_REPO['.gitbook/assets/logo.png']);

      // The space's search index is brought up to date by its own job, queued with the move (in storage).
      expect((await storedJobs(server, SEARCH_REINDEX_JOB, space.id)).length).toBeGreaterThan(0);
      const found = await unwrap(org.client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: space.id }, query: { query: 'requirements' } } }));
      expect(found.items.map((item) => item.title)).toEqual(['Install']);

      // Nothing stored holds the credentials.
      expectNoSecret(await storedText(server, ['jobs', 'git_sync_states', 'git_sync_operations', 'spaces', 'revisions']));
    });

    it('ends as failure on a wrong password, visible in git info, with the space unchanged', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const badPassword = 'not-the-password';
      await importNow(org, space.id, { url: http.url('docs', { username: USER, password: badPassword }), ref: MAIN });
      const info = await gitInfo(org.client, space.id);
      expect(info.operation).toMatchObject({ state: 'failure', direction: 'import', endedAt: expect.any(String) });
      expect(info.operation!.error).toMatch(/credentials in the URL were refused/);
      expect(info.operation!.error).not.toContain(badPassword);
      expect(info.url).toBe(http.url('docs'));
      const after = await getSpace(org.client, space.id);
      expect(after.revision).toBe(space.revision);
      expect(after.gitSync?.operation?.state).toBe('failure');
      // Nothing written: no revision beside the first one.
      expect((await storedRevisionsOfSpace(server, space.id)).map((row) => row.id)).toEqual([space.revision]);
      // A Git failure is the operation's outcome, not the job's: it is not retried (job states are stored only).
      const jobs = await storedJobs(server, GIT_IMPORT_JOB, space.id);
      expect(jobs.map((row) => [row.status, row.attempts])).toEqual([['succeeded', 1]]);
    });

    it('ends as timeout when the repository stops answering', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const stalled = `http://127.0.0.1:${http.port}/stall/docs.git`;
      expect((await postImport(org.client, space.id, { url: stalled, ref: MAIN })).response.status).toBe(204);
      const impatient = new JobRunner({
        services: server.running.services,
        handlers: { ...allJobHandlers(), [GIT_IMPORT_JOB]: gitImportJob({ limits: { timeoutMs: 1000 } }) },
      });
      while (await impatient.runOnce()) {
        // drain
      }
      const info = await gitInfo(org.client, space.id);
      expect(info.operation).toMatchObject({ state: 'timeout', direction: 'import', error: expect.stringMatching(/longer than the limit/) });
      expect((await getSpace(org.client, space.id)).revision).toBe(space.revision);
    });

    it('runs a job again harmlessly (a worker that died after recording), and records a failure after the last attempt', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      await importNow(org, space.id, { url: docs.fileUrl, ref: MAIN });
      const imported = (await getSpace(org.client, space.id)).revision;
      // The job is run again by hand, as a worker that died after recording would: its stored payload is needed.
      const [job] = (await storedJobs(server, GIT_IMPORT_JOB, space.id)) as [JobRow];
      const context = { services: server.running.services, job: { id: job.id, kind: job.kind, attempts: 2, max_attempts: 3 }, signal: new AbortController().signal };
      await gitImportJob()(JSON.parse(job.payload), context);
      expect((await getSpace(org.client, space.id)).revision).toBe(imported);
      // Harmless means nothing written: still the first revision and the imported one.
      expect(await countStoredRows(server, 'revisions', space.id)).toBe(2);

      // Without a blob storage the import cannot store files: an internal error, retried, then recorded.
      const other = await createSpace(org, 'Other');
      expect((await postImport(org.client, other.id, { url: docs.fileUrl, ref: MAIN })).response.status).toBe(204);
      const [queued] = (await storedJobs(server, GIT_IMPORT_JOB, other.id)) as [JobRow];
      const { blobStorage: _blobStorage, ...withoutStorage } = server.running.services;
      const attempt = (attempts: number) => gitImportJob()(JSON.parse(queued.payload), { ...context, services: withoutStorage, job: { ...context.job, attempts } });
      await expect(attempt(1)).rejects.toThrow(/blob storage/);
      expect((await gitInfo(org.client, other.id)).operation?.state).toBe('running');
      await expect(attempt(3)).rejects.toThrow(/blob storage/);
      expect((await gitInfo(org.client, other.id)).operation).toMatchObject({ state: 'failure', error: expect.stringMatching(/internal error/) });
      expect((await getSpace(org.client, other.id)).revision).toBe(other.revision);
      await dropJob(server, queued.id);
    });

    it('fails clearly on a missing branch and keeps the last good content', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      await importNow(org, space.id, { url: docs.fileUrl, ref: MAIN });
      const imported = (await getSpace(org.client, space.id)).revision;
      await importNow(org, space.id, { url: docs.fileUrl, ref: 'refs/heads/nope' });
      const info = await gitInfo(org.client, space.id);
      expect(info.operation).toMatchObject({ state: 'failure', error: expect.stringMatching(/branch "nope" does not exist/) });
      expect((await getSpace(org.client, space.id)).revision).toBe(imported);
    });

    it('does not re-import an unchanged commit unless forced, and imports new commits', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const repo = await makeBareRepo(dir, `again-${newId(6)}`, { 'README.md': '# Home\n\nOne.\n', 'page.md': '# Page\n' });
      await importNow(org, space.id, { url: repo.fileUrl, ref: MAIN });
      const first = await mainContent(org.client, space.id);

      await importNow(org, space.id, { url: repo.fileUrl, ref: MAIN });
      expect((await getSpace(org.client, space.id)).revision).toBe(first.revision.id);
      const ops = await operations(space.id);
      expect(ops.map((op) => [op.state, op.commit_oid, op.revision_id])).toEqual([
        ['success', repo.oid, first.revision.id],
        ['success', repo.oid, first.revision.id],
      ]);

      await importNow(org, space.id, { url: repo.fileUrl, ref: MAIN, force: true });
      const forced = await readRevision(org.client, { spaceId: space.id });
      expect(forced.id).not.toBe(first.revision.id);
      expect(forced.parents).toEqual([first.revision.id]);
      // Same commit, same content: pages keep their ids, and the stored tree its hash (content-addressed).
      expect(forced.pages.map((page) => page.id)).toEqual(first.revision.pages.map((page) => page.id));
      expect((await storedRevision(server, forced.id)).root).toBe((await storedRevision(server, first.revision.id)).root);

      const oid = await commitToBare(repo.path, 'main', { 'page.md': '# Page\n\nChanged.\n' }, 'Change the page');
      await importNow(org, space.id, { url: repo.fileUrl, ref: MAIN });
      const changed = await mainContent(org.client, space.id);
      expect(changed.revision.git?.oid).toBe(oid);
      expect(changed.shape[1]!.markdown).toBe('Changed.\n');
      expect(changed.revision.pages.map((page) => page.id)).toEqual(first.revision.pages.map((page) => page.id));
      expect(changed.revision.pages[0]!.updatedAt).toBe(first.revision.pages[0]!.updatedAt);
    });

    it('honours repoProjectDirectory', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const mono = await makeBareRepo(dir, `mono-${newId(6)}`, MONOREPO);
      await importNow(org, space.id, { url: mono.fileUrl, ref: MAIN, repoProjectDirectory: 'packages/docs' });
      expect((await gitInfo(org.client, space.id)).operation?.state).toBe('success');
      const { revision, shape } = await mainContent(org.client, space.id);
      expect(shape.map((page) => page.title)).toEqual(['Docs home', 'Guide']);
      expect(shape[0]!.markdown).toBe('See [the guide](/guide).\n');
      expect(revision.files.map((file) => file.name)).toEqual(['a.txt']);

      const other = await createSpace(org, 'Missing folder');
      await importNow(org, other.id, { url: mono.fileUrl, ref: MAIN, repoProjectDirectory: 'packages/nothing' });
      expect((await gitInfo(org.client, other.id)).operation).toMatchObject({ state: 'failure', error: expect.stringMatching(/packages\/nothing/) });
    });

    it('with standalone, makes a revision without moving the main content', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      await importNow(org, space.id, { url: docs.fileUrl, ref: MAIN, standalone: true });
      const after = await getSpace(org.client, space.id);
      expect(after.revision).toBe(space.revision);
      // A standalone revision is neither main nor a change request's: only storage shows it.
      const revisions = await storedRevisionsOfSpace(server, space.id);
      expect(revisions).toHaveLength(2);
      const standalone = revisions.find((row) => row.id !== space.revision)!;
      expect(JSON.parse(standalone.parents)).toEqual([space.revision]);
      expect(JSON.parse(standalone.git!).oid).toBe(docs.oid);
      expect((await storedTree(server, standalone.id)).pages[0]!.title).toBe('Welcome');
      // The space did not become linked to the repository; the operation is still reported.
      const info = await gitInfo(org.client, space.id);
      expect(info.url).toBeUndefined();
      expect(info.operation).toMatchObject({ state: 'success', direction: 'import' });
    });

    it('orders operations by timestamp: an older one is refused with 409, or ends as failure when it runs after a newer one', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const repoA = await makeBareRepo(dir, `ts-a-${newId(6)}`, { 'README.md': '# Version A\n' });
      const repoB = await makeBareRepo(dir, `ts-b-${newId(6)}`, { 'README.md': '# Version B\n' });

      await importNow(org, space.id, { url: repoA.fileUrl, ref: MAIN, timestamp: '2026-01-01T10:00:00Z' });
      const applied = await readRevision(org.client, { spaceId: space.id });
      expect(applied.git?.oid).toBe(repoA.oid);

      expectError(await postImport(org.client, space.id, { url: repoB.fileUrl, ref: MAIN, timestamp: '2026-01-01T09:59:59Z' }), 409, /newer Git sync operation/);
      expectError(await postExport(org.client, space.id, { url: repoB.fileUrl, ref: MAIN, commitMessage: 'x', timestamp: '2026-01-01T09:00:00+00:00' }), 409);
      expect(await operations(space.id)).toHaveLength(1);

      // Two operations pass the check when asked for; the newer one runs first, so the older one must not
      // overwrite it when its turn comes.
      expect((await postImport(org.client, space.id, { url: repoB.fileUrl, ref: MAIN, timestamp: '2026-01-01T11:00:00Z' })).response.status).toBe(204);
      expect((await postImport(org.client, space.id, { url: repoA.fileUrl, ref: MAIN, timestamp: '2026-01-01T12:00:00Z', force: true })).response.status).toBe(204);
      const [older, newer] = (await operations(space.id)).slice(1);
      // Time travel: the older job is held back until the newer one has run, then made due.
      await setJobsDueAt(server, [older!.job_id!], new Date('2999-01-01T00:00:00.000Z'));
      await runJobs();
      const afterNewer = await readRevision(org.client, { spaceId: space.id });
      expect(afterNewer.git?.oid).toBe(repoA.oid);
      expect(afterNewer.id).not.toBe(applied.id);

      await setJobsDueAt(server, [older!.job_id!], new Date());
      await runJobs();
      expect((await getSpace(org.client, space.id)).revision).toBe(afterNewer.id);
      const ended = await operations(space.id);
      expect(ended.find((op) => op.id === older!.id)).toMatchObject({ state: 'failure', error: expect.stringMatching(/newer Git sync operation/) });
      expect(ended.find((op) => op.id === newer!.id)).toMatchObject({ state: 'success' });
      // Git info reports the latest operation asked for, the newer one.
      expect((await gitInfo(org.client, space.id)).operation?.state).toBe('success');
      // No timestamp: no ordering.
      expect((await postImport(org.client, space.id, { url: repoB.fileUrl, ref: MAIN })).response.status).toBe(204);
    });

    it('refuses bad URLs, refs and folders with 400 before queuing anything', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      expectError(await postImport(org.client, space.id, { url: 'ftp://example.com/docs.git', ref: MAIN }), 400, /^body\.url: /);
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: 'refs/heads/a..b' }), 400, /^body\.ref: /);
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: 'main' }), 400, /body\.ref/);
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: MAIN, repoProjectDirectory: '../outside' }), 400, /^body\.repoProjectDirectory: /);
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: MAIN, gitInfo: { provider: 'github', url: 'https://u:p@github.com/o/r' } }), 400, /body\.gitInfo\.url must not contain credentials/);
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: MAIN, gitInfo: { provider: 'bitbucket' } }), 400, /body\.gitInfo\.provider/);
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl }), 400, 'body.ref is required');
      expectError(await postImport(org.client, space.id, { ref: MAIN }), 400, 'body.url is required');
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: MAIN, branch: 'x' }), 400, 'body.branch is not allowed');
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: MAIN, timestamp: 'yesterday' }), 400, /body\.timestamp/);
      expectError(await postImport(org.client, space.id, { url: 'x'.repeat(10), ref: MAIN }), 400, /body\.url/);
      expectError(await postImport(org.client, space.id, { url: docs.fileUrl, ref: MAIN, repoCacheID: '' }), 400, /body\.repoCacheID/);
      expect(await operations(space.id)).toEqual([]);
      expectError(await org.client.GET('/spaces/{spaceId}/git/info', onSpace(space.id)), 404, 'This space has never been synchronized with a Git repository');
    });

    it('records the provider and repository name given in gitInfo', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const queued = await postImport(org.client, space.id, { url: docs.fileUrl, ref: MAIN, gitInfo: { provider: 'github', url: 'https://github.com/acme/handbook' } });
      expect(queued.response.status).toBe(204);
      expect(await gitInfo(org.client, space.id)).toMatchObject({ installationProvider: 'github', repoName: 'acme/handbook', url: docs.fileUrl });
    });

    it('answers 401 without a token, 404 for another organization, 403 without triggerGitSync', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const space = await createSpace(org);
      const body = { url: docs.fileUrl, ref: MAIN };
      expectError(await postImport(server.client(), space.id, body), 401);
      expectError(await postImport(other.client, space.id, body), 404);
      expectError(await postImport(org.client, 'doesNotExist', body), 404);
      for (const role of ['read', 'comment'] as const) {
        expectError(await postImport(await member(org, role), space.id, body), 403, /triggerGitSync/);
      }
      expect((await postImport(await member(org, 'edit'), space.id, body)).response.status).toBe(204);
      await runJobs();
      // A locked space refuses content changes, Git imports included.
      await unwrap(org.client.PATCH('/spaces/{spaceId}', { ...onSpace(space.id), body: { editMode: 'locked' } }));
      expectError(await postImport(org.client, space.id, body), 403, /locked/);
    });
  });

  describe('exportToGitRepository', () => {
    it('exports the main content, and re-importing the commit gives the same tree', async () => {
      const org = await newOrg();
      const source = await createSpace(org, 'Source');
      await importNow(org, source.id, { url: docs.fileUrl, ref: MAIN });
      const sourceContent = await mainContent(org.client, source.id);
      const sourceRevision = sourceContent.revision;

      const target = makeEmptyBareRepo(dir, `export-${newId(6)}`);
      const queued = await postExport(org.client, source.id, { url: target.fileUrl, ref: MAIN, commitMessage: 'Export from Quire', timestamp: '2026-02-01T00:00:00Z' });
      expect(queued.response.status, JSON.stringify(queued.error)).toBe(204);
      expect((await gitInfo(org.client, source.id)).operation).toMatchObject({ state: 'running', direction: 'export' });
      await runJobs();
      const info = await gitInfo(org.client, source.id);
      expect(info).toMatchObject({ url: target.fileUrl, operation: { state: 'success', direction: 'export', endedAt: expect.any(String) } });
      const files = filesOf(target.path, 'main');
      expect([...files.keys()]).toEqual(expect.arrayContaining(['README.md', 'SUMMARY.md', 'guide/README.md', '.gitbook/assets/logo.png']));
      const [exported] = await operations(source.id).then((ops) => ops.filter((op) => op.direction === 'export'));
      expect(exported).toMatchObject({ state: 'success', revision_id: sourceRevision.id, commit_oid: expect.stringMatching(/^[0-9a-f]{40}$/) });
      // An export moves no content.
      expect((await getSpace(org.client, source.id)).revision).toBe(sourceRevision.id);

      const copy = await createSpace(org, 'Copy');
      await importNow(org, copy.id, { url: target.fileUrl, ref: MAIN });
      const copyContent = await mainContent(org.client, copy.id);
      expect(copyContent.revision.git).toMatchObject({ oid: exported!.commit_oid, message: 'Export from Quire' });
      expect(copyContent.shape).toEqual(sourceContent.shape);
      expect(await filesWithBytes(copyContent.revision)).toEqual(await filesWithBytes(sourceRevision));

      // Back into the source: the commit is the one it was exported as, so nothing to do without force...
      await importNow(org, source.id, { url: target.fileUrl, ref: MAIN });
      expect((await getSpace(org.client, source.id)).revision).toBe(sourceRevision.id);
      // ...and with force, the same tree again.
      await importNow(org, source.id, { url: target.fileUrl, ref: MAIN, force: true });
      const reimported = await mainContent(org.client, source.id);
      expect(reimported.revision.id).not.toBe(sourceRevision.id);
      expect(reimported.shape).toEqual(sourceContent.shape);
    });

    it('pushes over HTTP with basic auth, and refuses to overwrite commits it has not seen unless forced', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      const name = `push-${newId(6)}`;
      const remote = await makeBareRepo(dir, name, { 'README.md': '# Remote\n\nFrom the repository.\n' });
      const url = http.url(name, { username: USER, password: PASSWORD });
      await importNow(org, space.id, { url, ref: MAIN });
      expect((await gitInfo(org.client, space.id)).operation?.state).toBe('success');

      expect((await postExport(org.client, space.id, { url, ref: MAIN, commitMessage: 'Sync' })).response.status).toBe(204);
      // The stored job holds the credentials sealed only.
      const [job] = await storedJobs(server, GIT_EXPORT_JOB, space.id);
      expectNoSecret(job!.payload);
      await runJobs();
      expect((await gitInfo(org.client, space.id)).operation).toMatchObject({ state: 'success', direction: 'export' });
      const synced = git(['rev-parse', 'main'], remote.path).trim();
      expect(filesOf(remote.path, 'main').get('SUMMARY.md')).toContain('[Remote](README.md)');

      const moved = await commitToBare(remote.path, 'main', { 'README.md': '# Remote\n\nChanged in the repository.\n' }, 'Pushed elsewhere');
      await postExport(org.client, space.id, { url, ref: MAIN, commitMessage: 'Sync again' });
      await runJobs();
      const refused = await gitInfo(org.client, space.id);
      expect(refused.operation).toMatchObject({ state: 'failure', direction: 'export', error: expect.stringMatching(/commits that are not in the space/) });
      expectNoSecret(refused.operation!.error!);
      expect(git(['rev-parse', 'main'], remote.path).trim()).toBe(moved);

      await postExport(org.client, space.id, { url, ref: MAIN, commitMessage: 'Overwrite', force: true });
      await runJobs();
      expect((await gitInfo(org.client, space.id)).operation?.state).toBe('success');
      // Forced: the space's content is written over the change it had not seen.
      expect(filesOf(remote.path, 'main').get('README.md')).toBe('# Remote\n\nFrom the repository.\n');
      const head = git(['rev-parse', 'main'], remote.path).trim();
      expect(git(['rev-parse', 'main~1'], remote.path).trim()).toBe(moved);
      expect(git(['log', '-1', '--format=%B', 'main'], remote.path).trim()).toBe('Overwrite');
      expect((await operations(space.id)).at(-1)).toMatchObject({ state: 'success', commit_oid: head });
      expect(synced).not.toBe(moved);

      const wrong = http.url(name, { username: USER, password: 'wrong-one' });
      await postExport(org.client, space.id, { url: wrong, ref: MAIN, commitMessage: 'Wrong' });
      await runJobs();
      expect((await gitInfo(org.client, space.id)).operation).toMatchObject({ state: 'failure', error: expect.stringMatching(/refused/) });
    });

    it('with standalone, writes a snapshot and leaves the space linked where it was', async () => {
      const org = await newOrg();
      const space = await createSpace(org);
      await importNow(org, space.id, { url: docs.fileUrl, ref: MAIN });
      const target = makeEmptyBareRepo(dir, `snapshot-${newId(6)}`);
      const queued = await postExport(org.client, space.id, { url: target.fileUrl, ref: 'refs/heads/snapshot', commitMessage: 'Snapshot', standalone: true });
      expect(queued.response.status).toBe(204);
      await runJobs();
      expect(await gitInfo(org.client, space.id)).toMatchObject({ url: docs.fileUrl, operation: { state: 'success', direction: 'export' } });
      expect(git(['log', '-1', '--format=%B', 'snapshot'], target.path).trim()).toBe('Snapshot');
      expect(filesOf(target.path, 'snapshot').get('README.md')).toContain('# Welcome');
      // The ref and commit the space is linked at are stored only (Git info shows the URL).
      expect(await findGitSyncState(server.db, space.id)).toMatchObject({ url: docs.fileUrl, ref: MAIN, commit_oid: docs.oid });
    });

    it('validates the body and the caller like the import', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const space = await createSpace(org);
      const body = { url: docs.fileUrl, ref: MAIN, commitMessage: 'm' };
      expectError(await postExport(org.client, space.id, { url: docs.fileUrl, ref: MAIN }), 400, 'body.commitMessage is required');
      expectError(await postExport(org.client, space.id, { ...body, commitMessage: '' }), 400, /body\.commitMessage/);
      expectError(await postExport(org.client, space.id, { ...body, commitMessage: '   ' }), 400, /body\.commitMessage/);
      expectError(await postExport(org.client, space.id, { ...body, commitMessage: 'x'.repeat(1001) }), 400, /body\.commitMessage/);
      expectError(await postExport(org.client, space.id, { ...body, url: 'gopher://example.com/x' }), 400, /^body\.url: /);
      expectError(await postExport(server.client(), space.id, body), 401);
      expectError(await postExport(other.client, space.id, body), 404);
      expectError(await postExport(await member(org, 'read'), space.id, body), 403);
      expect(await operations(space.id)).toEqual([]);
    });
  });

  describe('getSpaceGitInfo', () => {
    it('answers 404 for a space never synchronized, and the state to anyone who can view the space', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const space = await createSpace(org);
      expectError(await org.client.GET('/spaces/{spaceId}/git/info', onSpace(space.id)), 404, /never been synchronized/);
      expect((await getSpace(org.client, space.id)).gitSync).toBeUndefined();
      await importNow(org, space.id, { url: docs.fileUrl, ref: MAIN });
      const reader = await member(org, 'read');
      expect(await gitInfo(reader, space.id)).toMatchObject({ url: docs.fileUrl, operation: { state: 'success' } });
      expectError(await server.client().GET('/spaces/{spaceId}/git/info', onSpace(space.id)), 401);
      expectError(await other.client.GET('/spaces/{spaceId}/git/info', onSpace(space.id)), 404);
      expectError(await other.client.GET('/spaces/{spaceId}/git/info', onSpace('doesNotExist')), 404);
    });
  });

  describe('deleteLegacyGitInstallation', () => {
    it('unlinks the space (204, also when already unlinked) and keeps its content', async () => {
      const org = await newOrg();
      const other = await newOrg('Other');
      const space = await createSpace(org);
      await importNow(org, space.id, { url: docs.fileUrl, ref: MAIN });
      const revision = (await getSpace(org.client, space.id)).revision;
      expectError(await server.client().DELETE('/spaces/{spaceId}/git/legacy-installation', onSpace(space.id)), 401);
      expectError(await other.client.DELETE('/spaces/{spaceId}/git/legacy-installation', onSpace(space.id)), 404);
      expectError(await (await member(org, 'read')).DELETE('/spaces/{spaceId}/git/legacy-installation', onSpace(space.id)), 403);
      expect(await gitInfo(org.client, space.id)).toMatchObject({ url: docs.fileUrl });

      for (let round = 0; round < 2; round++) {
        const removed = await org.client.DELETE('/spaces/{spaceId}/git/legacy-installation', onSpace(space.id));
        expect(removed.response.status).toBe(204);
        expectError(await org.client.GET('/spaces/{spaceId}/git/info', onSpace(space.id)), 404);
        const after = await getSpace(org.client, space.id);
        expect(after.gitSync).toBeUndefined();
        expect(after.revision).toBe(revision);
      }
      // It can be set up again.
      await importNow(org, space.id, { url: docs.fileUrl, ref: MAIN });
      expect(await gitInfo(org.client, space.id)).toMatchObject({ url: docs.fileUrl, operation: { state: 'success' } });
    });
  });

  describe('without QUIRE_ALLOW_LOCAL_URLS', () => {
    let strict: TestServer;
    beforeAll(async () => {
      strict = await startTestServer({ dialect, env: { QUIRE_ALLOW_LOCAL_URLS: 'false' } });
    });
    afterAll(async () => {
      await strict?.close();
    });

    it('refuses file URLs and local addresses with 400, queuing nothing', async () => {
      const owner = await strict.bootstrap('Strict');
      const client = strict.client(owner.token);
      const space = await unwrap(client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: owner.organizationId } }, body: {} }));
      expectError(await postImport(client, space.id, { url: docs.fileUrl, ref: MAIN }), 400, /QUIRE_ALLOW_LOCAL_URLS/);
      expectError(await postImport(client, space.id, { url: http.url('docs', { username: USER, password: PASSWORD }), ref: MAIN }), 400, /loopback/);
      expectError(await postExport(client, space.id, { url: 'http://10.0.0.8/docs.git', ref: MAIN, commitMessage: 'x' }), 400, /private address/);
      const result = await postImport(client, space.id, { url: http.url('docs', { username: USER, password: PASSWORD }), ref: MAIN });
      expectNoSecret(JSON.stringify(result.error));
      // Nothing queued or recorded: a fact of storage.
      expect([...await storedJobs(strict, GIT_IMPORT_JOB), ...await storedJobs(strict, GIT_EXPORT_JOB)]).toEqual([]);
      expect(await storedGitSyncOperations(strict, space.id)).toEqual([]);
    });
  });
});
