import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { lazyModule } from '../lazy-module.js';
import type { PdfTask } from './pdf-worker.js';

/*
 * PDFs are made in a worker thread (piscina), so that reading the markdown of a large change request and
 * laying it out, seconds of CPU, never blocks the event loop of the process that answers requests (before,
 * `/healthz` got no answer while a PDF rendered). One thread at a time renders, each PDF within a time limit
 * and the thread within a memory limit; the thread starts on the first PDF and ends after a minute idle.
 */

/** Characters of markdown one PDF may hold (all its pages together): a hundred pages at the page limit. */
export const MAX_PDF_MARKDOWN_LENGTH = 100_000_000;
/** How long one PDF may take to render before it is given up. */
export const PDF_TIME_LIMIT_MS = 120_000;

const here = fileURLToPath(import.meta.url);

/** The compiled worker: beside this file in dist/, or (running from the TypeScript sources, as tests do) in dist/ of the package. */
function workerFile(): string {
  const sibling = join(dirname(here), 'pdf-worker.js');
  if (here.endsWith('.js')) return sibling;
  const built = resolve(dirname(here), '../../dist/pdf/pdf-worker.js');
  if (!existsSync(built)) throw new Error(`the PDF worker is not built (${built}); run npx turbo build`);
  return built;
}

const piscina = lazyModule<typeof import('piscina')>('piscina', { warm: false });

let pool: Piscina | undefined;

function pdfPool(): Piscina {
  pool ??= new (piscina().Piscina)({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
  });
  return pool;
}

/** Thrown when a PDF took longer than PDF_TIME_LIMIT_MS (its thread is ended). */
export class PdfTimeoutError extends Error {
  override readonly name = 'PdfTimeoutError';
}

/** Renders the task's pages to PDF bytes in the worker thread. */
export async function renderPdfOffThread(task: PdfTask, timeLimitMs = PDF_TIME_LIMIT_MS): Promise<Buffer> {
  const signal = AbortSignal.timeout(timeLimitMs);
  try {
    const bytes = (await pdfPool().run(task, { signal })) as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    if (signal.aborted) throw new PdfTimeoutError(`The PDF took longer than ${timeLimitMs / 1000} seconds to render`);
    throw error;
  }
}

/** Ends the worker thread (it also ends by itself when idle). */
export async function closePdfPool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
