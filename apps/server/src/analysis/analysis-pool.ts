import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { lazyModule } from '../lazy-module.js';
import type { BatchInput, BatchOutput, ClusterDescription } from './clustering.js';
import type { AnalysisTask } from './analysis-worker.js';

/*
 * One worker thread (piscina) runs the analysis, so that grouping a batch of a thousand conversations, which
 * takes seconds of CPU, never blocks the event loop of the process that answers requests. The thread starts
 * on the first batch and ends after a minute without work.
 */

const here = fileURLToPath(import.meta.url);

/** The compiled worker: beside this file in dist/, or (running from the TypeScript sources, as tests do) in dist/ of the package. */
function workerFile(): string {
  const sibling = join(dirname(here), 'analysis-worker.js');
  if (here.endsWith('.js')) return sibling;
  const built = resolve(dirname(here), '../../dist/analysis/analysis-worker.js');
  if (!existsSync(built)) throw new Error(`the analysis worker is not built (${built}); run npx turbo build`);
  return built;
}

/** The pool library, loaded when the first batch is analysed rather than when the server starts. */
const piscina = lazyModule<typeof import('piscina')>('piscina', { warm: false });

let pool: Piscina | undefined;

function analysisPool(): Piscina {
  pool ??= new (piscina().Piscina)({ filename: workerFile(), minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
  return pool;
}

async function run<T>(task: AnalysisTask): Promise<T> {
  return (await analysisPool().run(task)) as T;
}

export function groupBatchOffThread(input: BatchInput): Promise<BatchOutput> {
  return run<BatchOutput>({ kind: 'group', input });
}

export function describeClustersOffThread(clusters: Array<ReadonlyArray<{ title: string; summary: string; terms: Record<string, number> }>>): Promise<ClusterDescription[]> {
  return run<ClusterDescription[]>({ kind: 'describe', clusters });
}

/** Ends the worker thread (it also ends by itself when idle). */
export async function closeAnalysisPool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
