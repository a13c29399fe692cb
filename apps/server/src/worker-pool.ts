import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { lazyModule } from './lazy-module.js';

/*
 * CPU-heavy work (grouping conversations, reading large markdown, laying out PDFs, validating OpenAPI
 * documents) runs in worker threads (piscina) so that it never blocks the event loop that answers requests.
 * Every such pool is made the same way: one thread, started on first use and ended after a minute idle, the
 * pool library itself loaded only then (not when the server starts), and the worker run from its compiled
 * file in dist/ (a worker thread cannot load TypeScript sources, which tests run from).
 */

/** The pool library, loaded when the first task of any pool runs. */
const piscina = lazyModule<typeof import('piscina')>('piscina', { warm: false });

const sourceRoot = dirname(fileURLToPath(import.meta.url));
const builtRoot = resolve(sourceRoot, '../dist');

export interface WorkerPoolOptions {
  /** `import.meta.url` of the module that owns the pool; the worker file sits beside it. */
  owner: string;
  /** The worker's compiled file name, beside the owner (`pdf-worker.js`). */
  worker: string;
  /** What the worker does, for the error that says it is not built (`the PDF worker`). */
  description: string;
  /** The thread's heap limit; none when unset. */
  heapMb?: number;
  /** Threads run at once (1 unless set): more only for work cut into independent batches. */
  maxThreads?: number;
}

export interface WorkerPool {
  /** Runs one task in the thread; `signal` aborts it (and ends the thread running it). */
  run<T>(task: unknown, options?: { signal?: AbortSignal }): Promise<T>;
  /** Ends the thread (it also ends by itself when idle). */
  close(): Promise<void>;
}

/** The compiled worker: beside its owner in dist/, or, when the owner runs from the TypeScript sources, at the same place under dist/. */
function workerFile({ owner, worker, description }: WorkerPoolOptions): string {
  const ownerFile = fileURLToPath(owner);
  const sibling = join(dirname(ownerFile), worker);
  if (ownerFile.endsWith('.js')) return sibling;
  const built = join(builtRoot, relative(sourceRoot, sibling));
  if (!existsSync(built)) throw new Error(`${description} is not built (${built}); run npx turbo build`);
  return built;
}

/** A pool of worker threads (one unless `maxThreads`), made on its first task. */
export function lazyWorkerPool(options: WorkerPoolOptions): WorkerPool {
  let pool: Piscina | undefined;
  const current = (): Piscina => {
    pool ??= new (piscina().Piscina)({
      filename: workerFile(options),
      minThreads: 0,
      maxThreads: options.maxThreads ?? 1,
      idleTimeout: 60_000,
      ...(options.heapMb ? { resourceLimits: { maxOldGenerationSizeMb: options.heapMb } } : {}),
    });
    return pool;
  };
  return {
    async run<T>(task: unknown, runOptions: { signal?: AbortSignal } = {}): Promise<T> {
      return (await current().run(task, runOptions.signal ? { signal: runOptions.signal } : {})) as T;
    },
    async close(): Promise<void> {
      const ending = pool;
      pool = undefined;
      await ending?.destroy();
    },
  };
}
