import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_LEVELS, type LogLevel } from '#server/config.js';
import { migrateToLatest } from '#server/db/migrate.js';
import { createLogger } from '#server/logger.js';
import { addMember, bootstrap } from '#server/services/admin-service.js';
import { formatSearchBenchReport, runSearchBench, type SearchBenchReport } from './search-bench.js';
import { formatEditBenchReport, runEditBench } from './edit-bench.js';
import { formatImportBenchReport, runImportBench } from './import-bench.js';
import { formatConversationBenchReport, runConversationBench } from './conversation-bench.js';
import { formatOpenApiBenchReport, runOpenApiBench } from './openapi-bench.js';
import { formatPdfBenchReport, runPdfBench } from './pdf-bench.js';
import { formatFilesBenchReport, runFilesBench } from './files-bench.js';
import { formatSignInBenchReport, runSignInBench } from './sign-in-bench.js';
import { openBenchDatabase } from './bench-database.js';
import { builtServerEntry, freePort, load, processCpuMs, serverNodeOptions, startBareServer, stop, until, type LoadResult } from './processes.js';
import { formatReaderBenchReport, runReaderBench } from './reader-bench.js';
import { formatEditorBenchReport, runEditorBench } from './editor-bench.js';
import { formatAppBenchReport, runAppBench } from './app-bench.js';
import { formatGoals, type GoalFigure } from './goals.js';
import { formatStartupBenchReport, runStartupBench } from './startup-bench.js';

/**
 * `npm run bench`: starts the built server (production settings) on a fresh SQLite file with an
 * organization of 1,000 spaces, loads the hot read endpoints with autocannon (50 connections) and, in the
 * same run, a bare node:http server answering a JSON body of the same size, and prints requests/s, p50 and
 * p99 latency of each, the ratio to the bare server, and the time from process start to the first answer.
 * The spaces sit in one collection closed by default (`defaultLevel: null`), and the space list is loaded
 * three times: as the admin, as a guest and as a member (role `read`) who each see one space in ten through
 * the grants of their team, so that the cost of grants shows next to the admin's list in the same run; each
 * round of the guest's and the member's lists also loads the admin's, and a line each gives the median of
 * those rounds' ratios to the admin's.
 * The two servers are loaded in turns (bare, Quire, bare, Quire, ...) and the ratio is the median of the
 * rounds' ratios: on a shared 2-core machine the speed of both moves by tens of percent within a minute, and
 * one long load of each compared a fast minute of one with a slow minute of the other.
 * Then the content benches: import of a generated 5,000-page Git repository (time), search over 50,000
 * pages (p50/p99 per query kind), and a one-page edit in a 10,000-page space (time and bytes written).
 * The HTTP bench runs on SQLite and, when BENCH_DATABASE_URL names a PostgreSQL database, on a schema of its own
 * there too, each with every count of API processes of --processes (default 1,2: QUIRE_PROCESSES), and ends
 * with the ratios of every setting side by side.
 * Options: --duration <seconds per load> (default 5), --rounds <n> (default 3), --spaces <n> (default 1000),
 * --log-level <level> of the server (default warn; production's default, info, logs a line per request),
 * --only http,startup,import,search,edit,conversations,openapi,pdf,reader,files,sign-in,editor,app (default all), --json,
 * --spawns <n> of the start-up bench (startup-bench.ts: the first answer alone, n spawns, median; default 5). The sign-in bench (sign-in-bench.ts)
 * times failed sign-ins of unknown and known accounts, whose difference must not tell them apart. The editor bench (editor-bench.ts) times the app's preview
 * per keystroke in a 2,000-line page, in Chromium. The app bench (app-bench.ts) weighs the JavaScript of the app's first screens
 * (signed out and signed in) and times navigation to each screen usable, cold and warm, in Chromium. The files bench (files-bench.ts)
 * measures upload and download throughput of each file store (PostgreSQL's too when BENCH_DATABASE_URL is set; the search bench runs on it too then). The reader bench (reader-bench.ts) publishes
 * a 1,000-page site and measures page weight, first renders and a cached page against a bare server (on PostgreSQL
 * too when BENCH_DATABASE_URL is set). The conversations bench scores the grouping of
 * support conversations on the labelled set and times ingesting and analysing 1,000 and 10,000 of them.
 * The run ends with the goals of issue 27 (`goals.ts`): each figure measured for one, per database, and whether it is met.
 */

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

function logLevelOption(): LogLevel {
  const index = process.argv.indexOf('--log-level');
  if (index < 0) return 'warn';
  const level = process.argv[index + 1] as LogLevel;
  if (!LOG_LEVELS.includes(level)) throw new Error(`--log-level takes one of ${LOG_LEVELS.join(', ')}`);
  return level;
}

/** A JSON body of exactly `size` bytes. */
function paddedBody(size: number): string {
  const empty = JSON.stringify({ padding: '' });
  return JSON.stringify({ padding: 'x'.repeat(Math.max(0, size - empty.length)) });
}

/** The names of the HTTP bench's targets that the goals read. */
const HTTP_TARGETS = { space: 'GET /v1/spaces/{spaceId}', adminList: 'GET /v1/orgs/{organizationId}/spaces?limit=100' } as const;

interface Measurement {
  name: string;
  url: string;
  bodyBytes: number;
  /** The round whose ratio is the median: its Quire figures. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** ... and the bare server's figures of that same round. */
  bare: { requestsPerSecond: number; p50Ms: number; p99Ms: number };
  /** Median of the rounds' ratios. */
  ratio: number;
  rounds: Array<{ quire: LoadResult; bare: LoadResult; ratio: number; cpuUsPerRequest?: { quire: number; bare: number } }>;
  /** Median over the rounds of the CPU time (user + system, /proc) each server spent per answer, in µs; the load moves it little. */
  cpuUsPerRequest?: { quire: number; bare: number };
  /**
   * For a target compared with another Quire target (the guest's list with the admin's): that target loaded
   * in the same round, right before or after this one (the order alternates), and the median of the rounds'
   * ratios of this target's requests/s to its.
   */
  versus?: { name: string; goal: string; ratio: number; rounds: Array<{ other: LoadResult; ratio: number }> };
}

const BENCHES = ['http', 'startup', 'import', 'search', 'edit', 'conversations', 'openapi', 'pdf', 'reader', 'files', 'sign-in', 'editor', 'app'] as const;
type BenchName = (typeof BENCHES)[number];

function selectedBenches(): Set<BenchName> {
  const index = process.argv.indexOf('--only');
  if (index < 0) return new Set(BENCHES);
  const names = (process.argv[index + 1] ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(BENCHES as readonly string[]).includes(name));
  if (unknown.length || names.length === 0) throw new Error(`--only takes a comma-separated list of ${BENCHES.join(', ')}`);
  return new Set(names as BenchName[]);
}

async function main(): Promise<void> {
  const only = selectedBenches();
  const json = process.argv.includes('--json');
  const reports: Record<string, unknown> = {};
  const print = (text: string) => { if (!json) process.stdout.write(`${text}\n`); };
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  // What each bench measured for the goals of issue 27, printed together at the end.
  const goals: GoalFigure[] = [];
  if (only.has('http')) {
    // SQLite, and PostgreSQL as well when BENCH_DATABASE_URL names one: the same targets against the same bare
    // server, with each count of API processes.
    // BENCH_HTTP_DIALECTS=postgres (or sqlite) runs one of them only, e.g. to alternate builds on one dialect.
    const dialects = process.env.BENCH_HTTP_DIALECTS?.split(',') ?? ['sqlite', 'postgres'];
    const databases = [
      ...(dialects.includes('sqlite') ? [undefined] : []),
      ...(process.env.BENCH_DATABASE_URL && dialects.includes('postgres') ? [process.env.BENCH_DATABASE_URL] : []),
    ];
    const httpReports: HttpReport[] = [];
    for (const databaseUrl of databases) {
      for (const processes of processCounts()) {
        progress(`http bench: ${databaseUrl ? 'postgres' : 'sqlite'}, ${processes} API process(es)...`);
        const report = await runHttpBench({ ...(databaseUrl ? { databaseUrl } : {}), processes });
        httpReports.push(report);
        print(`${httpReports.length > 1 ? '\n' : ''}${formatHttpReport(report)}`);
      }
    }
    reports.http = httpReports;
    if (httpReports.length > 1) print(`\n${formatHttpSummary(httpReports)}`);
    goals.push(...httpReports.flatMap(httpGoalFigures));
  }
  if (only.has('startup')) {
    // The HTTP bench's first answer alone, repeated (--spawns, default 5): its median is the goal's figure
    // when the HTTP bench does not run too.
    const startupReports = [];
    for (const databaseUrl of [undefined, ...(process.env.BENCH_DATABASE_URL ? [process.env.BENCH_DATABASE_URL] : [])]) {
      const report = await runStartupBench({ spawns: option('spawns', 5), log: progress, ...(databaseUrl ? { databaseUrl } : {}) });
      startupReports.push(report);
      print(`\n${formatStartupBenchReport(report)}`);
      if (!only.has('http')) goals.push({ goal: 'firstAnswer', dialect: report.dialect, value: report.medianMs });
    }
    reports.startup = startupReports;
  }
  if (only.has('import')) {
    progress('import bench: generating and importing a 5,000-page repository...');
    const report = await runImportBench({ log: progress });
    reports.import = report;
    print(`\n${formatImportBenchReport(report)}`);
    goals.push({ goal: 'importTime', dialect: report.dialect, value: report.importMs });
    // The same on PostgreSQL beside SQLite's when a database is given (issue 27: every figure on both).
    const databaseUrl = process.env.BENCH_DATABASE_URL;
    if (databaseUrl) {
      progress('import bench: the same on PostgreSQL...');
      const postgres = await runImportBench({ databaseUrl, log: progress });
      reports.importPostgres = postgres;
      print(formatImportBenchReport(postgres));
      goals.push({ goal: 'importTime', dialect: postgres.dialect, value: postgres.importMs });
    }
  }
  if (only.has('search')) {
    progress('search bench: indexing 50,000 pages...');
    const report = await runSearchBench({ pages: 50_000, log: progress });
    reports.search = report;
    print(`\n${formatSearchBenchReport(report)}`);
    goals.push(...searchGoalFigures(report));
    // The same on PostgreSQL beside SQLite's when a database is given (issue 27: every figure on both).
    const databaseUrl = process.env.BENCH_DATABASE_URL;
    if (databaseUrl) {
      progress('search bench: the same on PostgreSQL...');
      const postgres = await runSearchBench({ pages: 50_000, databaseUrl, log: progress });
      reports.searchPostgres = postgres;
      print(`\n${formatSearchBenchReport(postgres)}`);
      goals.push(...searchGoalFigures(postgres));
    }
  }
  if (only.has('edit')) {
    progress('edit bench: building a 10,000-page space...');
    const report = await runEditBench({});
    reports.edit = report;
    print(`\n${formatEditBenchReport(report)}`);
    goals.push({ goal: 'editMedian', dialect: report.dialect, value: report.warmMedianMs });
    // The same on PostgreSQL beside SQLite's when a database is given (issue 27: every figure on both).
    const databaseUrl = process.env.BENCH_DATABASE_URL;
    if (databaseUrl) {
      progress('edit bench: the same on PostgreSQL...');
      const postgres = await runEditBench({ databaseUrl });
      reports.editPostgres = postgres;
      print(`\n${formatEditBenchReport(postgres)}`);
      goals.push({ goal: 'editMedian', dialect: postgres.dialect, value: postgres.warmMedianMs });
    }
  }
  if (only.has('conversations')) {
    const report = await runConversationBench({ log: progress });
    reports.conversations = report;
    print(`\n${formatConversationBenchReport(report)}`);
  }
  if (only.has('openapi')) {
    const report = await runOpenApiBench({ log: progress });
    reports.openapi = report;
    print(`\n${formatOpenApiBenchReport(report)}`);
  }
  if (only.has('pdf')) {
    const report = await runPdfBench({ log: progress });
    reports.pdf = report;
    print(`\n${formatPdfBenchReport(report)}`);
  }
  if (only.has('reader')) {
    // SQLite, then PostgreSQL when BENCH_DATABASE_URL names one (a schema of its own there).
    const readerReports = [];
    for (const databaseUrl of [undefined, ...(process.env.BENCH_DATABASE_URL ? [process.env.BENCH_DATABASE_URL] : [])]) {
      progress('reader bench: importing a 1,000-page repository and publishing it as a site...');
      const report = await runReaderBench({ duration: option('duration', 5), rounds: option('rounds', 3), log: progress, ...(databaseUrl ? { databaseUrl } : {}) });
      readerReports.push(report);
      print(`\n${formatReaderBenchReport(report)}`);
      goals.push(
        { goal: 'readerFirstRenderP99', dialect: report.dialect, value: report.firstRender.p99Ms },
        { goal: 'readerCachedRatio', dialect: report.dialect, value: report.cached.ratio },
      );
    }
    reports.reader = readerReports;
  }
  if (only.has('files')) {
    const databaseUrl = process.env.BENCH_DATABASE_URL;
    const report = await runFilesBench({ ...(databaseUrl ? { databaseUrl } : {}), log: progress });
    reports.files = report;
    print(`\n${formatFilesBenchReport(report)}`);
  }
  if (only.has('sign-in')) {
    const databaseUrl = process.env.BENCH_DATABASE_URL;
    const report = await runSignInBench({ ...(databaseUrl ? { databaseUrl } : {}), log: progress });
    reports.signIn = report;
    print(`\n${formatSignInBenchReport(report)}`);
  }
  if (only.has('editor')) {
    const report = await runEditorBench({ log: progress });
    reports.editor = report;
    print(`\n${formatEditorBenchReport(report)}`);
  }
  if (only.has('app')) {
    const report = await runAppBench({ log: progress });
    reports.app = report;
    print(`\n${formatAppBenchReport(report)}`);
  }
  if (goals.length) {
    reports.goals = goals;
    print(`\n${formatGoals(goals)}`);
  }
  if (json) process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
}

/** The HTTP bench's figures for the goals: first answer, GET of one space (ratio, p99), the list of 100. */
function httpGoalFigures(report: HttpReport): GoalFigure[] {
  const dialect: GoalFigure['dialect'] = report.database === 'postgres' ? 'postgres' : 'sqlite';
  const space = report.measurements.find((m) => m.name === HTTP_TARGETS.space);
  const list = report.measurements.find((m) => m.name === HTTP_TARGETS.adminList);
  return [
    { goal: 'firstAnswer', dialect, value: report.firstAnswerMs },
    ...(space ? [{ goal: 'getSpaceRatio' as const, dialect, value: space.ratio }, { goal: 'getSpaceP99' as const, dialect, value: space.p99Ms }] : []),
    ...(list ? [{ goal: 'listRatio' as const, dialect, value: list.ratio }] : []),
  ];
}

/** The search bench's figures for the goals: the reindex after one edit, and the common word's p99 with its top 10. */
function searchGoalFigures(report: SearchBenchReport): GoalFigure[] {
  const common = report.queries.find((query) => query.name.startsWith('common word ('));
  return [
    { goal: 'reindexAfterEdit', dialect: report.dialect, value: report.oneEditReindexMs },
    ...(common ? [{ goal: 'commonWordP99' as const, dialect: report.dialect, value: common.cappedLatency.p99Ms, condition: { holds: common.topTenAsUncapped, says: 'top 10 not the uncapped one' } }] : []),
  ];
}

interface HttpReport {
  database: string;
  processes: number;
  firstAnswerMs: number;
  connections: number;
  durationSeconds: number;
  rounds: number;
  spaces: number;
  logLevel: LogLevel;
  measurements: Measurement[];
}

function formatHttpReport(report: HttpReport): string {
  const lines = [
    `HTTP on ${report.database}, ${report.processes} API process${report.processes === 1 ? '' : 'es'} (QUIRE_PROCESSES=${report.processes}; the bare server is one process)`,
    `time to first answer: ${report.firstAnswerMs} ms (process start to first authenticated 200)`,
    `autocannon: ${report.connections} connections, ${report.rounds} rounds of ${report.durationSeconds} s per server and target, ${report.spaces} spaces, server log level ${report.logLevel}`,
    '',
    'target                                            body B   req/s     p50 ms  p99 ms  | bare req/s  p50  p99 | ratio',
  ];
  for (const m of report.measurements) {
    lines.push(`${m.name.padEnd(48)} ${String(m.bodyBytes).padStart(7)} ${m.requestsPerSecond.toFixed(0).padStart(8)} ${String(m.p50Ms).padStart(8)} ${String(m.p99Ms).padStart(7)}  | ${m.bare.requestsPerSecond.toFixed(0).padStart(10)} ${String(m.bare.p50Ms).padStart(4)} ${String(m.bare.p99Ms).padStart(4)} | ${m.ratio.toFixed(3)}${m.non2xx || m.errors ? `  (${m.non2xx} non-2xx, ${m.errors} errors)` : ''}`);
  }
  for (const m of report.measurements) {
    if (!m.versus) continue;
    const rounds = m.versus.rounds.map((round, index) => `${m.rounds[index]!.quire.requestsPerSecond.toFixed(0)}/${round.other.requestsPerSecond.toFixed(0)} = ${round.ratio.toFixed(2)}`).join(', ');
    lines.push('', `${m.versus.name}: ${m.versus.ratio.toFixed(2)}x requests/s (${m.versus.goal}; median of rounds ${rounds})`);
  }
  for (const m of report.measurements) {
    if (m.cpuUsPerRequest) lines.push(`${m.name}: server CPU per request ${m.cpuUsPerRequest.quire.toFixed(1)} µs (bare ${m.cpuUsPerRequest.bare.toFixed(1)} µs), median of rounds`);
  }
  lines.push('', 'each round (Quire req/s / bare req/s = ratio); the line above is the median round:');
  for (const m of report.measurements) {
    lines.push(`  ${m.name}: ${m.rounds.map((round) => `${round.quire.requestsPerSecond.toFixed(0)}/${round.bare.requestsPerSecond.toFixed(0)} = ${round.ratio.toFixed(3)}`).join(', ')}`);
  }
  return lines.join('\n');
}

/** One setting of the HTTP bench: the database the server runs on and how many API processes serve its port. */
interface HttpSetting {
  /** `postgres://...` (a schema of the bench's own is made in it and dropped), or unset for a new SQLite file. */
  databaseUrl?: string;
  processes: number;
}

/** `--processes 1,2` (the default): the API process counts the HTTP bench runs with, each on each database. */
function processCounts(): number[] {
  const index = process.argv.indexOf('--processes');
  const counts = (index >= 0 ? process.argv[index + 1] ?? '' : '1,2').split(',').map(Number);
  if (counts.length === 0 || counts.some((count) => !Number.isInteger(count) || count < 1 || count > 64)) throw new Error('--processes takes a comma-separated list of counts from 1 to 64');
  return counts;
}

/** One line per target, one column per setting: the ratios to the bare server side by side. */
function formatHttpSummary(reports: HttpReport[]): string {
  const label = (report: HttpReport) => `${report.database} x${report.processes}`;
  const lines = ['ratio to bare node:http by setting', `${'target'.padEnd(48)} ${reports.map((report) => label(report).padStart(12)).join(' ')}`];
  for (const [index, measurement] of reports[0]!.measurements.entries()) {
    lines.push(`${measurement.name.padEnd(48)} ${reports.map((report) => (report.measurements[index]?.ratio.toFixed(3) ?? '-').padStart(12)).join(' ')}`);
  }
  return lines.join('\n');
}

async function runHttpBench(setting: HttpSetting): Promise<HttpReport> {
  const duration = option('duration', 5);
  const rounds = option('rounds', 3);
  const spaceCount = option('spaces', 1000);
  const logLevel = logLevelOption();
  const dir = mkdtempSync(join(tmpdir(), 'quire-bench-'));
  const bench = await openBenchDatabase('http', setting.databaseUrl);
  const databaseUrl = bench.url;
  const children: ChildProcess[] = [];
  try {
    // The organization and its admin are made directly (as `admin bootstrap` does), before the server starts.
    const handle = bench.handle;
    await migrateToLatest(handle);
    const adminContext = { db: handle.db, dialect: handle.dialect, logger: createLogger('silent') };
    const owner = await bootstrap(adminContext, { organizationTitle: 'Bench', email: 'bench@example.com' });
    // A guest of the organization, who sees only what their team is granted (one space in ten), and a member
    // who sees the same: their role opens nothing, since the spaces' collection is closed.
    const guest = await addMember(adminContext, { organizationId: owner.organizationId, email: 'guest@example.com', role: null });
    const reader = await addMember(adminContext, { organizationId: owner.organizationId, email: 'reader@example.com', role: 'read' });
    const auth = { authorization: `Bearer ${owner.token}` };
    const guestAuth = { authorization: `Bearer ${guest.token}` };
    const readerAuth = { authorization: `Bearer ${reader.token}` };

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // Warnings and errors show in this report; below warn, the line logged per request goes to a file, as a
    // deployment would write it, rather than between these lines.
    const logFile = ['info', 'debug', 'trace'].includes(logLevel) ? openSync(join(dir, 'server.log'), 'a') : 'inherit';
    const started = performance.now();
    // BENCH_SERVER_PROFILE_DIR=<dir> writes a CPU profile of the API process (`--cpu-prof`) there when it stops.
    const profileDir = process.env.BENCH_SERVER_PROFILE_DIR;
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const server = spawn(process.execPath, [...serverNodeOptions(), ...profile, builtServerEntry], {
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: logLevel, QUIRE_RUN_JOBS: 'false',
        QUIRE_PROCESSES: String(setting.processes), QUIRE_BLOB_DIR: join(dir, 'blobs'),
        // The limiter stays in the measured path, with a budget no run of the bench can reach.
        QUIRE_RATE_LIMIT: '1000000' },
      stdio: ['ignore', logFile, 'inherit'],
    });
    if (typeof logFile === 'number') closeSync(logFile);
    children.push(server);
    const orgUrl = `${base}/v1/orgs/${owner.organizationId}`;
    await until(async () => ((await fetch(orgUrl, { headers: auth })).status === 200 ? true : undefined), 120_000);
    // With several processes, the first answer came from the first of them to listen; the others were forked
    // at the same moment and take about as long, so the load starts after that long again (at most 30 s).
    if (setting.processes > 1) await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, performance.now() - started)));
    const firstAnswerMs = performance.now() - started;

    const post = (path: string, method: string, body: unknown, expected: number) => fetch(`${base}/v1${path}`, {
      method, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body),
    }).then(async (response) => {
      if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}`);
      return response.status === 204 ? undefined : response.json();
    });
    const shelf = (await post(`/orgs/${owner.organizationId}/collections`, 'POST', { title: 'Shelf' }, 201)) as { id: string };
    await post(`/collections/${shelf.id}`, 'PATCH', { defaultLevel: null }, 200);
    const createSpace = async (title: string) => (await post(`/orgs/${owner.organizationId}/spaces`, 'POST', { title, parent: shelf.id }, 201)) as { id: string };
    const first = await createSpace('Space 0');
    const spaceIds = [first.id];
    for (let created = 1; created < spaceCount; created += 20) {
      const made = await Promise.all(Array.from({ length: Math.min(20, spaceCount - created) }, (_, offset) => createSpace(`Space ${created + offset}`)));
      spaceIds.push(...made.map((space) => space.id));
    }
    await post(`/orgs/${owner.organizationId}/teams`, 'PUT', { title: 'Readers', members: [guest.userId, reader.userId] }, 201);
    const teams = (await (await fetch(`${base}/v1/orgs/${owner.organizationId}/teams`, { headers: auth })).json()) as { items: Array<{ id: string }> };
    const granted = spaceIds.filter((_, index) => index % 10 === 0);
    for (const spaceId of granted) await post(`/spaces/${spaceId}/permissions`, 'POST', { role: 'read', teams: [teams.items[0]!.id] }, 204);
    const adminList = { name: HTTP_TARGETS.adminList, url: `${base}/v1/orgs/${owner.organizationId}/spaces?limit=100`, headers: auth };
    const targets: Array<{ name: string; url: string; headers: Record<string, string>; expectCount?: number; versus?: { name: string; goal: string; url: string; headers: Record<string, string> } }> = [
      { name: HTTP_TARGETS.space, url: `${base}/v1/spaces/${first.id}`, headers: auth },
      adminList,
      // The same list for a guest who sees 100 of the spaces through their team's grants, loaded in each round
      // next to the admin's list: issue 11's measure is their ratio, which the machine's drift between two
      // targets' rounds would blur.
      {
        name: `same, guest seeing ${granted.length} by team grants`, url: adminList.url, headers: guestAuth, expectCount: granted.length,
        versus: { ...adminList, name: `guest list (${granted.length} of ${spaceCount} spaces by team grants) vs admin list`, goal: 'goal >= 1: the guest has 10x fewer candidate spaces' },
      },
      {
        name: `same, member (read) seeing ${granted.length} by team grants`, url: adminList.url, headers: readerAuth, expectCount: granted.length,
        versus: { ...adminList, name: `member list (${granted.length} of ${spaceCount} spaces by team grants) vs admin list`, goal: 'goal >= 1: the member has 10x fewer visible spaces' },
      },
    ];

    const measurements: Measurement[] = [];
    const only = process.env.BENCH_HTTP_TARGETS?.split(',');
    for (const target of targets.filter((_, index) => !only || only.includes(String(index)))) {
      const sample = await fetch(target.url, { headers: target.headers });
      if (sample.status !== 200) throw new Error(`${target.name} answered ${sample.status}`);
      const sampleText = await sample.text();
      if (target.expectCount !== undefined && (JSON.parse(sampleText) as { count: number }).count !== target.expectCount) throw new Error(`${target.name} did not list ${target.expectCount} spaces`);
      const bodyBytes = Buffer.byteLength(sampleText);

      const barePort = await freePort();
      const bare = startBareServer(barePort, paddedBody(bodyBytes));
      children.push(bare);
      await new Promise<void>((resolve) => bare.once('message', () => resolve()));
      const measured: Measurement['rounds'] = [];
      const versusRounds: NonNullable<Measurement['versus']>['rounds'] = [];
      // The CPU time each server spends per answer does not depend on what else the machine runs, as requests/s do.
      const loadWithCpu = async (url: string, headers: Record<string, string>, pid: number | undefined) => {
        const before = processCpuMs(pid);
        const result = await load(url, duration, headers);
        const after = processCpuMs(pid);
        return { result, cpuUs: before === undefined || after === undefined || result.requests === 0 ? undefined : ((after - before) * 1000) / result.requests };
      };
      for (let round = 0; round < rounds; round++) {
        const bareLoad = await loadWithCpu(`http://127.0.0.1:${barePort}/`, {}, bare.pid);
        const bareResult = bareLoad.result;
        // The compared target goes first in even rounds and last in odd ones, so neither always has the warmer turn.
        const other = target.versus && round % 2 === 0 ? await load(target.versus.url, duration, target.versus.headers) : undefined;
        // With several API processes the primary's CPU time is not theirs: measured with one process only.
        const quireLoad = await loadWithCpu(target.url, target.headers, setting.processes === 1 ? server.pid : undefined);
        const result = quireLoad.result;
        measured.push({
          quire: result, bare: bareResult, ratio: result.requestsPerSecond / bareResult.requestsPerSecond,
          ...(quireLoad.cpuUs !== undefined && bareLoad.cpuUs !== undefined ? { cpuUsPerRequest: { quire: quireLoad.cpuUs, bare: bareLoad.cpuUs } } : {}),
        });
        if (target.versus) {
          const otherResult = other ?? await load(target.versus.url, duration, target.versus.headers);
          versusRounds.push({ other: otherResult, ratio: result.requestsPerSecond / otherResult.requestsPerSecond });
        }
      }
      await stop(bare);
      const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

      const median = [...measured].sort((a, b) => a.ratio - b.ratio)[Math.floor((measured.length - 1) / 2)]!;
      const cpuRounds = measured.flatMap((round) => (round.cpuUsPerRequest ? [round.cpuUsPerRequest] : []));
      measurements.push({
        name: target.name,
        url: target.url,
        bodyBytes,
        ...median.quire,
        bare: { requestsPerSecond: median.bare.requestsPerSecond, p50Ms: median.bare.p50Ms, p99Ms: median.bare.p99Ms },
        ratio: median.ratio,
        rounds: measured,
        ...(cpuRounds.length ? { cpuUsPerRequest: { quire: medianOf(cpuRounds.map((cpu) => cpu.quire)), bare: medianOf(cpuRounds.map((cpu) => cpu.bare)) } } : {}),
        ...(target.versus
          ? { versus: { name: target.versus.name, goal: target.versus.goal, ratio: medianOf(versusRounds.map((round) => round.ratio)), rounds: versusRounds } }
          : {}),
      });
    }
    await stop(server);

    return { database: handle.dialect, processes: setting.processes, firstAnswerMs: Math.round(firstAnswerMs), connections: 50, durationSeconds: duration, rounds, spaces: spaceCount, logLevel, measurements };
  } finally {
    for (const child of children) await stop(child);
    await bench.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
