import { createHash } from 'node:crypto';
import { extractSections, parsesOffThread, sectionsOffThread, type MarkdownSection } from '../content/markdown/index.js';
import type { MaterializedPage, MaterializedTree } from '../content/tree.js';
import type { Db } from '../db/index.js';
import { nowIso } from '../ids.js';
import { nextCounterValue } from '../stores/counter-store.js';
import {
  applyTermCounts,
  deleteSearchRowsOfPages,
  deleteSearchTermsOfSpace,
  deleteSearchRowsOfSpace,
  findIndexedRevision,
  findIndexedState,
  findSearchStateForUpdate,
  findStoredPageHashes,
  findSectionTextsOfPages,
  findStoredPageHashesOf,
  insertSearchPostings,
  insertSearchRows,
  insertSearchStateIfMissing,
  refreshSearchStatistics,
  searchableSpaceExists,
  updateSearchState,
  type SearchPostingInsert,
  type SearchSectionInsert,
} from '../stores/search-store.js';
import { sectionPostings, sectionWords } from './search-rank.js';

/*
 * Writing the search rows of a space (tables of migration 0040). A reindex makes the space's rows exactly
 * those of the given pages, in one transaction, but writes only what changed: each page's rows carry a hash
 * of what they were made from, so a new revision that edits one page of 50,000 rewrites that page's rows,
 * not the space's (a full rewrite holds the write lock for seconds: about 10 s to write 50,000 pages on
 * SQLite, whose single connection every other request then waits for).
 */

/** Row ids of a space are `row_block * ROWS_PER_BLOCK + n` (see the migration). */
export const ROWS_PER_BLOCK = 2 ** 32;
/** Ids stay exact JavaScript numbers, which leaves 2^21 - 1 blocks (spaces ever indexed) per database. */
const MAX_ROW_BLOCK = Math.floor(Number.MAX_SAFE_INTEGER / ROWS_PER_BLOCK);
/** A section body is indexed up to this many characters (PostgreSQL refuses a tsvector over 1 MB). */
export const MAX_SECTION_BODY_LENGTH = 100_000;
/**
 * Part of every page hash: bumping it rewrites every page on its next reindex (after a change in how rows are
 * made). 2: rows come with their postings and word counts (migration 0400).
 */
const ROW_FORMAT = 2;
/** Rows of this format have the postings and word counts that best-first ranking reads (search-query.ts). */
export const RANKED_ROW_FORMAT = ROW_FORMAT;
/** A reindex that writes this many rows refreshes PostgreSQL's statistics of the table. */
const ANALYZE_AFTER_ROWS = 10_000;

export interface SearchPageBase {
  id: string;
  title: string;
  /** The page's path in the space (slugs joined by `/`). */
  path: string;
  /** Titles of the pages above it, from the top level down to its parent. */
  ancestors: readonly string[];
}

/**
 * A page to index: its markdown, or sections already cut from it (`extractSections`). With a `contentKey`
 * (the hash of the markdown blob, say) an unchanged page is recognised by that key, and markdown given as a
 * function is read only for the pages whose rows are rewritten.
 */
export type SearchPageInput = SearchPageBase & (
  | { markdown: string; contentKey?: string }
  | { markdown: () => Promise<string>; contentKey: string }
  | { sections: readonly MarkdownSection[]; contentKey?: string }
);

export interface ReindexResult {
  /** False when the space does not exist (any more): nothing was written. */
  indexed: boolean;
  pages: number;
  sections: number;
  /** Pages whose rows were (re)written, and pages whose rows were removed without replacement. */
  writtenPages: number;
  removedPages: number;
  /** Rows (sections) written. */
  writtenSections: number;
  /** Pages whose hash was computed and compared with the stored one: the space's, or what a tree comparison listed. */
  comparedPages: number;
  /** Stored page hashes read in the transaction (every page's for a full reindex). */
  storedHashesRead: number;
}

interface PreparedPage {
  input: SearchPageInput;
  hash: string;
}

interface SectionDraft {
  section_id: string;
  section_title: string;
  body: string;
}

/**
 * Makes the space's search rows those of `pages` (in tree order: the order is the "index order" in which
 * the candidate cap of a search takes matches). Runs in `db`'s transaction when it is one, else in its own.
 * Markdown is cut into sections before the transaction, yielding to the event loop between pages, so a big
 * first index neither holds the write lock while parsing nor stalls other requests.
 */
export async function reindexSpace(db: Db, spaceId: string, revisionId: string, pages: readonly SearchPageInput[]): Promise<ReindexResult> {
  const prepared = preparePages(pages);
  const result = await writeInTransaction(db, prepared, (reader) => findStoredPageHashes(reader, spaceId), (trx, drafts) =>
    writeSpace(trx, spaceId, revisionId, prepared, drafts));
  return result!;
}

/** The pages of a revision that differ from the indexed one (search-tree-changes.ts `searchChangesBetween`). */
export interface SearchPageChanges {
  /** Pages that may have changed, in tree order, with their place in the new revision. */
  pages: readonly SearchPageInput[];
  /** Ids of pages that may no longer be indexed pages. */
  removed: readonly string[];
}

/**
 * Brings the space's rows from revision `fromRevisionId` to `revisionId` given what changed between the two,
 * comparing and reading the stored hashes of the listed pages only; the rows written are exactly those a
 * full reindex (`reindexSpace` with every page) would write. Answers undefined, having written nothing, when
 * the space's rows are not those of `fromRevisionId` in the current row format (another reindex moved them,
 * or they predate the format), or when the rows would leave the space's block: the caller reindexes in full.
 */
export async function reindexSpaceChanges(
  db: Db,
  spaceId: string,
  fromRevisionId: string,
  revisionId: string,
  changes: SearchPageChanges,
): Promise<ReindexResult | undefined> {
  const prepared = preparePages(changes.pages);
  const listed = [...prepared.map((page) => page.input.id), ...changes.removed];
  return writeInTransaction(db, prepared, (reader) => findStoredPageHashesOf(reader, spaceId, listed), (trx, drafts) =>
    writeChanges(trx, spaceId, fromRevisionId, revisionId, prepared, changes.removed, drafts));
}

/**
 * Drafts the rows of the pages whose stored hash differs (outside the transaction), then writes in one
 * transaction, drafting again and retrying when the transaction found pages it has no draft of.
 */
async function writeInTransaction(
  db: Db,
  prepared: readonly PreparedPage[],
  storedHashes: (reader: Db) => Promise<Map<string, string>>,
  write: (trx: Db, drafts: Map<string, SectionDraft[]>) => Promise<ReindexResult | undefined>,
): Promise<ReindexResult | undefined> {
  const drafts = new Map<string, SectionDraft[]>();
  for (let attempt = 1; ; attempt++) {
    const stored = await storedHashes(db);
    await draftRows(prepared.filter((page) => stored.get(page.input.id) !== page.hash), drafts);
    try {
      if (db.isTransaction) return await write(db, drafts);
      const result = await db.transaction().execute((trx) => write(trx, drafts));
      if (result && result.writtenSections >= ANALYZE_AFTER_ROWS) await refreshSearchStatistics(db);
      return result;
    } catch (error) {
      // The transaction found pages to rewrite whose markdown was not read (see requireDrafts): read them, retry.
      if (!(error instanceof MissingDrafts) || attempt >= 5) throw error;
      await draftRows(error.pages, drafts);
    }
  }
}

/** Thrown before any row is replaced, so that the transaction can be retried once these pages are drafted. */
class MissingDrafts extends Error {
  constructor(readonly pages: readonly PreparedPage[]) {
    super('pages to rewrite were not read yet');
  }
}

/** Removes a space's search rows (deleting the space does too, through the foreign keys). */
export async function dropSpace(db: Db, spaceId: string): Promise<void> {
  await deleteSearchRowsOfSpace(db, spaceId);
}

/** The revision the space's search rows come from, or undefined when it was never indexed. */
export async function indexedRevision(db: Db, spaceId: string): Promise<string | undefined> {
  return findIndexedRevision(db, spaceId);
}

/**
 * The revision the space's rows come from, and whether they were made in the current row format (only such
 * rows can be brought forward by reindexSpaceChanges); undefined when the space was never indexed.
 */
export async function indexedState(db: Db, spaceId: string): Promise<{ revisionId: string; currentFormat: boolean } | undefined> {
  const state = await findIndexedState(db, spaceId);
  return state && { revisionId: state.revision_id, currentFormat: state.row_format === ROW_FORMAT };
}

/**
 * The pages of a revision tree to index, in tree order: documents (and computed pages); groups and links
 * are not results, but a group's title is an ancestor of its pages. Markdown is read (with `readMarkdown`,
 * e.g. `(hash) => readMarkdown(reader, hash)` of the content core) only for pages whose content hash is not
 * indexed already, so a reindex after a one-page edit reads one blob.
 */
export function searchPagesOf(tree: MaterializedTree, readMarkdown: (contentHash: string) => Promise<string>): SearchPageInput[] {
  const out: SearchPageInput[] = [];
  const walk = (pages: readonly MaterializedPage[], ancestors: readonly string[]): void => {
    for (const page of pages) {
      if ((page.type === 'document' || page.type === 'computed') && page.path !== undefined) {
        out.push(searchPageInput({ id: page.id, title: page.title, path: page.path, contentHash: page.contentHash }, ancestors, readMarkdown));
      }
      if (page.type !== 'link') walk(page.pages, [...ancestors, page.title]);
    }
  };
  walk(tree.pages, []);
  return out;
}

/** The input of one indexed page of a revision: its markdown is known by its hash and read only when needed. */
export function searchPageInput(
  page: { id: string; title: string; path: string; contentHash: string | null },
  ancestors: readonly string[],
  readMarkdown: (contentHash: string) => Promise<string>,
): SearchPageInput {
  const base = { id: page.id, title: page.title, path: page.path, ancestors };
  const contentHash = page.contentHash;
  return contentHash === null ? { ...base, markdown: '' } : { ...base, contentKey: contentHash, markdown: () => readMarkdown(contentHash) };
}

function preparePages(pages: readonly SearchPageInput[]): PreparedPage[] {
  const seen = new Set<string>();
  return pages.map((input) => {
    if (seen.has(input.id)) throw new Error(`page ${input.id} is given twice`);
    seen.add(input.id);
    const source = input.contentKey !== undefined
      ? ['key', input.contentKey]
      : 'sections' in input
        ? ['sections', input.sections.map((s) => [s.id, s.title, s.body])]
        : ['markdown', input.markdown];
    const hash = createHash('sha256')
      .update(JSON.stringify([ROW_FORMAT, input.title, input.path, input.ancestors, source]))
      .digest('base64url');
    return { input, hash };
  });
}

/**
 * How long drafting runs on the event loop before it lets waiting requests in. A request read through the
 * API over loopback (the reader's page: lookup, content) crosses the event loop several times, each crossing
 * waiting up to one slice: at 20 ms a page first rendered during the indexing of a 1,000-page import took
 * 130 ms instead of 8 (measured with `npm run bench -- --only reader` before it waited for the index).
 */
const DRAFT_SLICE_MS = 4;

async function draftRows(pages: readonly PreparedPage[], into: Map<string, SectionDraft[]>): Promise<void> {
  let since = performance.now();
  for (const page of pages) {
    if (into.has(page.input.id)) continue;
    const input = page.input;
    const markdown = 'markdown' in input ? (typeof input.markdown === 'string' ? input.markdown : await input.markdown()) : undefined;
    // Large markdown is cut in the markdown worker thread: its parse takes seconds.
    const cut = markdown === undefined ? undefined : await sectionsOffThread(markdown.normalize('NFC'));
    into.set(input.id, sectionsOf(input, markdown, cut));
    if (performance.now() - since > DRAFT_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

function sectionsOf(input: SearchPageInput, markdown: string | undefined, cut?: MarkdownSection[]): SectionDraft[] {
  const sections = 'sections' in input ? input.sections : cut ?? extractSections((markdown ?? '').normalize('NFC'));
  // A page without text still has a row, so that its title is found and it has a row at position 0.
  const list = sections.length > 0 ? sections : [{ id: '', title: '', body: '' }];
  return list.map((section) => ({
    section_id: section.id,
    section_title: section.title.normalize('NFC'),
    body: clip(section.body.normalize('NFC'), MAX_SECTION_BODY_LENGTH),
  }));
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = /[\ud800-\udbff]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, cut);
}

const NOT_INDEXED: ReindexResult = {
  indexed: false, pages: 0, sections: 0, writtenPages: 0, removedPages: 0, writtenSections: 0, comparedPages: 0, storedHashesRead: 0,
};

/** The full reindex: every page of the revision is compared with every stored page of the space. */
async function writeSpace(
  trx: Db,
  spaceId: string,
  revisionId: string,
  prepared: readonly PreparedPage[],
  drafts: Map<string, SectionDraft[]>,
): Promise<ReindexResult> {
  if (!(await searchableSpaceExists(trx, spaceId))) return NOT_INDEXED;
  const state = await lockSpaceState(trx, spaceId);
  const stored = await findStoredPageHashes(trx, spaceId);
  const wanted = new Map(prepared.map((page) => [page.input.id, page.hash]));
  const removed = [...stored.keys()].filter((pageId) => wanted.get(pageId) !== stored.get(pageId));
  const written = prepared.filter((page) => stored.get(page.input.id) !== page.hash);
  const rowCount = rowCountOf(written, drafts);
  let plan = { removed, written, pageCount: prepared.length };
  let block = state.row_block;
  let nextRow = Number(state.next_row);
  if (nextRow + rowCount > ROWS_PER_BLOCK) {
    // The block is used up (after billions of rewritten rows): move the whole space to a new block.
    block = await allocateBlock(trx);
    nextRow = 0;
    plan = { removed: [...stored.keys()], written: [...prepared], pageCount: prepared.length };
  }
  // Rows of an older format have no word counts kept: every page is rewritten then (its hash changed), and the
  // counts start over from the new rows.
  const countsKept = state.row_format === ROW_FORMAT;
  if (!countsKept) await deleteSearchTermsOfSpace(trx, spaceId);
  const result = await writeRows(trx, spaceId, revisionId, { block, nextRow, sectionCount: state.section_count, countsKept }, plan, drafts);
  return {
    ...result,
    removedPages: plan.removed.filter((pageId) => !wanted.has(pageId)).length,
    comparedPages: prepared.length,
    storedHashesRead: stored.size,
  };
}

/**
 * The reindex of what a tree comparison listed: the same comparison as writeSpace's, restricted to the
 * listed pages (every other page is known to be unchanged, and so are its rows). Undefined when it cannot
 * apply (see reindexSpaceChanges).
 */
async function writeChanges(
  trx: Db,
  spaceId: string,
  fromRevisionId: string,
  revisionId: string,
  prepared: readonly PreparedPage[],
  gone: readonly string[],
  drafts: Map<string, SectionDraft[]>,
): Promise<ReindexResult | undefined> {
  if (!(await searchableSpaceExists(trx, spaceId))) return NOT_INDEXED;
  const state = await findSearchStateForUpdate(trx, spaceId);
  if (!state || state.revision_id !== fromRevisionId || state.row_format !== ROW_FORMAT) return undefined;
  const wanted = new Map(prepared.map((page) => [page.input.id, page.hash]));
  const stored = await findStoredPageHashesOf(trx, spaceId, [...wanted.keys(), ...gone]);
  const removed = [...stored.keys()].filter((pageId) => wanted.get(pageId) !== stored.get(pageId));
  const written = prepared.filter((page) => stored.get(page.input.id) !== page.hash);
  const rowCount = rowCountOf(written, drafts);
  const nextRow = Number(state.next_row);
  if (nextRow + rowCount > ROWS_PER_BLOCK) return undefined;
  const removedPages = removed.filter((pageId) => !wanted.has(pageId)).length;
  const addedPages = written.filter((page) => !stored.has(page.input.id)).length;
  const pageCount = state.page_count + addedPages - removedPages;
  const result = await writeRows(trx, spaceId, revisionId, { block: state.row_block, nextRow, sectionCount: state.section_count, countsKept: true }, { removed, written, pageCount }, drafts);
  return { ...result, removedPages, comparedPages: prepared.length, storedHashesRead: stored.size };
}

/** How many rows these pages take, once each has its drafted rows (requireDrafts throws for any that has not). */
function rowCountOf(pages: readonly PreparedPage[], drafts: Map<string, SectionDraft[]>): number {
  requireDrafts(pages, drafts);
  return pages.reduce((total, page) => total + drafts.get(page.input.id)!.length, 0);
}

/** Deletes the rows of `removed`, writes those of `written` from `nextRow` of the block, records the state. */
async function writeRows(
  trx: Db,
  spaceId: string,
  revisionId: string,
  at: { block: number; nextRow: number; sectionCount: number; countsKept: boolean },
  plan: { removed: readonly string[]; written: readonly PreparedPage[]; pageCount: number },
  drafts: Map<string, SectionDraft[]>,
): Promise<ReindexResult> {
  requireDrafts(plan.written, drafts);
  // The word counts lose the words of the rows that go (read before they go) and gain those of the new rows.
  const termCounts = new Map<string, { sections: number; pages: number }>();
  const removedRows = plan.removed.length > 0 && at.countsKept ? await findSectionTextsOfPages(trx, spaceId, plan.removed) : [];
  const removedByPage = new Map<string, Array<{ page_title: string; section_title: string; body: string }>>();
  for (const row of removedRows) removedByPage.set(row.page_id, [...(removedByPage.get(row.page_id) ?? []), row]);
  for (const sections of removedByPage.values()) countPageWords(termCounts, sections.map((row) => sectionWords(row.page_title, row.section_title, row.body).counts), -1);
  let sectionCount = at.sectionCount - await deleteSearchRowsOfPages(trx, spaceId, plan.removed);

  // Row ids follow each other in the order of the pages, so the space's index order is its tree order.
  let rowId = at.block * ROWS_PER_BLOCK + at.nextRow;
  const rows: SearchSectionInsert[] = plan.written.flatMap((page) =>
    drafts.get(page.input.id)!.map((draft, position) => ({
      id: rowId++,
      space_id: spaceId,
      revision_id: revisionId,
      page_id: page.input.id,
      page_hash: page.hash,
      section_position: position,
      depth: page.input.ancestors.length,
      page_title: page.input.title.normalize('NFC'),
      page_path: page.input.path,
      ancestors: JSON.stringify(page.input.ancestors.map((title) => title.normalize('NFC'))),
      ...draft,
    })),
  );
  await insertSearchRows(trx, rows);
  sectionCount += rows.length;

  // Each row's postings (a bounded number: search-rank.ts), and the words of each written page.
  const postings: SearchPostingInsert[] = [];
  let pageWords: Array<Map<string, unknown>> = [];
  rows.forEach((row, index) => {
    const words = sectionWords(row.page_title, row.section_title, row.body);
    for (const { term, impact } of sectionPostings(words)) {
      postings.push({ space_id: spaceId, term, minus_impact: -impact, depth: row.depth, page_id: row.page_id, row_id: Number(row.id) });
    }
    pageWords.push(words.counts);
    if (index === rows.length - 1 || rows[index + 1]!.page_id !== row.page_id) {
      countPageWords(termCounts, pageWords, 1);
      pageWords = [];
    }
  });
  // In key order: a large write then fills the index's pages one after the other instead of all over it.
  postings.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.minus_impact - b.minus_impact || a.depth - b.depth || (a.page_id < b.page_id ? -1 : a.page_id > b.page_id ? 1 : a.row_id - b.row_id)));
  await insertSearchPostings(trx, postings);
  await applyTermCounts(trx, spaceId, termCounts);

  await updateSearchState(trx, spaceId, {
    revision_id: revisionId,
    row_block: at.block,
    next_row: at.nextRow + rows.length,
    page_count: plan.pageCount,
    section_count: sectionCount,
    indexed_at: nowIso(),
    row_format: ROW_FORMAT,
  });
  return {
    indexed: true,
    pages: plan.pageCount,
    sections: sectionCount,
    writtenPages: plan.written.length,
    removedPages: 0,
    writtenSections: rows.length,
    comparedPages: 0,
    storedHashesRead: 0,
  };
}

/** Adds `sign` to the count of every word of a page's sections: once per section holding it, once for the page. */
function countPageWords(into: Map<string, { sections: number; pages: number }>, sections: ReadonlyArray<Map<string, unknown>>, sign: 1 | -1): void {
  const page = new Set<string>();
  for (const words of sections) {
    for (const term of words.keys()) {
      let entry = into.get(term);
      if (!entry) into.set(term, (entry = { sections: 0, pages: 0 }));
      entry.sections += sign;
      page.add(term);
    }
  }
  for (const term of page) into.get(term)!.pages += sign;
}

/**
 * Markdown is read and cut before the transaction. Pages it has no rows for yet (changed by a concurrent
 * reindex meanwhile, or all pages when a space moves to a new block) are cut here when that is CPU work
 * only; reading markdown inside the transaction is not done (no I/O in a transaction, and on SQLite a
 * loader using the same database would wait for this very transaction): the caller retries instead.
 */
function requireDrafts(pages: readonly PreparedPage[], drafts: Map<string, SectionDraft[]>): void {
  // Large markdown is not cut here, in the transaction and on the event loop: the caller drafts it in the
  // worker thread and retries.
  const unread = pages.filter((page) => !drafts.has(page.input.id) && 'markdown' in page.input
    && (typeof page.input.markdown !== 'string' || parsesOffThread(page.input.markdown)));
  if (unread.length > 0) throw new MissingDrafts(unread);
  for (const page of pages) {
    if (drafts.has(page.input.id)) continue;
    const input = page.input;
    drafts.set(input.id, sectionsOf(input, 'markdown' in input ? (input.markdown as string) : undefined));
  }
}

/**
 * The space's search_spaces row, created on first use and locked for the rest of the transaction, so that
 * two reindexes of one space run one after the other (PostgreSQL; SQLite transactions are exclusive).
 */
async function lockSpaceState(trx: Db, spaceId: string) {
  const existing = await findSearchStateForUpdate(trx, spaceId);
  if (existing) return existing;
  const block = await allocateBlock(trx);
  // A concurrent first reindex may have created it meanwhile; its row (and block) is used then.
  await insertSearchStateIfMissing(trx, {
    space_id: spaceId, revision_id: '', row_block: block, next_row: 0, page_count: 0, section_count: 0, indexed_at: nowIso(), row_format: ROW_FORMAT,
  });
  const created = await findSearchStateForUpdate(trx, spaceId);
  if (!created) throw new Error(`the search state of space ${spaceId} could not be created`);
  return created;
}

async function allocateBlock(trx: Db): Promise<number> {
  const block = await nextCounterValue(trx, 'search', 'row_block');
  if (block > MAX_ROW_BLOCK) throw new Error('the search index has used all its row blocks');
  return block;
}
