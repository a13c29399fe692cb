import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { migrateToLatest } from '#server/db/migrate.js';
import { createLogger } from '#server/logger.js';
import { bootstrap } from '#server/services/admin-service.js';
import { openBenchDatabase } from './bench-database.js';
import { gitCommand, writeRepository } from './import-bench.js';
import { builtServerEntry, freePort, load, processCpuMs, serverNodeOptions, startBareServer, stop, until, type LoadResult } from './processes.js';
import { printReport, positiveIntegerOption, runIfScript, stringOption } from './report.js';

/*
 * The reader (`npm run bench -- --only reader`): the built server (`npm start`'s, production settings, the
 * reader mounted on the same port) on a fresh SQLite file, or a PostgreSQL schema of its own (`databaseUrl`;
 * run.ts runs both when BENCH_DATABASE_URL is set: there the reader waits, before it uses what it kept of an
 * open site, for the round trip that delivers every change notice committed before the request); a generated Git repository of 1,000 pages is
 * imported into a space through the API (importGitRepository over file://, the job run by the server) and
 * published as a public site. Then, as a browser would ask:
 * - page weight: the HTML of a typical page (a leaf page of the tree) plus the CSS and JS it loads;
 * - first render: once the import's search index is written (a job the import queues, which indexes the
 *   1,000 pages on the server's event loop in slices of a few milliseconds; renders measured meanwhile would
 *   time the server's indexing, not the reader), every page of the site asked once, one at a time, each for
 *   the first time (the reader's lookup of that address, its visitor token, the page's Markdown read through
 *   the API, rendering, layout): p50, p99 and slowest;
 * - cached page: the typical page loaded with autocannon (50 connections) against a bare node:http server
 *   answering the same bytes as text/html, in turns (bare, reader, ...) for `rounds` rounds; the ratio is the
 *   median of the rounds' ratios (see run.ts for why turns).
 * Goals (issue 27): ratio >= 0.7, first-render p99 < 50 ms; (issue 10) weight < 100 KB. Standalone:
 * `node bench-dist/reader-bench.js [--sections n] [--duration s] [--rounds n] [--database-url url] [--json]`.
 * BENCH_SERVER_PROFILE_DIR=<dir> writes a CPU profile of the server (`--cpu-prof`) there when it stops.
 */

/** What the bench checks: issue 27's goals for the reader, and issue 10's page weight. */
export const READER_GOALS = { firstRenderP99Ms: 50, cachedRatio: 0.7, weightBytes: 100 * 1024 } as const;

export interface ReaderBenchOptions {
  /** Sections of 100 pages of the generated repository: 10 (1,000 pages) by default. */
  sections?: number;
  /** A `postgres://` URL: the bench runs in a schema of its own there (dropped after). Default: a new SQLite file. */
  databaseUrl?: string;
  /** Seconds of each autocannon load. */
  duration?: number;
  rounds?: number;
  log?: (line: string) => void;
}

export interface ReaderBenchReport {
  dialect: 'sqlite' | 'postgres';
  pages: number;
  importMs: number;
  typicalPage: string;
  weight: { htmlBytes: number; cssBytes: number; jsBytes: number; totalBytes: number };
  /** `cpuMsPerPage`: the server's CPU time over the first renders, per page (absent where /proc is not). */
  firstRender: { pages: number; p50Ms: number; p99Ms: number; maxMs: number; non200: number; cpuMsPerPage?: number };
  cached: {
    requestsPerSecond: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number; bare: LoadResult; ratio: number;
    /** Medians over the rounds of the CPU time each server spent per answer (µs; absent where /proc is not). */
    cpuUsPerRequest?: { reader: number; bare: number };
    rounds: Array<{ reader: LoadResult; bare: LoadResult; ratio: number; cpuUsPerRequest?: { reader: number; bare: number } }>;
  };
  durationSeconds: number;
  connections: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

export async function runReaderBench(options: ReaderBenchOptions = {}): Promise<ReaderBenchReport> {
  const log = options.log ?? (() => {});
  const sections = options.sections ?? 10;
  const duration = options.duration ?? 5;
  const rounds = options.rounds ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'quire-reader-bench-'));
  const children: ChildProcess[] = [];
  const database = await openBenchDatabase('reader', options.databaseUrl ?? `sqlite:${join(dir, 'bench.db')}`);
  const dialect = database.handle.dialect;
  try {
    const databaseUrl = database.url;
    const handle = database.handle;
    await migrateToLatest(handle);
    const owner = await bootstrap({ db: handle.db, dialect: handle.dialect, logger: createLogger('silent') }, { organizationTitle: 'Bench', email: 'bench@example.com' });

    const repo = join(dir, 'docs');
    mkdirSync(repo);
    const written = writeRepository(repo, sections);
    gitCommand(['init', '-q', '--initial-branch=main'], repo);
    gitCommand(['add', '-A'], repo);
    gitCommand(['commit', '-q', '-m', 'Generated documentation'], repo);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const profileDir = process.env.BENCH_SERVER_PROFILE_DIR;
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    // The profile's clock is the monotonic one: phases are logged on it, so that a profile can be cut by phase.
    const phase = (name: string) => profileDir && log(`reader bench: phase ${name} at ${process.hrtime.bigint() / 1000n} us`);
    const server = spawn(process.execPath, [...serverNodeOptions(), ...profile, builtServerEntry], {
      env: {
        ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn',
        QUIRE_PUBLIC_URL: base, QUIRE_BLOB_DIR: join(dir, 'blobs'), QUIRE_RUN_JOBS: 'true',
        // The repository is a local file: URL; the limiter stays in the path with a budget the bench cannot reach.
        QUIRE_ALLOW_LOCAL_URLS: 'true', QUIRE_RATE_LIMIT: '1000000',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(server);
    const auth = { authorization: `Bearer ${owner.token}` };
    const api = async (method: string, path: string, body?: unknown, expected = 200): Promise<Record<string, unknown>> => {
      const response = await fetch(`${base}/v1${path}`, { method, headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
      return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
    };
    await until(async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined), 60_000);

    log(`reader bench (${dialect}): importing ${written.pages} pages...`);
    const space = await api('POST', `/orgs/${owner.organizationId}/spaces`, { title: 'Bench docs' }, 201);
    const spaceId = space.id as string;
    const importStarted = performance.now();
    await api('POST', `/spaces/${spaceId}/git/import`, { url: pathToFileURL(repo).href, ref: 'refs/heads/main' }, 204);
    const state = await until(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const info = await api('GET', `/spaces/${spaceId}/git/info`);
      const operation = info.operation as { state: string; error?: unknown } | undefined;
      return operation && operation.state !== 'running' ? operation : undefined;
    }, 300_000);
    if (state.state !== 'success') throw new Error(`the import ended as ${state.state}: ${JSON.stringify(state.error)}`);
    const importMs = Math.round(performance.now() - importStarted);

    const site = await api('POST', `/orgs/${owner.organizationId}/sites`, { title: 'Bench Docs', visibility: 'public', spaces: [spaceId] }, 201);
    const published = await api('POST', `/orgs/${owner.organizationId}/sites/${site.id as string}/publish`);
    const siteUrl = (published.urls as { published: string }).published;

    // Every page of the site, from its sitemap (a public site's lists them all).
    const sitemap = await fetch(`${siteUrl}/sitemap.xml`);
    if (sitemap.status !== 200) throw new Error(`the site's sitemap answered ${sitemap.status}`);
    const addresses = [...new Set([...(await sitemap.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!.replaceAll('&amp;', '&')))];
    if (addresses.length < written.pages * 0.9) throw new Error(`the sitemap lists ${addresses.length} pages of ${written.pages}`);
    const typical = addresses.find((address) => /\/chapter-5\/page-5$/.test(address)) ?? addresses[Math.floor(addresses.length / 2)]!;

    log('reader bench: waiting for the import\'s search index...');
    await until(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The index of a space is written in one transaction: one page found means all are there.
      const found = await api('GET', `/spaces/${spaceId}/search?query=Introduction`);
      return (found.items as unknown[]).length > 0 ? true : undefined;
    }, 300_000);
    log(`reader bench: first render of ${addresses.length - 1} pages, one at a time...`);
    const latencies: number[] = [];
    let non200 = 0;
    phase('first-render');
    const cpuBefore = processCpuMs(server.pid);
    for (const address of addresses) {
      if (address === siteUrl || address === `${siteUrl}/`) continue;
      const started = performance.now();
      const response = await fetch(address);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      if (response.status !== 200) non200++;
    }
    phase('first-render-end');
    const cpuAfter = processCpuMs(server.pid);
    latencies.sort((a, b) => a - b);

    const page = await fetch(typical);
    const html = await page.text();
    const assetOf = (pattern: RegExp) => {
      const path = pattern.exec(html)?.[1];
      if (!path) throw new Error(`the typical page links no asset matching ${pattern}`);
      return fetch(new URL(path, base)).then(async (response) => (await response.arrayBuffer()).byteLength);
    };
    const cssBytes = await assetOf(/<link rel="stylesheet" href="([^"]+)"/);
    const jsBytes = await assetOf(/<script src="([^"]+)"/);
    const htmlBytes = Buffer.byteLength(html);

    log(`reader bench: cached page against a bare node:http server, ${rounds} rounds of ${duration} s each...`);
    const barePort = await freePort();
    const bare = startBareServer(barePort, html, 'text/html; charset=utf-8');
    children.push(bare);
    await new Promise<void>((resolve) => bare.once('message', () => resolve()));
    const measured: ReaderBenchReport['cached']['rounds'] = [];
    // The CPU each server spends per answer does not depend on what else the machine runs, as requests/s do.
    const loadWithCpu = async (url: string, pid: number | undefined) => {
      const before = processCpuMs(pid);
      const result = await load(url, duration, {});
      const after = processCpuMs(pid);
      return { result, cpuUs: before === undefined || after === undefined || result.requests === 0 ? undefined : ((after - before) * 1000) / result.requests };
    };
    for (let round = 0; round < rounds; round++) {
      const bareLoad = await loadWithCpu(`http://127.0.0.1:${barePort}/`, bare.pid);
      phase('cached');
      const readerLoad = await loadWithCpu(typical, server.pid);
      phase('cached-end');
      measured.push({
        reader: readerLoad.result, bare: bareLoad.result, ratio: readerLoad.result.requestsPerSecond / bareLoad.result.requestsPerSecond,
        ...(readerLoad.cpuUs !== undefined && bareLoad.cpuUs !== undefined ? { cpuUsPerRequest: { reader: readerLoad.cpuUs, bare: bareLoad.cpuUs } } : {}),
      });
    }
    const median = [...measured].sort((a, b) => a.ratio - b.ratio)[Math.floor((measured.length - 1) / 2)]!;
    const cpuRounds = measured.flatMap((round) => (round.cpuUsPerRequest ? [round.cpuUsPerRequest] : []));
    const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
    const cpuUsPerRequest = cpuRounds.length === measured.length && cpuRounds.length > 0
      ? { reader: middle(cpuRounds.map((round) => round.reader)), bare: middle(cpuRounds.map((round) => round.bare)) }
      : undefined;

    return {
      dialect,
      pages: written.pages,
      importMs,
      typicalPage: new URL(typical).pathname,
      weight: { htmlBytes, cssBytes, jsBytes, totalBytes: htmlBytes + cssBytes + jsBytes },
      firstRender: {
        pages: latencies.length,
        p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
        p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
        maxMs: Math.round((latencies[latencies.length - 1] ?? 0) * 10) / 10,
        non200,
        ...(cpuBefore !== undefined && cpuAfter !== undefined && latencies.length > 0 ? { cpuMsPerPage: Math.round(((cpuAfter - cpuBefore) / latencies.length) * 100) / 100 } : {}),
      },
      cached: { ...median.reader, bare: median.bare, ratio: median.ratio, ...(cpuUsPerRequest ? { cpuUsPerRequest } : {}), rounds: measured },
      durationSeconds: duration,
      connections: 50,
    };
  } finally {
    for (const child of children) await stop(child);
    await database.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatReaderBenchReport(report: ReaderBenchReport): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const goal = (ok: boolean) => (ok ? 'goal met' : 'GOAL MISSED');
  const { weight, firstRender, cached } = report;
  return [
    `reader on ${report.dialect}: a public site of ${report.pages} pages (Git import through the API: ${report.importMs} ms); typical page ${report.typicalPage}`,
    `page weight: HTML ${kb(weight.htmlBytes)} + CSS ${kb(weight.cssBytes)} + JS ${kb(weight.jsBytes)} = ${kb(weight.totalBytes)} before compression (goal < 100 KB: ${goal(weight.totalBytes < READER_GOALS.weightBytes)})`,
    `first render of ${firstRender.pages} uncached pages, one at a time: p50 ${firstRender.p50Ms} ms, p99 ${firstRender.p99Ms} ms, slowest ${firstRender.maxMs} ms${firstRender.non200 ? `, ${firstRender.non200} not 200` : ''} (goal p99 < ${READER_GOALS.firstRenderP99Ms} ms: ${goal(firstRender.p99Ms < READER_GOALS.firstRenderP99Ms)})${firstRender.cpuMsPerPage !== undefined ? `; server CPU ${firstRender.cpuMsPerPage} ms a page` : ''}`,
    `cached page, ${report.connections} connections: ${cached.requestsPerSecond.toFixed(0)} req/s (p50 ${cached.p50Ms} ms, p99 ${cached.p99Ms} ms) against bare node:http ${cached.bare.requestsPerSecond.toFixed(0)} req/s: ratio ${cached.ratio.toFixed(3)} (goal >= ${READER_GOALS.cachedRatio}: ${goal(cached.ratio >= READER_GOALS.cachedRatio)})${cached.non2xx || cached.errors ? `  (${cached.non2xx} non-2xx, ${cached.errors} errors)` : ''}`,
    `  rounds (reader/bare = ratio): ${cached.rounds.map((round) => `${round.reader.requestsPerSecond.toFixed(0)}/${round.bare.requestsPerSecond.toFixed(0)} = ${round.ratio.toFixed(3)}`).join(', ')}`,
    ...(cached.cpuUsPerRequest
      ? [`  server CPU per answer, median of the rounds: reader ${cached.cpuUsPerRequest.reader.toFixed(1)} µs, bare ${cached.cpuUsPerRequest.bare.toFixed(1)} µs (rounds: ${cached.rounds.map((round) => `${round.cpuUsPerRequest!.reader.toFixed(1)}/${round.cpuUsPerRequest!.bare.toFixed(1)}`).join(', ')})`]
      : []),
  ].join('\n');
}

runIfScript(import.meta.url, 'reader bench', async () => {
  const report = await runReaderBench({
    ...(positiveIntegerOption('sections') ? { sections: positiveIntegerOption('sections')! } : {}),
    ...(positiveIntegerOption('duration') ? { duration: positiveIntegerOption('duration')! } : {}),
    ...(positiveIntegerOption('rounds') ? { rounds: positiveIntegerOption('rounds')! } : {}),
    ...(stringOption('database-url') ? { databaseUrl: stringOption('database-url')! } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  printReport(report, formatReaderBenchReport);
});
