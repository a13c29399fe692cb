import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Entry points of the build (`turbo test` builds first); these tests run them as real processes. */
export function builtEntry(name: 'admin' | 'main' | 'worker' | 'ops' | 'server'): string {
  const file = fileURLToPath(new URL(`../dist/${name}.js`, import.meta.url));
  if (!existsSync(file)) throw new Error(`${file} is missing: build the server first (npx turbo build)`);
  return file;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and answers its exit code and everything it printed. */
export function runCommand(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, ...(options.cwd ? { cwd: options.cwd } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a built entry point (or any script) with node, in this environment plus `env`. */
export function run(file: string, args: string[], env: Record<string, string>): Promise<Finished> {
  return runCommand(process.execPath, [file, ...args], { env: { ...process.env, ...env } });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * A TCP port nothing listens on right now, for a server process a test starts, drawn at random below the
 * kernel's ephemeral range (`ip_local_port_range`). A port found free by listening on port 0 comes from that
 * range, where every outgoing connection of the machine (a PostgreSQL client, a fetch) also takes its local
 * port: between the probe and the server's listen one of them could take it, and the server failed with
 * EADDRINUSE (it happened in CI). Below the range only another test's draw of the same port can, one chance in
 * thousands.
 */
export async function freePort(): Promise<number> {
  const ceiling = ephemeralRangeStart();
  const floor = Math.max(1024, ceiling - 12_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(floor, ceiling);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${floor} and ${ceiling}`);
}

/** The first port the kernel hands out for port 0 and outgoing connections (Linux; 32768 elsewhere). */
function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // not Linux
  }
  return 32768;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * Waits until the server at `base` answers /readyz with 200; `output` is shown if it does not within 120 s
 * (a start takes a second on an idle machine, far longer on a 2-core one that runs other suites too).
 */
export async function untilReady(base: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A built server process started on a database, with everything it logs (at debug level) kept. */
export interface LoggedServer {
  base: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  log: () => string;
  /** Stops the process gracefully and answers its exit code. */
  stop: () => Promise<number | null>;
  /** Kills the process if it still runs and removes its file store; for `finally`. */
  dispose: () => void;
}

/**
 * Starts `dist/main.js` on `databaseUrl` at debug level, on a free port with a file store of its own, and waits
 * until it is ready: the secrets scans read every line such a server logs. `env` adds to its environment.
 */
export async function startLoggedServer(databaseUrl: string, env: Record<string, string> = {}): Promise<LoggedServer> {
  const blobDir = mkdtempSync(join(tmpdir(), 'quire-logged-server-'));
  const port = await freePort();
  const child = spawn(process.execPath, [builtEntry('main')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'debug', QUIRE_BLOB_DIR: blobDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => { log += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { log += chunk.toString(); });
  const dispose = () => {
    child.kill('SIGKILL');
    rmSync(blobDir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await untilReady(base, () => log);
  } catch (error) {
    dispose();
    throw error;
  }
  return {
    base,
    child,
    log: () => log,
    stop: () => {
      child.kill('SIGTERM');
      return exited(child);
    },
    dispose,
  };
}
