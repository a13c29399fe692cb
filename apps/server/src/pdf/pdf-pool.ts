import { lazyWorkerPool } from '../worker-pool.js';
import type { PdfTask } from './pdf-worker.js';

/*
 * PDFs are made in a worker thread (piscina), so that reading the markdown of a large change request and
 * laying it out, seconds of CPU, never blocks the event loop of the process that answers requests (before,
 * `/healthz` got no answer while a PDF rendered). One thread at a time renders, each PDF within a time limit
 * and the thread within a memory limit; the thread starts on the first PDF and ends after a minute idle.
 */

/**
 * Characters of markdown one PDF may hold (all its pages together): one page at the page limit (1,000,000,
 * `content/markdown/limits.ts`), so that any page can be printed on its own. It bounds the work of one
 * request: rendering takes time in proportion to it, measured by the `pdf` bench (apps/server/README.md,
 * "Content limits").
 */
export const MAX_PDF_MARKDOWN_LENGTH = 1_000_000;
/** How long one PDF may take to render before it is given up. */
export const PDF_TIME_LIMIT_MS = 120_000;

const pool = lazyWorkerPool({ owner: import.meta.url, worker: 'pdf-worker.js', description: 'the PDF worker', heapMb: 1024 });

/** Thrown when a PDF took longer than PDF_TIME_LIMIT_MS (its thread is ended). */
export class PdfTimeoutError extends Error {
  override readonly name = 'PdfTimeoutError';
}

/** Renders the task's pages to PDF bytes in the worker thread. */
export async function renderPdfOffThread(task: PdfTask, timeLimitMs = PDF_TIME_LIMIT_MS): Promise<Buffer> {
  const signal = AbortSignal.timeout(timeLimitMs);
  try {
    const bytes = (await pool.run(task, { signal })) as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    if (signal.aborted) throw new PdfTimeoutError(`The PDF took longer than ${timeLimitMs / 1000} seconds to render`);
    throw error;
  }
}

/** Ends the worker thread (it also ends by itself when idle). */
export function closePdfPool(): Promise<void> {
  return pool.close();
}
