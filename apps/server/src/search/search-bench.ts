import { statSync } from 'node:fs';
import { openBenchDatabase, type BenchDatabase } from '../bench/bench-database.js';
import { positiveIntegerOption, printReport, runIfScript, stringOption } from '../bench/report.js';
import { checkpointSqlite } from '../db/index.js';
import { migrateToLatest } from '../db/migrate.js';
import { createSpace } from '../services/space-service.js';
import { searchTableBytes } from '../stores/search-store.js';
import { bootstrapBench } from '../bench/bench-owner.js';
import { reindexSpace, type SearchPageInput } from './search-index.js';
import { SEARCH_CANDIDATE_LIMIT, searchSpace } from './search-query.js';
import { seededRandom as random } from '../bench/seeded-random.js';

/*
 * Search latency on a large space: `runSearchBench()` builds a space of 50,000 generated pages (words drawn
 * from a Zipf distribution, as in natural language, plus two words that 91% of the pages contain), runs a
 * fixed set of queries many times and reports p50/p99, with and without the candidate cap.
 * Standalone: `node dist/search/search-bench.js [--pages n] [--iterations n] [--database-url url] [--json] [--keep]`;
 * a postgres:// URL benchmarks PostgreSQL in a schema of its own, dropped afterwards.
 */

export interface SearchBenchOptions {
  pages?: number;
  /** Runs of each query (capped); the uncapped comparison runs a tenth as many. */
  iterations?: number;
  /** `sqlite:<file>` or `postgres://...`; default a temporary SQLite file. */
  databaseUrl?: string;
  seed?: number;
  /** Progress lines (building takes a while). */
  log?: (line: string) => void;
  /** Leaves the database (file or schema) in place, for looking at query plans; logs where it is. */
  keep?: boolean;
}

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  runs: number;
}

export interface SearchBenchQueryResult {
  name: string;
  query: string;
  count: number;
  candidates: number;
  capped: boolean;
  cappedLatency: LatencySummary;
  uncappedLatency: LatencySummary;
  uncappedCount: number;
}

export interface SearchBenchReport {
  dialect: 'sqlite' | 'postgres';
  pages: number;
  sections: number;
  candidateLimit: number;
  /** Writing the search rows of all pages (sections generated directly, not parsed from markdown). */
  buildMs: number;
  /** Reindexing pages from markdown (cutting sections included), per page, measured on a sample. */
  markdownReindexMsPerPage: number;
  /** A reindex after editing one page of the large space. */
  oneEditReindexMs: number;
  indexBytes: number | undefined;
  queries: SearchBenchQueryResult[];
}

/** The two words most pages contain (as a product name and a common noun would). */
const COMMON_WORDS = ['quire', 'workspace'] as const;
const COMMON_SHARE = 0.91;

class TextGenerator {
  readonly vocabulary: string[];
  readonly #cumulative: number[];
  readonly #next: () => number;

  constructor(seed: number, size = 30_000) {
    this.#next = random(seed);
    const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'shi', 'po', 'ven', 'dar', 'el', 'or', 'ix', 'um', 'bra', 'sto', 'qua', 'fen', 'gri', 'tol'];
    const seen = new Set<string>(COMMON_WORDS);
    this.vocabulary = [];
    while (this.vocabulary.length < size) {
      // Frequent words are short, rare ones longer, as in natural language.
      const length = 1 + Math.floor(this.#next() * 2) + Math.floor(Math.log10(this.vocabulary.length + 10));
      let word = '';
      for (let i = 0; i < length; i++) word += syllables[Math.floor(this.#next() * syllables.length)];
      if (!seen.has(word)) {
        seen.add(word);
        this.vocabulary.push(word);
      }
    }
    // Zipf's law with exponent 1: the word of rank r has frequency proportional to 1/r.
    let total = 0;
    this.#cumulative = this.vocabulary.map((_, rank) => (total += 1 / (rank + 1)));
  }

  random(): number {
    return this.#next();
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.#next() * (max - min + 1));
  }

  word(): string {
    const target = this.#next() * this.#cumulative[this.#cumulative.length - 1]!;
    let low = 0;
    let high = this.#cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.#cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return this.vocabulary[low]!;
  }

  words(count: number): string[] {
    return Array.from({ length: count }, () => this.word());
  }

  sentence(count: number): string {
    const words = this.words(count);
    words[0] = words[0]![0]!.toUpperCase() + words[0]!.slice(1);
    return `${words.join(' ')}.`;
  }
}

interface GeneratedPage {
  id: string;
  title: string;
  path: string;
  ancestors: string[];
  sections: Array<{ id: string; title: string; body: string }>;
}

/** Pages in a tree of three levels, each with an intro and up to four headed sections. */
function generatePages(text: TextGenerator, count: number): GeneratedPage[] {
  const pages: GeneratedPage[] = [];
  const parents: Array<{ title: string; path: string; ancestors: string[] }> = [];
  for (let index = 0; index < count; index++) {
    const title = text.words(text.int(2, 5)).join(' ');
    const slug = `${title.replaceAll(' ', '-')}-${index}`;
    const parent = index % 10 === 0 || parents.length === 0 ? undefined : parents[text.int(Math.max(0, parents.length - 50), parents.length - 1)];
    const path = parent ? `${parent.path}/${slug}` : slug;
    const ancestors = parent ? [...parent.ancestors, parent.title] : [];
    if (ancestors.length < 2) parents.push({ title, path, ancestors });
    const paragraphs = (): string => Array.from({ length: text.int(1, 3) }, () => text.sentence(text.int(12, 40))).join('\n');
    const sections = [{ id: '', title: '', body: paragraphs() }];
    const headings = text.int(0, 4);
    for (let h = 0; h < headings; h++) {
      const heading = text.words(text.int(1, 4)).join(' ');
      sections.push({ id: `${heading.replaceAll(' ', '-')}-${h}`, title: heading, body: paragraphs() });
    }
    if (text.random() < COMMON_SHARE) {
      // Both in one section: a search matches sections, and the two-word query should match 91% of pages.
      const section = sections[text.int(0, sections.length - 1)]!;
      section.body = `${section.body} ${COMMON_WORDS[0]} ${text.words(2).join(' ')} ${COMMON_WORDS[1]} ${text.word()}.`;
    }
    pages.push({ id: `page${String(index).padStart(6, '0')}`, title, path, ancestors, sections });
  }
  return pages;
}

/** A word that about `pagesWanted` pages contain. */
function rareWord(pages: readonly GeneratedPage[], pagesWanted: number): string {
  const pageCounts = new Map<string, number>();
  for (const page of pages) {
    const words = new Set(page.sections.flatMap((section) => `${page.title} ${section.title} ${section.body}`.toLowerCase().match(/[a-z]+/g) ?? []));
    for (const word of words) pageCounts.set(word, (pageCounts.get(word) ?? 0) + 1);
  }
  let best = '';
  let bestDistance = Infinity;
  for (const [word, count] of pageCounts) {
    const distance = Math.abs(count - pagesWanted);
    if (distance < bestDistance || (distance === bestDistance && word < best)) {
      best = word;
      bestDistance = distance;
    }
  }
  return best;
}

function toMarkdown(page: GeneratedPage): string {
  return page.sections.map((section) => (section.title ? `## ${section.title}\n\n${section.body}` : section.body)).join('\n\n');
}

function summarize(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (quantile: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)]!;
  const round = (value: number): number => Math.round(value * 100) / 100;
  return { p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), meanMs: round(sorted.reduce((a, b) => a + b, 0) / sorted.length), runs: sorted.length };
}

async function time(runs: number, run: () => Promise<unknown>): Promise<LatencySummary> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

/** Bytes the search index takes: the search tables on PostgreSQL, the whole file on SQLite (undefined in memory). */
async function indexSize(database: BenchDatabase): Promise<number | undefined> {
  const { handle, config } = database;
  if (handle.dialect === 'postgres') return searchTableBytes(handle.db);
  if (config.dialect !== 'sqlite' || config.file === ':memory:') return undefined;
  await checkpointSqlite(handle.db);
  return statSync(config.file).size;
}

export async function runSearchBench(options: SearchBenchOptions = {}): Promise<SearchBenchReport> {
  const pageCount = options.pages ?? 50_000;
  const iterations = options.iterations ?? 200;
  const log = options.log ?? (() => {});
  const database = await openBenchDatabase('search', options.databaseUrl, { keep: options.keep ?? false, log });
  try {
    const { db, dialect } = database.handle;
    await migrateToLatest(database.handle);
    // The organization and its spaces are made as the API makes them; only their search rows are the bench's.
    const { context, caller, organizationId } = await bootstrapBench(database.handle, 'Search bench');
    const newSpace = async (title: string): Promise<string> => (await createSpace(context, caller, organizationId, { title })).space.id;

    const text = new TextGenerator(options.seed ?? 20240611);
    log(`generating ${pageCount} pages`);
    const pages = generatePages(text, pageCount);
    // The content key stands for the hash of the page's markdown blob, which the content store has at hand.
    const inputs: SearchPageInput[] = pages.map(({ id, title, path, ancestors, sections }) => ({ id, title, path, ancestors, sections, contentKey: `${id}:1` }));
    const spaceId = await newSpace('Large space');
    log(`indexing them (${dialect})`);
    let started = performance.now();
    const indexed = await reindexSpace(db, spaceId, 'bench-1', inputs);
    const buildMs = Math.round(performance.now() - started);
    log(`indexed ${indexed.sections} sections in ${buildMs} ms`);

    const edited = [...inputs];
    const target = pages[Math.floor(pageCount / 2)]!;
    edited[Math.floor(pageCount / 2)] = {
      ...inputs[Math.floor(pageCount / 2)]!,
      sections: [{ id: '', title: '', body: `${target.sections[0]!.body} edited` }],
      contentKey: `${target.id}:2`,
    } as SearchPageInput;
    started = performance.now();
    await reindexSpace(db, spaceId, 'bench-2', edited);
    const oneEditReindexMs = Math.round(performance.now() - started);

    const sample = pages.slice(0, Math.min(1_000, pageCount)).map((page) => ({ id: page.id, title: page.title, path: page.path, ancestors: page.ancestors, markdown: toMarkdown(page) }));
    const sampleSpace = await newSpace('Markdown sample');
    started = performance.now();
    await reindexSpace(db, sampleSpace, 'bench-1', sample);
    const markdownReindexMsPerPage = Math.round(((performance.now() - started) / sample.length) * 1000) / 1000;

    // The rare word is in about one page in 2,000 (25 of 50,000); a three-letter prefix of a common word
    // matches 91% of the pages.
    const rare = rareWord(pages, Math.max(2, Math.round(pageCount / 2_000)));
    const queries = [
      { name: 'rare word', query: rare },
      { name: 'common word (91% of pages)', query: COMMON_WORDS[0] },
      { name: 'two common words (91%)', query: COMMON_WORDS.join(' ') },
      { name: 'prefix of a common word', query: COMMON_WORDS[1].slice(0, 3) },
      { name: 'common word + rare word', query: `${COMMON_WORDS[0]} ${rare}` },
    ];
    const results: SearchBenchQueryResult[] = [];
    for (const { name, query } of queries) {
      log(`query: ${name}`);
      const answer = await searchSpace(db, spaceId, query, { limit: 20 });
      const cappedLatency = await time(iterations, () => searchSpace(db, spaceId, query, { limit: 20 }));
      const uncapped = await searchSpace(db, spaceId, query, { limit: 20, candidateLimit: Number.MAX_SAFE_INTEGER });
      const uncappedLatency = await time(Math.max(5, Math.ceil(iterations / 10)), () =>
        searchSpace(db, spaceId, query, { limit: 20, candidateLimit: Number.MAX_SAFE_INTEGER }));
      results.push({
        name,
        query,
        count: answer.count,
        candidates: answer.stats.candidates,
        capped: answer.stats.capped,
        cappedLatency: cappedLatency,
        uncappedLatency: uncappedLatency,
        uncappedCount: uncapped.count,
      });
    }
    return {
      dialect,
      pages: pageCount,
      sections: indexed.sections,
      candidateLimit: SEARCH_CANDIDATE_LIMIT,
      buildMs,
      markdownReindexMsPerPage,
      oneEditReindexMs,
      indexBytes: await indexSize(database),
      queries: results,
    };
  } finally {
    await database.cleanup();
  }
}

export function formatSearchBenchReport(report: SearchBenchReport): string {
  const mb = report.indexBytes === undefined ? 'n/a' : `${(report.indexBytes / 1024 / 1024).toFixed(1)} MB`;
  const lines = [
    `search on ${report.dialect}: ${report.pages} pages, ${report.sections} sections, candidate cap ${report.candidateLimit}`,
    `build ${report.buildMs} ms; reindex after one edit ${report.oneEditReindexMs} ms; from markdown ${report.markdownReindexMsPerPage} ms/page; size ${mb}`,
    '',
    'query                          pages  ranked | capped p50   p99 ms | uncapped p50   p99 ms (pages)',
  ];
  for (const q of report.queries) {
    lines.push(
      `${q.name.padEnd(30)} ${String(q.count).padStart(6)} ${String(q.candidates).padStart(7)} | ${q.cappedLatency.p50Ms.toFixed(2).padStart(10)} ${q.cappedLatency.p99Ms.toFixed(2).padStart(6)}    | ${q.uncappedLatency.p50Ms.toFixed(2).padStart(12)} ${q.uncappedLatency.p99Ms.toFixed(2).padStart(6)}    (${q.uncappedCount})`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const pages = positiveIntegerOption('pages');
  const iterations = positiveIntegerOption('iterations');
  const databaseUrl = stringOption('database-url');
  const report = await runSearchBench({
    ...(pages ? { pages } : {}),
    ...(iterations ? { iterations } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    keep: process.argv.includes('--keep'),
    log: (line) => process.stderr.write(`search bench: ${line}\n`),
  });
  printReport(report, formatSearchBenchReport);
}

runIfScript(import.meta.url, 'search bench', main);
