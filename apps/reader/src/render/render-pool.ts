import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsesOffThread } from '@quire/markdown-rules';
import { Piscina } from 'piscina';
import { renderMarkdown, type RenderInput, type RenderOutput } from './markdown.js';

/*
 * Rendering a page is synchronous CPU work (parse, sanitize, highlight). Small pages render on the event loop,
 * where a thread hop would cost more than the work; pages the server parses in its markdown worker
 * (`parsesOffThread` of @quire/markdown-rules: OFF_THREAD_MARKDOWN_LENGTH characters or more, or more than
 * ON_THREAD_INLINE_DELIMITERS inline delimiters in one paragraph, whose parse time grows with their square)
 * render in a worker thread (piscina), so one heavy page never stalls the requests of other readers.
 * Measured on this machine, 20,000 characters of mixed Markdown with code take about 15 ms to render.
 */

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
}

export function createRenderPool(): RenderPool {
  let pool: Piscina | undefined;
  let workerRenders = 0;
  return {
    async render(input) {
      if (!parsesOffThread(input.markdown)) return renderMarkdown(input);
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
  };
}
