import { lazyWorkerPool } from '../worker-pool.js';
import type { SpecProcessInput, SpecProcessResult } from './spec-types.js';

/*
 * One worker thread (piscina, as analysis/analysis-pool.ts does for conversations) parses and validates
 * OpenAPI documents, so that a multi-megabyte document never blocks the event loop that answers requests.
 * The thread starts with the first document and ends after a minute without work. A document that takes
 * longer than the time limit, or more memory than the thread may use, ends the thread and fails as a
 * PARSE_ERROR: a hostile document (deep nesting, huge expansions) costs one thread, not the process.
 */

/** Memory of the worker's heap: a 10 MB document parses into a few hundred MB of objects at most. */
const WORKER_HEAP_MB = 1024;

const pool = lazyWorkerPool({ owner: import.meta.url, worker: 'spec-worker.js', description: 'the OpenAPI worker', heapMb: WORKER_HEAP_MB });

/** Processes one document off the event loop within `timeLimitMs` (the worker is ended when it is exceeded). */
export async function processSpecOffThread(input: SpecProcessInput, timeLimitMs: number): Promise<SpecProcessResult> {
  try {
    return (await pool.run(input, { signal: AbortSignal.timeout(timeLimitMs) })) as SpecProcessResult;
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'AbortError' || name === 'TimeoutError') {
      return { ok: false, code: 'PARSE_ERROR', errors: [{ message: `Processing the document took longer than the limit of ${Math.round(timeLimitMs / 1000)} s; split it or simplify it`, code: 'too-slow' }] };
    }
    if (error instanceof Error && /ERR_WORKER_OUT_OF_MEMORY|out of memory/i.test(`${(error as { code?: string }).code ?? ''} ${error.message}`)) {
      return { ok: false, code: 'PARSE_ERROR', errors: [{ message: 'Processing the document needed more memory than allowed; split it or simplify it', code: 'too-large' }] };
    }
    throw error;
  }
}

/** Ends the worker thread (it also ends by itself when idle). */
export function closeSpecPool(): Promise<void> {
  return pool.close();
}
