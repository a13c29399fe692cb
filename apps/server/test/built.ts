import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
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

/** A TCP port nothing listens on right now, for a server process a test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Waits until the server at `base` answers /readyz with 200; `output` is shown if it does not within 45 s
 * (a start takes a second on an idle machine, far longer on a 2-core one that runs other suites too).
 */
export async function untilReady(base: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 45_000;
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
