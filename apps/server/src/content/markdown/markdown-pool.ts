import { availableParallelism } from 'node:os';
import { lazyWorkerPool } from '../../worker-pool.js';
import { referencePages, type ReferencePagesResult } from '../openapi-reference.js';
import { ContentError } from '../errors.js';
import { checkMarkdownLimits, OFF_THREAD_MARKDOWN_LENGTH, parsesOffThread } from './limits.js';
import { extractReferences, type ExtractedReferences, type LinkDestination } from './links.js';
import type { Doc } from './document.js';
import { markdownToDocument } from './to-document.js';
import {
  limitBreachesOf,
  linkDestinationsAndDepthsOf,
  linkDestinationsOf,
  type CheckMarkdownResult,
  type LinksAndDepth,
  type MarkdownTask,
} from './markdown-worker.js';

export type { LinksAndDepth } from './markdown-worker.js';
import { extractSections, type MarkdownSection } from './sections.js';

/*
 * Markdown that is written is checked and parsed in a worker thread (piscina) when it is large, so that a
 * page write of the largest allowed size does not block the event loop for the seconds its parse takes; so
 * is large markdown cut into search sections when a space is indexed, and a large OpenAPI document made into
 * the pages of the `openapi-reference` template.
 * So is markdown with many inline delimiters in one paragraph (limits.ts `parsesOffThread`): its parse time
 * grows with their square. Other small markdown is parsed in place: a thread round trip would cost more than
 * the parse. The thread starts on first use and ends after a minute idle.
 */

/** How long checking one markdown text may take before it is refused. */
export const MARKDOWN_TIME_LIMIT_MS = 60_000;

const pool = lazyWorkerPool({ owner: import.meta.url, worker: 'markdown-worker.js', description: 'the markdown worker', heapMb: 1024 });

/**
 * How many threads parse a Git import's pages on a machine of `cores` cores: one per core but one, since the
 * import's own thread works alongside them (it rewrites each batch's links as the batch comes back, then builds
 * and writes the tree). A thread that starts cold also compiles the parser anew: in the CPU profile of the
 * 5,000-page import bench, each spent about 0.8 s of CPU (V8's compiler threads, a slower first pass) before
 * parsing at full speed, so on 2 cores a second thread cost more CPU than it saved time (apps/server README,
 * "Git import of 5,000 pages").
 */
export function batchThreadCount(cores: number = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/**
 * The threads that parse many texts at once (a Git import's pages): their texts are independent, so the
 * batches run side by side while the single-thread pool above stays free for writes.
 */
const batchPool = lazyWorkerPool({
  owner: import.meta.url,
  worker: 'markdown-worker.js',
  description: 'the markdown worker',
  heapMb: 1024,
  maxThreads: batchThreadCount(),
});

/** Texts per task: enough that a thread round trip costs little beside their parses. */
const BATCH_TEXTS = 250;
/** Texts shorter than this in all are parsed in place: starting threads would cost more than their parses. */
const IN_PLACE_CHARACTERS = 200_000;

/**
 * The link destinations of many texts (`linkDestinationsOf`: null for text past the limits, which
 * `rewriteLinks` leaves as it is), in batches parsed in parallel worker threads, in the order of the texts.
 */
export async function linkDestinationsInBatches(
  markdowns: readonly string[],
  options: BatchOptions = {},
): Promise<Array<LinkDestination[] | null>> {
  if (inPlace(markdowns, options)) return linkDestinationsOf(markdowns);
  return runInBatches(markdowns, (batch) => ({ kind: 'link-destinations', markdowns: batch }));
}

/**
 * Starts the threads of the batch pool and loads the parser in each, for a caller that will soon parse texts
 * of about `characters` in all (a Git import, while it reads the files): a thread's start and first parse
 * take a few hundred milliseconds on a loaded machine, which then overlap with that reading. Nothing when so
 * few would be parsed in place. Never fails: a thread that cannot start fails the batches that need it, as
 * without this.
 */
export function warmMarkdownBatches(characters: number): void {
  if (characters < IN_PLACE_CHARACTERS) return;
  for (let i = 0; i < batchThreadCount(); i++) {
    batchPool.run({ kind: 'links-and-depths', markdowns: ['# Warm\n\nA [link](a.md).'] } satisfies MarkdownTask).catch(() => undefined);
  }
}

/**
 * The link destinations and tree depth of many texts (`linkDestinationsAndDepthsOf`: one parse each; null for
 * text past the limits that need no parse), in batches parsed in parallel worker threads, in the order of
 * the texts.
 */
export async function linkDestinationsAndDepthsInBatches(
  markdowns: readonly string[],
  options: BatchOptions & { onBatch?: BatchListener<LinksAndDepth> } = {},
): Promise<LinksAndDepth[]> {
  if (inPlace(markdowns, options)) {
    const results = linkDestinationsAndDepthsOf(markdowns);
    options.onBatch?.(0, results);
    return results;
  }
  return runInBatches(markdowns, (batch) => ({ kind: 'links-and-depths', markdowns: batch }), options.onBatch);
}

/**
 * Called with each batch's answers as soon as that batch is parsed (`offset`: the index of its first text), so
 * that the caller works on them while the threads parse the next ones; batches may come back in any order.
 */
export type BatchListener<R> = (offset: number, results: readonly R[]) => void;

/**
 * For each text about to be stored, the message of the content limit it passes (`parseMarkdownWithinLimits`)
 * or null, in batches checked in parallel worker threads, in the order of the texts.
 */
export async function limitBreachesInBatches(
  texts: ReadonlyArray<{ markdown: string; what: string }>,
  options: BatchOptions = {},
): Promise<Array<string | null>> {
  if (inPlace(texts.map(({ markdown }) => markdown), options)) return limitBreachesOf(texts);
  return runInBatches(texts, (batch) => ({ kind: 'limit-breaches', texts: batch }));
}

export interface BatchOptions {
  /** Texts shorter than this in all are parsed in place (IN_PLACE_CHARACTERS by default). */
  inPlaceCharacters?: number;
}

function inPlace(markdowns: readonly string[], options: BatchOptions): boolean {
  const characters = markdowns.reduce((sum, markdown) => sum + markdown.length, 0);
  return characters < (options.inPlaceCharacters ?? IN_PLACE_CHARACTERS);
}

async function runInBatches<T, R>(items: readonly T[], task: (batch: T[]) => MarkdownTask, onBatch?: BatchListener<R>): Promise<R[]> {
  const runs: Promise<R[]>[] = [];
  for (let offset = 0; offset < items.length; offset += BATCH_TEXTS) {
    const run = batchPool.run<R[]>(task(items.slice(offset, offset + BATCH_TEXTS)));
    runs.push(onBatch ? run.then((results) => (onBatch(offset, results), results)) : run);
  }
  return (await Promise.all(runs)).flat();
}

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
  if (!parsesOffThread(markdown)) return extractSections(markdown);
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

/**
 * Checks markdown about to be stored (`checkMarkdownLimits`), in the worker thread when `parsesOffThread`;
 * throws ContentError `content_limit` naming the limit.
 */
export async function checkMarkdownLimitsOffThread(markdown: string, what: string): Promise<void> {
  if (parsesOffThread(markdown)) await checkMarkdownOffThread(markdown, what);
  else checkMarkdownLimits(markdown, what);
}

/**
 * The document of stored markdown (`markdownToDocument`), made in the worker thread when `parsesOffThread`.
 * Page paths are passed as a plain map: functions do not cross threads. Past the time limit, ContentError
 * `content_limit`.
 */
export async function markdownToDocumentOffThread(markdown: string, options: DocumentOptions): Promise<Doc> {
  if (!parsesOffThread(markdown)) {
    return markdownToDocument(markdown, { ...withPagePath(options), resolvePagePath: (path) => options.pageIds?.get(path), what: options.what });
  }
  const result = await runLimited<{ document: Doc } | { refused: string }>({ kind: 'document', markdown, ...options }, options.what);
  if ('refused' in result) throw new ContentError('content_limit', result.refused);
  return result.document;
}

/** The references of stored markdown (`extractReferences`), found in the worker thread when `parsesOffThread`. */
export async function referencesOffThread(markdown: string, options: { pagePath?: string } = {}): Promise<ExtractedReferences> {
  if (!parsesOffThread(markdown)) return extractReferences(markdown, options);
  const signal = AbortSignal.timeout(MARKDOWN_TIME_LIMIT_MS);
  try {
    return await pool.run<ExtractedReferences>({ kind: 'references', markdown, ...options } satisfies MarkdownTask, { signal });
  } catch (error) {
    // As for markdown past the limits: no references rather than a failed read of the whole revision.
    if (signal.aborted) return { links: [], files: [], specs: [] };
    throw error;
  }
}

export interface DocumentOptions {
  pagePath?: string;
  /** Page ids by space path, to make links by path page references. */
  pageIds?: Map<string, string>;
  what: string;
}

function withPagePath(options: { pagePath?: string }): { pagePath?: string } {
  return options.pagePath !== undefined ? { pagePath: options.pagePath } : {};
}

async function runLimited<T>(task: MarkdownTask, what: string): Promise<T> {
  const signal = AbortSignal.timeout(MARKDOWN_TIME_LIMIT_MS);
  try {
    return await pool.run<T>(task, { signal });
  } catch (error) {
    if (signal.aborted) throw new ContentError('content_limit', `${what} took longer than ${MARKDOWN_TIME_LIMIT_MS / 1000} seconds to read, its limit`);
    throw error;
  }
}

/** Ends the worker threads (they also end by themselves when idle). */
export async function closeMarkdownPool(): Promise<void> {
  await Promise.all([pool.close(), batchPool.close()]);
}
