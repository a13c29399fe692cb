import { lazyWorkerPool } from '../../worker-pool.js';
import { ContentError } from '../errors.js';
import type { LinkDestination } from './links.js';
import type { CheckMarkdownResult } from './markdown-worker.js';

/*
 * Markdown that is written is checked and parsed in a worker thread (piscina) when it is large, so that a
 * page write of the largest allowed size does not block the event loop for the seconds its parse takes.
 * Small markdown is parsed in place: a thread round trip would cost more than the parse. The thread starts
 * on first use and ends after a minute idle.
 */

/** Markdown at least this long is parsed in the worker thread. */
export const OFF_THREAD_MARKDOWN_LENGTH = 20_000;
/** How long checking one markdown text may take before it is refused. */
export const MARKDOWN_TIME_LIMIT_MS = 60_000;

const pool = lazyWorkerPool({ owner: import.meta.url, worker: 'markdown-worker.js', description: 'the markdown worker', heapMb: 1024 });

/**
 * Checks markdown about to be stored against the content limits and answers its link destinations, parsed
 * in the worker thread; throws ContentError `content_limit` naming the limit (or the time limit).
 */
export async function checkMarkdownOffThread(markdown: string, what: string): Promise<LinkDestination[]> {
  const signal = AbortSignal.timeout(MARKDOWN_TIME_LIMIT_MS);
  let result: CheckMarkdownResult;
  try {
    result = (await pool.run({ markdown, what }, { signal })) as CheckMarkdownResult;
  } catch (error) {
    if (signal.aborted) throw new ContentError('content_limit', `${what} took longer than ${MARKDOWN_TIME_LIMIT_MS / 1000} seconds to read, its limit`);
    throw error;
  }
  if ('refused' in result) throw new ContentError('content_limit', result.refused);
  return result.links;
}

/** Ends the worker thread (it also ends by itself when idle). */
export function closeMarkdownPool(): Promise<void> {
  return pool.close();
}
