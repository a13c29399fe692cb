import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

/* What the benches that start servers share: a free port, waiting for an answer, stopping a child, a load. */

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
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** `connections` clients (50 by default) asking `url` for `duration` seconds. */
export async function load(url: string, duration: number, headers: Record<string, string>, connections = 50): Promise<LoadResult> {
  const result = await autocannon({ url, connections, duration, headers });
  return { requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
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

