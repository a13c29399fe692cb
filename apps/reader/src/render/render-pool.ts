import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsesOffThread } from '@quire/markdown-rules';
import { Piscina } from 'piscina';
import type { RenderInput, RenderOutput } from '@quire/render';

/*
 * Rendering a page is synchronous CPU work (parse, sanitize, highlight). Small pages render on the event loop,
 * where a thread hop would cost more than the work; pages the server parses in its markdown worker
 * (`parsesOffThread` of @quire/markdown-rules: OFF_THREAD_MARKDOWN_LENGTH characters or more, or more than
 * ON_THREAD_INLINE_DELIMITERS inline delimiters in one paragraph, whose parse time grows with their square)
 * render in a worker thread (piscina), so one heavy page never stalls the requests of other readers.
 * Measured on this machine, 20,000 characters of mixed Markdown with code take about 15 ms to render.
 *
 * The renderer itself (unified, remark, rehype and highlight.js's languages: some 500 modules, ~320 ms to load
 * on this 2-core machine) is loaded by the first render or by `warm()`, not when the process starts: the
 * server that mounts the reader answers its first request within its start-up goal, and warms the reader
 * once it listens.
 */

type Renderer = typeof import('@quire/render');
let renderer: Promise<Renderer> | undefined;

function loadRenderer(): Promise<Renderer> {
  renderer ??= import('@quire/render').catch((error: unknown) => {
    renderer = undefined;
    throw error;
  });
  return renderer;
}

/** A render that takes longer is abandoned (its thread ended) and the page shows the error page. */
export const RENDER_TIME_LIMIT_MS = 30_000;

const here = dirname(fileURLToPath(import.meta.url));

/** The compiled worker: beside this file in dist/, or at the same place under dist/ when tests run the sources. */
function workerFile(): string {
  if (import.meta.url.endsWith('.js')) return join(here, 'render-worker.js');
  const built = join(resolve(here, '../../dist'), relative(resolve(here, '..'), join(here, 'render-worker.js')));
  if (!existsSync(built)) throw new Error(`the reader's render worker is not built (${built}); run npx turbo build`);
  return built;
}

export interface RenderPool {
  render(input: RenderInput): Promise<RenderOutput>;
  close(): Promise<void>;
  /** How many renders the worker thread has answered: where pages rendered, for the tests and for operators. */
  workerRenders(): number;
  /** Loads the renderer now rather than on the first page (a process calls it once it listens). */
  warm(): Promise<void>;
}

export function createRenderPool(): RenderPool {
  let pool: Piscina | undefined;
  let workerRenders = 0;
  return {
    async render(input) {
      if (!parsesOffThread(input.markdown)) return (await loadRenderer()).renderMarkdown(input);
      pool ??= new Piscina({ filename: workerFile(), minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
      const output = (await pool.run(input, { signal: AbortSignal.timeout(RENDER_TIME_LIMIT_MS) })) as RenderOutput;
      workerRenders += 1;
      return output;
    },
    async close() {
      const ending = pool;
      pool = undefined;
      await ending?.destroy();
    },
    workerRenders: () => workerRenders,
    async warm() {
      await loadRenderer();
    },
  };
}
