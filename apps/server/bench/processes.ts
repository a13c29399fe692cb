import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

/* What the benches that start servers share: a free port, waiting for an answer, stopping a child, a load. */

/*
 * Paths below are relative to this file, which sits at the same depth as source (bench/) and compiled
 * (bench-dist/): the built server is apps/server/dist/, the repository root three folders up.
 */

/** The built server's entry point, as `npm start` runs it. */
export const builtServerEntry = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/**
 * The Node.js options `npm start` gives the server (the root package.json's start script, read rather than
 * copied, so that the benches run the server as it is deployed): today a young generation of 32 MB per
 * half (`--max-semi-space-size=32`, twice Node's default), which took the reader's cached page from about
 * 0.41 to 0.51 of a bare server's requests/s in alternating bench runs (scavenges, run about twice as
 * often with the default, cost a request's worth of time each).
 */
export function serverNodeOptions(): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  const start = /\bnode ((?:--\S+ )*)apps\/server\/dist\/main\.js/.exec(manifest.scripts.start ?? '');
  if (!start) throw new Error('the start script of package.json does not run apps/server/dist/main.js with node');
  return start[1]!.trim().split(' ').filter(Boolean);
}

/** A port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Sends SIGTERM to a child process and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Calls `probe` every 5 ms until it answers a value (a throw counts as not yet); fails after `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the server did not answer in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests answered in the whole load. */
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** `connections` clients (50 by default) asking `url` for `duration` seconds. */
export async function load(url: string, duration: number, headers: Record<string, string>, connections = 50): Promise<LoadResult> {
  const result = await autocannon({ url, connections, duration, headers });
  return { requestsPerSecond: result.requests.average, requests: result.requests.total, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}


/**
 * CPU time a process has used so far (user + system, ms), from /proc (Linux); undefined elsewhere. Per request
 * it says what a server spends on an answer whatever else the machine runs, unlike requests/s.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, hence the last parenthesis): utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** A node:http server (its own process) that answers every request with the same body: the ceiling to compare with. */
export function startBareServer(port: number, body: string, contentType = 'application/json; charset=utf-8'): ChildProcess {
  const script = `
    const http = require('node:http');
    const body = ${JSON.stringify(body)};
    http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': ${JSON.stringify(contentType)}, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }).listen(${port}, '127.0.0.1', () => process.send && process.send('ready'));
    process.on('SIGTERM', () => process.exit(0));`;
  return spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

