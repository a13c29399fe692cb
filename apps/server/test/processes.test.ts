import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createQuireClient, unwrap, type QuireClient } from '@quire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/index.js';
import { pendingMigrations } from '../src/db/migrate.js';
import { API_BATCH_SHARE } from '../src/http/middleware/rate-limit.js';
import { createLogger } from '../src/logger.js';
import { addMember, bootstrap, createToken } from '../src/services/admin-service.js';
import { builtEntry, exited, freePort, untilReady } from './built.js';
import { createTestDatabaseUrl } from './dialects.js';

/*
 * Issue 26: Quire is stateless apart from its database and its file store. Three API processes
 * (QUIRE_RUN_JOBS=false) and two job processes (worker.js) run side by side on one fresh PostgreSQL schema,
 * started all at once (so that their migrations race), as a load balancer's pool would; the tests go through
 * one and check through the others. PostgreSQL only: SQLite is one machine's file.
 */

const postgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/** Each caller's budget per minute: the burst below goes past it, the other tests stay far below it. */
const RATE_LIMIT = 1000;
/** Short, so that a job of a killed process is taken over within seconds. */
const LEASE_MS = 2000;

interface Proc {
  child: ChildProcess;
  log: () => string;
}

function startProcess(entry: 'main' | 'worker', env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [builtEntry(entry)], { env: { ...process.env, NODE_ENV: 'test', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => { log += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { log += chunk.toString(); });
  return { child, log: () => log };
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The JSON lines a process logged, parsed. */
function logLines(proc: Proc): Array<Record<string, unknown>> {
  return proc.log().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Runs `tasks` with at most `width` at a time. */
async function inParallel<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  }));
  return results;
}

const TINY_SPEC = JSON.stringify({ openapi: '3.0.3', info: { title: 'Tiny', version: '1' }, paths: { '/ping': { get: { responses: { 200: { description: 'pong' } } } } } });

/**
 * An HTTP server on loopback that serves the tiny spec, except that it holds the requests `hold` says to hold
 * until released: a job that fetches from it is mid-job for as long as the test wants.
 */
function startSpecServer(): Promise<{ url: string; server: Server; hold: boolean; held: ServerResponse[]; arrived: () => number; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    let arrivals = 0;
    const state = {
      url: '', hold: false, held: [] as ServerResponse[], arrived: () => arrivals,
      server: createServer((_req: IncomingMessage, res: ServerResponse) => {
        arrivals++;
        if (state.hold) {
          state.held.push(res);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(TINY_SPEC);
      }),
      close: () => new Promise<void>((done) => { state.server.closeAllConnections(); state.server.close(() => done()); }),
    };
    state.server.listen(0, '127.0.0.1', () => {
      state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/spec.json`;
      resolve(state);
    });
  });
}

postgres('processes side by side on one PostgreSQL', () => {
  const target = process.env.TEST_DATABASE_URL ? createTestDatabaseUrl('postgres') : undefined;
  const apis: Array<Proc & { base: string }> = [];
  const workers: Proc[] = [];
  let database: DatabaseHandle;
  let specServer: Awaited<ReturnType<typeof startSpecServer>>;
  let owner: { organizationId: string; userId: string; token: string };
  const workerEnv = () => ({ DATABASE_URL: target!.url, LOG_LEVEL: 'info', QUIRE_JOB_LEASE_MS: String(LEASE_MS), QUIRE_ALLOW_LOCAL_URLS: 'true', QUIRE_SHUTDOWN_TIMEOUT_MS: '300' });
  const startWorker = async () => {
    const worker = startProcess('worker', workerEnv());
    workers.push(worker);
    return worker;
  };
  const clientOf = (index: number, token: string): QuireClient => createQuireClient({ baseUrl: apis[index]!.base, token, retry: false });
  const admin = () => ({ db: database.db, dialect: database.dialect, logger: createLogger('silent') });

  beforeAll(async () => {
    specServer = await startSpecServer();
    // Five processes on an empty schema at once: each migrates at start, and exactly one applies each migration.
    for (let index = 0; index < 3; index++) {
      const port = await freePort();
      apis.push({
        ...startProcess('main', {
          PORT: String(port), DATABASE_URL: target!.url, QUIRE_RUN_JOBS: 'false', QUIRE_RATE_LIMIT: String(RATE_LIMIT),
          QUIRE_ALLOW_LOCAL_URLS: 'true', LOG_LEVEL: 'warn',
        }),
        base: `http://127.0.0.1:${port}`,
      });
    }
    await startWorker();
    await startWorker();
    // Five starts at once take long on a shared 2-core machine: more than untilReady's usual bound.
    await Promise.all(apis.map((api) => until(async () => api.child.exitCode !== null || (await fetch(`${api.base}/readyz`).then((answer) => answer.status === 200, () => false)), 'an API process to be ready', 170_000)));
    for (const api of apis) expect(api.child.exitCode, api.log()).toBeNull();
    await Promise.all(workers.map((worker) => until(() => worker.log().includes('quire worker running') || worker.child.exitCode !== null, 'a job process to start')));
    for (const worker of workers) expect(worker.child.exitCode, worker.log()).toBeNull();
    database = await openDatabase(parseDatabaseUrl(target!.url));
    owner = await bootstrap(admin(), { organizationTitle: 'Side by side', email: 'owner@example.com' });
  }, 240_000);

  afterAll(async () => {
    for (const proc of [...apis, ...workers]) proc.child.kill('SIGKILL');
    await specServer?.close();
    await database?.close();
  });

  it('started together on an empty database: migrated once, to the end, and all five running', async () => {
    expect(await pendingMigrations(database.db, database.schema)).toEqual([]);
    for (const proc of [...apis, ...workers]) expect(proc.child.exitCode, proc.log()).toBeNull();
    expect([...apis, ...workers].map((proc) => proc.log()).join('')).not.toMatch(/migration .* failed|could not start/);
  });

  it('a write through one process is read through the others at once', async () => {
    const space = await unwrap(clientOf(0, owner.token).POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: owner.organizationId } }, body: { title: 'Written through the first' } }));
    for (const index of [1, 2]) {
      expect((await unwrap(clientOf(index, owner.token).GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }))).title).toBe('Written through the first');
    }
    await unwrap(clientOf(1, owner.token).PATCH('/spaces/{spaceId}', { params: { path: { spaceId: space.id } }, body: { title: 'Renamed through the second' } }));
    for (const index of [0, 2]) {
      expect((await unwrap(clientOf(index, owner.token).GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }))).title).toBe('Renamed through the second');
    }
  });

  it('a file uploaded through one process downloads through the others (file bytes in the database)', async () => {
    const client = clientOf(0, owner.token);
    const space = await unwrap(client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: owner.organizationId } }, body: { title: 'Files' } }));
    const cr = await unwrap(client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { subject: 'A file' } }));
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, index) => (index * 7919) % 256));
    const edited = await unwrap(client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
      params: { path: { spaceId: space.id, changeRequestId: cr.id } },
      body: { changes: [{ operation: 'insert_files', files: [{ name: 'data.bin', base64: bytes.toString('base64') }] }] } as never,
    })) as { insertedFiles: Array<{ downloadURL: string }> };
    const path = new URL(edited.insertedFiles[0]!.downloadURL).pathname + new URL(edited.insertedFiles[0]!.downloadURL).search;
    for (const api of apis.slice(1)) {
      const download = await fetch(`${api.base}${path}`);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    }
  });

  it('edits of one change request through alternating processes each build on the last, whichever process made it', async () => {
    // Each process keeps the tree of its last edit of a request (services/working-trees.ts) and brings it to the
    // request's revision, which another process may have moved meanwhile, before applying the next edit.
    const space = await unwrap(clientOf(0, owner.token).POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: owner.organizationId } }, body: { title: 'Edited by turns' } }));
    const cr = await unwrap(clientOf(0, owner.token).POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { subject: 'By turns' } }));
    const path = { spaceId: space.id, changeRequestId: cr.id };
    let revision = cr.revision;
    const editThrough = async (index: number, changes: unknown[]) => {
      const answer = await unwrap(clientOf(index, owner.token).POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path }, body: { revision, changes } as never }));
      revision = answer.changeRequest.revision;
      return answer;
    };
    const created = await editThrough(0, [
      { operation: 'insert_page', title: 'Alpha', document: { markdown: 'alpha 0\n' } },
      { operation: 'insert_page', title: 'Beta', document: { markdown: 'beta 0\n' } },
    ]);
    const [alpha, beta] = created.changes.map((change) => change.page) as [string, string];
    await editThrough(1, [{ operation: 'update_page', page: alpha, document: { markdown: 'alpha 1\n' } }]);
    await editThrough(0, [{ operation: 'update_page', page: beta, document: { markdown: 'beta 1\n' } }]);
    await editThrough(1, [{ operation: 'update_page', page: alpha, title: 'Alpha 2' }, { operation: 'insert_page', title: 'Gamma', into: beta, document: { markdown: 'gamma\n' } }]);
    await editThrough(0, [{ operation: 'update_page', page: beta, title: 'Beta 2' }]);
    const read = (pageId: string) =>
      unwrap(clientOf(2, owner.token).GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { ...path, pageId }, query: { format: 'markdown' } } }));
    expect([await read(alpha), await read(beta)].map((page) => [page.title, page.markdown, page.pages.map((child) => child.title)])).toEqual([
      ['Alpha 2', 'alpha 1\n', []],
      ['Beta 2', 'beta 1\n', ['Gamma']],
    ]);
  });

  it('a member removed through one process is refused by all of them at once', async () => {
    const member = await addMember(admin(), { organizationId: owner.organizationId, email: 'leaving@example.com', role: 'edit' });
    const readOrg = (index: number) => clientOf(index, member.token).GET('/orgs/{organizationId}', { params: { path: { organizationId: owner.organizationId } } });
    // Each process has seen the member in: whatever it keeps in memory about them is warm.
    for (const index of [0, 1, 2]) expect((await readOrg(index)).response.status).toBe(200);
    const removed = await clientOf(1, owner.token).DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: owner.organizationId, userId: member.userId } } });
    expect(removed.response.status).toBe(204);
    for (const index of [0, 1, 2]) expect((await readOrg(index)).response.status, `process ${index}`).toBe(404);
  });

  // The budget is counted in PostgreSQL (limits/limiter-store.ts), not in each process's memory; each process
  // settles with it in batches (limits/batched-limiter.ts), holding at most 1% of the limit uncounted, so the
  // three together admit the limit and at most 3% more (README, "Rate limits").
  it('a burst over the rate limit spread across the processes is limited as one caller, within the stated overshoot', async () => {
    const { token } = await createToken(admin(), { email: 'owner@example.com', label: 'burst' });
    const statuses = await inParallel(RATE_LIMIT + 300, 24, async (index) => (await fetch(`${apis[index % 3]!.base}/v1/user`, { headers: { authorization: `Bearer ${token}` } })).status);
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(RATE_LIMIT);
    expect(admitted).toBeLessThanOrEqual(RATE_LIMIT + apis.length * Math.floor(RATE_LIMIT / API_BATCH_SHARE));
    expect(statuses.filter((status) => status === 429)).toHaveLength(RATE_LIMIT + 300 - admitted);
  }, 120_000);

  it('300 jobs of mixed kinds queued through different processes each run exactly once', async () => {
    const since = new Date().toISOString();
    await inParallel(300, 12, async (index) => {
      const client = clientOf(index % 3, owner.token);
      const organizationId = owner.organizationId;
      // Half search indexing (each new space queues its own), half OpenAPI processing of a tiny document.
      if (index % 2 === 0) await unwrap(client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId } }, body: { title: `Job ${index}` } }));
      else await unwrap(client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId } }, body: { slug: `job-${index}`, source: { text: TINY_SPEC } } }));
    });
    const jobsSince = () => database.db.selectFrom('jobs').select(['id', 'kind', 'status', 'attempts']).where('created_at', '>=', since).execute();
    const jobs = await until(async () => {
      const rows = await jobsSince();
      return rows.every((row) => row.status === 'succeeded' || row.status === 'failed') ? rows : undefined;
    }, 'the 300 jobs to finish', 120_000);
    const byKind = new Map<string, number>();
    for (const job of jobs) byKind.set(job.kind, (byKind.get(job.kind) ?? 0) + 1);
    expect([...byKind.values()]).toEqual([150, 150]);
    expect(jobs.filter((job) => job.status !== 'succeeded' || job.attempts !== 1)).toEqual([]);
    // Each job's success was logged once, by one of the two job processes, and both took a share.
    const succeeded = workers.map((worker) => logLines(worker).filter((line) => line.msg === 'job succeeded').map((line) => line.jobId as string));
    const ids = new Set(jobs.map((job) => job.id));
    const counts = new Map<string, number>();
    for (const id of succeeded.flat()) if (ids.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(counts.size).toBe(300);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    for (const share of succeeded) expect(share.filter((id) => ids.has(id)).length).toBeGreaterThan(0);
    const specs = await unwrap(clientOf(2, owner.token).GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId: owner.organizationId }, query: { limit: 1000 } } }));
    expect(specs.items.filter((spec) => spec.slug.startsWith('job-') && spec.processingState === 'complete')).toHaveLength(150);
  }, 240_000);

  /** Queues the processing of a spec fetched from the holding server, and answers the job row once a process runs it. */
  async function jobHeldMidRun(slug: string) {
    specServer.hold = true;
    const before = specServer.arrived();
    const spec = await unwrap(clientOf(0, owner.token).POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId: owner.organizationId } }, body: { slug, source: { url: specServer.url } } }));
    await until(() => specServer.arrived() > before, 'the job to fetch its source');
    // Later fetches are answered: only this attempt is held.
    specServer.hold = false;
    const job = await database.db.selectFrom('jobs').selectAll().where('status', '=', 'running').where('payload', 'like', `%"specId":"${spec.id}"%`).executeTakeFirstOrThrow();
    const pid = Number(job.locked_by!.split(':')[1]);
    return { job, holder: workers.find((worker) => worker.child.pid === pid)! };
  }

  // Polled with a token of its own, so that the polls do not spend the budget of the tests' callers.
  let pollToken: string | undefined;
  const specState = async (slug: string) => clientOf(2, pollToken ??= (await createToken(admin(), { email: 'owner@example.com', label: 'poll' })).token).GET('/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: owner.organizationId, specSlug: slug } } }).then((answer) => answer.data?.processingState);

  it('a job process killed with kill -9 mid-job has its job finished by another once the lease lapses', async () => {
    const { job, holder } = await jobHeldMidRun('killed-mid-job');
    expect(holder).toBeDefined();
    const killedAt = Date.now();
    holder.child.kill('SIGKILL');
    await exited(holder.child);
    await until(async () => (await specState('killed-mid-job')) === 'complete', 'another process to finish the job', 60_000);
    // Renewed at half the lease while it ran, the claim lapsed at least that long after the kill.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS / 2 - 100);
    // The runner marks the job done after its handler wrote the specification's state: wait for that too.
    const jobRow = () => database.db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', job.id).executeTakeFirst();
    await until(async () => (await jobRow())?.status === 'succeeded', 'the job to be marked succeeded');
    expect(await jobRow()).toEqual({ status: 'succeeded', attempts: 2 });
    // The pool is two job processes again, started on the migrated database.
    const replacement = await startWorker();
    await until(() => replacement.log().includes('quire worker running'), 'the replacement job process');
  }, 120_000);

  it('a job process stopped with SIGTERM hands its job back at once, and another runs it without waiting for the lease', async () => {
    const { job, holder } = await jobHeldMidRun('handed-back');
    holder.child.kill('SIGTERM');
    expect(await exited(holder.child)).toBe(0);
    expect(logLines(holder).some((line) => line.msg === 'job handed back: the runner is stopping' && line.jobId === job.id)).toBe(true);
    for (const res of specServer.held.splice(0)) res.destroy();
    await until(async () => (await specState('handed-back')) === 'complete', 'another process to run the job');
    // Handed back, the interrupted attempt does not count.
    // The runner marks the job done after its handler wrote the specification's state: wait for that too.
    const jobRow = () => database.db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', job.id).executeTakeFirst();
    await until(async () => (await jobRow())?.status === 'succeeded', 'the job to be marked succeeded');
    expect(await jobRow()).toEqual({ status: 'succeeded', attempts: 1 });
  }, 120_000);

  it('loses no acknowledged write when an API process is killed under load', async () => {
    const { token } = await createToken(admin(), { email: 'owner@example.com', label: 'load' });
    const acknowledged: string[] = [];
    let refused = 0;
    let sent = 0;
    await inParallel(240, 12, async (index) => {
      if (++sent === 80) apis[2]!.child.kill('SIGKILL');
      try {
        const answer = await clientOf(index % 3, token).POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: owner.organizationId } }, body: { title: `Load ${index}` } });
        if (answer.response.status === 201) acknowledged.push(answer.data!.id);
        else refused++;
      } catch {
        refused++; // the killed process's connection dropped or refused: not acknowledged
      }
    });
    expect(refused).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThanOrEqual(160);
    const missing: string[] = [];
    const { token: readBack } = await createToken(admin(), { email: 'owner@example.com', label: 'read back' });
    for (const id of acknowledged) {
      const answer = await clientOf(0, readBack).GET('/spaces/{spaceId}', { params: { path: { spaceId: id } } });
      if (answer.response.status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
  }, 180_000);
});

postgres('QUIRE_PROCESSES=2 npm start', () => {
  const target = process.env.TEST_DATABASE_URL ? createTestDatabaseUrl('postgres') : undefined;

  it('serves one port from two processes, restarts one that dies, and stops both on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const primary = startProcess('main', { PORT: String(port), DATABASE_URL: target!.url, QUIRE_PROCESSES: '2', LOG_LEVEL: 'info' });
    try {
      const listening = () => logLines(primary).filter((line) => line.msg === 'quire process listening').map((line) => line.workerPid as number);
      const workerPids = await until(() => (listening().length >= 2 ? listening() : undefined), 'two processes listening', 120_000);
      await untilReady(base, primary.log);
      // Fresh connections, one per request: the primary hands each to one of the processes in turn.
      const answeredBy = async () => {
        const pids = new Set<number>();
        for (let index = 0; index < 20; index++) {
          await new Promise<void>((resolve, reject) => get(`${base}/healthz`, { agent: false }, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject));
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const line of logLines(primary)) if (line.msg === 'request' && line.url === '/healthz') pids.add(line.pid as number);
        return pids;
      };
      expect([...(await answeredBy())].sort()).toEqual([...workerPids].sort());

      // A process that dies is replaced; the port keeps answering meanwhile.
      process.kill(workerPids[0]!, 'SIGKILL');
      const replaced = await until(() => listening().find((pid) => !workerPids.includes(pid)), 'the dead process to be replaced', 120_000);
      expect(logLines(primary).some((line) => line.msg === 'quire process died; restarting it' && line.workerPid === workerPids[0])).toBe(true);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      primary.child.kill('SIGTERM');
      expect(await exited(primary.child)).toBe(0);
      for (const pid of [workerPids[1]!, replaced]) expect(() => process.kill(pid, 0)).toThrow();
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      primary.child.kill('SIGKILL');
    }
  }, 240_000);
});
