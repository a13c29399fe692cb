import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Entry points of the build (`turbo test` builds first); these tests run them as real processes. */
export function builtEntry(name: 'admin' | 'main' | 'worker' | 'ops'): string {
  const file = fileURLToPath(new URL(`../dist/${name}.js`, import.meta.url));
  if (!existsSync(file)) throw new Error(`${file} is missing: build the server first (npx turbo build)`);
  return file;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(file: string, args: string[], env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
