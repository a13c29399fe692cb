import { lazyWorkerPool } from '../worker-pool.js';
import type { BatchInput, BatchOutput, ClusterDescription } from './clustering.js';
import type { AnalysisTask } from './analysis-worker.js';

/*
 * One worker thread (piscina) runs the analysis, so that grouping a batch of a thousand conversations, which
 * takes seconds of CPU, never blocks the event loop of the process that answers requests. The thread starts
 * on the first batch and ends after a minute without work.
 */

const pool = lazyWorkerPool({ owner: import.meta.url, worker: 'analysis-worker.js', description: 'the analysis worker' });

async function run<T>(task: AnalysisTask): Promise<T> {
  return (await pool.run(task)) as T;
}

export function groupBatchOffThread(input: BatchInput): Promise<BatchOutput> {
  return run<BatchOutput>({ kind: 'group', input });
}

export function describeClustersOffThread(clusters: Array<ReadonlyArray<{ title: string; summary: string; terms: Record<string, number> }>>): Promise<ClusterDescription[]> {
  return run<ClusterDescription[]>({ kind: 'describe', clusters });
}

/** Ends the worker thread (it also ends by itself when idle). */
export function closeAnalysisPool(): Promise<void> {
  return pool.close();
}
