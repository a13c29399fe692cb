import { lazyWorkerPool } from '../../worker-pool.js';
import { referencePages, type ReferencePagesResult } from '../openapi-reference.js';
import { ContentError } from '../errors.js';
import type { LinkDestination } from './links.js';
import type { CheckMarkdownResult, MarkdownTask } from './markdown-worker.js';
import { extractSections, type MarkdownSection } from './sections.js';

/*
 * Markdown that is written is checked and parsed in a worker thread (piscina) when it is large, so that a
 * page write of the largest allowed size does not block the event loop for the seconds its parse takes; so
 * is large markdown cut into search sections when a space is indexed, and a large OpenAPI document made into
 * the pages of the `openapi-reference` template.
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
    result = await pool.run<CheckMarkdownResult>({ kind: 'check', markdown, what } satisfies MarkdownTask, { signal });
  } catch (error) {
    if (signal.aborted) throw new ContentError('content_limit', `${what} took longer than ${MARKDOWN_TIME_LIMIT_MS / 1000} seconds to read, its limit`);
    throw error;
  }
  if ('refused' in result) throw new ContentError('content_limit', result.refused);
  return result.links;
}

/**
 * The search sections of markdown (`extractSections`), cut in the worker thread when the markdown is large.
 * Markdown whose cutting passes the time limit is one section of its text as written, so that its words are
 * still found.
 */
export async function sectionsOffThread(markdown: string): Promise<MarkdownSection[]> {
  if (markdown.length < OFF_THREAD_MARKDOWN_LENGTH) return extractSections(markdown);
  const signal = AbortSignal.timeout(MARKDOWN_TIME_LIMIT_MS);
  try {
    return await pool.run<MarkdownSection[]>({ kind: 'sections', markdown } satisfies MarkdownTask, { signal });
  } catch (error) {
    if (signal.aborted) return [{ id: '', title: '', body: markdown }];
    throw error;
  }
}

/**
 * The pages of the `openapi-reference` template (`referencePages`), made in the worker thread when the
 * OpenAPI document is large: parsing it and the pages' markdown takes seconds for a large API.
 */
export async function referencePagesOffThread(text: string, fileName: string): Promise<ReferencePagesResult> {
  if (text.length < OFF_THREAD_MARKDOWN_LENGTH) return referencePages(text, fileName);
  const signal = AbortSignal.timeout(MARKDOWN_TIME_LIMIT_MS);
  try {
    return await pool.run<ReferencePagesResult>({ kind: 'openapi-reference', text, fileName } satisfies MarkdownTask, { signal });
  } catch (error) {
    if (signal.aborted) return { refused: `the specification took longer than ${MARKDOWN_TIME_LIMIT_MS / 1000} seconds to read into pages, its limit` };
    throw error;
  }
}

/** Ends the worker thread (it also ends by itself when idle). */
export function closeMarkdownPool(): Promise<void> {
  return pool.close();
}
