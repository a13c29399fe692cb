import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseHandle } from '#server/db/index.js';
import { migrateToLatest } from '#server/db/migrate.js';
import { createLogger } from '#server/logger.js';
import { bootstrap } from '#server/services/admin-service.js';
import { openBenchDatabase } from './bench-database.js';
import { builtServerEntry, freePort, processCpuMs, serverNodeOptions, stop, until } from './processes.js';

/**
 * `npm run bench -- --only startup`: spawns the built server (as `npm start` does, production settings)
 * `spawns` times on one prepared database and times each from the spawn to its first authenticated 200 of
 * `GET /v1/orgs/{organizationId}` (the HTTP bench's "time to first answer", alone and repeated). Beside the
 * wall time it reads the CPU time the server process had used by then (/proc), which the load of a shared
 * machine moves far less. `entry` runs another build (a copy of a base commit's dist/ beside this one, to
 * alternate before and after).
 */
export interface StartupBenchOptions {
  databaseUrl?: string;
  spawns?: number;
  entry?: string;
  log?: (line: string) => void;
}

export interface StartupSpawn {
  firstAnswerMs: number;
  /** CPU time (user + system) of the server process at its first answer; undefined off Linux. */
  cpuMs: number | undefined;
}

export interface StartupBenchReport {
  dialect: DatabaseHandle['dialect'];
  entry: string;
  spawns: StartupSpawn[];
  medianMs: number;
  medianCpuMs: number | undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function runStartupBench(options: StartupBenchOptions = {}): Promise<StartupBenchReport> {
  const entry = options.entry ?? builtServerEntry;
  const bench = await openBenchDatabase('startup', options.databaseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'quire-startup-bench-'));
  try {
    await migrateToLatest(bench.handle);
    const owner = await bootstrap({ db: bench.handle.db, dialect: bench.handle.dialect, logger: createLogger('silent') }, { organizationTitle: 'Bench', email: 'bench@example.com' });
    const spawns: StartupSpawn[] = [];
    for (let index = 0; index < (options.spawns ?? 5); index++) {
      const port = await freePort();
      const orgUrl = `http://127.0.0.1:${port}/v1/orgs/${owner.organizationId}`;
      const started = performance.now();
      // BENCH_SERVER_PROFILE_DIR=<dir>: a CPU profile of each spawn (`--cpu-prof`), written when it is stopped
      // right after its first answer.
      const profileDir = process.env.BENCH_SERVER_PROFILE_DIR;
      const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
      const server = spawn(process.execPath, [...serverNodeOptions(), ...profile, entry], {
        env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: bench.url, LOG_LEVEL: 'warn', QUIRE_RUN_JOBS: 'false', QUIRE_BLOB_DIR: join(dir, 'blobs') },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      try {
        await until(async () => ((await fetch(orgUrl, { headers: { authorization: `Bearer ${owner.token}` } })).status === 200 ? true : undefined), 120_000);
        const one = { firstAnswerMs: Math.round(performance.now() - started), cpuMs: processCpuMs(server.pid) };
        spawns.push(one);
        options.log?.(`startup bench: ${bench.handle.dialect} spawn ${index + 1}: ${one.firstAnswerMs} ms, ${one.cpuMs ?? '?'} ms CPU`);
      } finally {
        await stop(server);
      }
    }
    const cpu = spawns.map((one) => one.cpuMs).filter((value): value is number => value !== undefined);
    return {
      dialect: bench.handle.dialect, entry, spawns,
      medianMs: Math.round(median(spawns.map((one) => one.firstAnswerMs))),
      medianCpuMs: cpu.length === spawns.length ? Math.round(median(cpu)) : undefined,
    };
  } finally {
    await bench.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatStartupBenchReport(report: StartupBenchReport): string {
  const each = report.spawns.map((one) => `${one.firstAnswerMs}${one.cpuMs === undefined ? '' : ` (${one.cpuMs} CPU)`}`).join(', ');
  return [
    `start-up, ${report.dialect} (${report.spawns.length} spawns of ${report.entry})`,
    `time to first answer: median ${report.medianMs} ms, server CPU by then ${report.medianCpuMs ?? '?'} ms; each: ${each}`,
  ].join('\n');
}
