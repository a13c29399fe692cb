import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { renderMarkdown, type RenderInput, type RenderOutput } from './markdown.js';

/*
 * Rendering a page is synchronous CPU work (parse, sanitize, highlight). Small pages render on the event loop,
 * where a thread hop would cost more than the work; pages of RENDER_IN_WORKER_FROM characters or more render in
 * a worker thread (piscina), so one long page never stalls the requests of other readers; so do pages dense
 * with inline delimiters (`rendersInWorker`). Measured on this machine, 20,000 characters of mixed Markdown
 * with code take about 15 ms to render.
 */
export const RENDER_IN_WORKER_FROM = 20_000;
/**
 * Pages with more inline delimiters than this between two blank lines also render in the worker: the parser
 * resolves emphasis and link delimiters in time that grows with the square of their number in a paragraph
 * (the server's `ON_THREAD_INLINE_DELIMITERS`, where the figures are; the server refuses pages past 5,000).
 */
export const RENDER_IN_WORKER_PAST_DELIMITERS = 200;

const INLINE_DELIMITERS = new Set(['*', '_', '[', ']', '`', '~', '<']);

/**
 * The largest number of inline delimiter characters between two blank lines, in one linear pass: the same
 * measure as the server's `inlineDelimiterCount` (content/markdown/limits.ts), copied because the reader
 * reads the server only through its API (apps/server/test/reader.test.ts checks that both agree).
 */
export function inlineDelimiterCount(markdown: string): number {
  let most = 0;
  let count = 0;
  let blankSoFar = true;
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown[i]!;
    if (c === '\n') {
      if (blankSoFar) {
        if (count > most) most = count;
        count = 0;
      }
      blankSoFar = true;
    } else if (c !== ' ' && c !== '\t' && c !== '\r') {
      blankSoFar = false;
      if (INLINE_DELIMITERS.has(c)) count++;
    }
  }
  return Math.max(most, count);
}

/** Whether a page renders in the worker thread: long, or dense with inline delimiters. */
export function rendersInWorker(markdown: string): boolean {
  return markdown.length >= RENDER_IN_WORKER_FROM || inlineDelimiterCount(markdown) > RENDER_IN_WORKER_PAST_DELIMITERS;
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
}

export function createRenderPool(): RenderPool {
  let pool: Piscina | undefined;
  return {
    async render(input) {
      if (!rendersInWorker(input.markdown)) return renderMarkdown(input);
      pool ??= new Piscina({ filename: workerFile(), minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
      return (await pool.run(input, { signal: AbortSignal.timeout(RENDER_TIME_LIMIT_MS) })) as RenderOutput;
    },
    async close() {
      const ending = pool;
      pool = undefined;
      await ending?.destroy();
    },
  };
}
