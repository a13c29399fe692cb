import {
  CachingObjectReader,
  materialize,
  readMarkdown,
  WorkingTree,
  type MaterializedFile,
  type MaterializedPage,
  type MaterializedReusable,
  type MaterializedTree,
  type ObjectReader,
} from '../content/index.js';
import type { Db } from '../db/index.js';
import { SqlObjectReader } from '../stores/content-object-store.js';
import { findRevisionOfSpace, type RevisionRow } from '../stores/revision-store.js';

/*
 * Reading the content of a revision for the content reads, links, search and templates. A revision names
 * the root hash of an immutable tree, so everything derived from a root (the decoded objects, the
 * materialized tree and its indexes) can be cached by hash without ever being invalidated: a 10,000-page
 * space is decoded once, and later reads of the same revision cost no query at all.
 */

/** A revision's tree with the lookups every read needs. Shared between requests: never mutate it. */
export interface RevisionContent {
  root: string;
  tree: MaterializedTree;
  pages: ReadonlyMap<string, IndexedPage>;
  /** Document, group and computed pages by path (slugs joined by `/`). */
  byPath: ReadonlyMap<string, MaterializedPage>;
  files: ReadonlyMap<string, MaterializedFile>;
  reusables: ReadonlyMap<string, MaterializedReusable>;
}

export interface IndexedPage {
  page: MaterializedPage;
  parent: MaterializedPage | null;
  /** Titles of the pages above, from the top level down to the parent. */
  ancestors: readonly string[];
}

/** Decoded objects of every database of this process; content-addressed, so never stale. */
const readers = new WeakMap<Db, ObjectReader>();
/** Materialized trees by root hash: the few revisions being read at the moment. */
const trees = new Map<string, Promise<RevisionContent>>();
const MAX_CACHED_TREES = 32;

/**
 * The object reader for `db`. Outside a transaction it is the process-wide cache; inside one it reads
 * through the transaction (on SQLite the single connection belongs to the transaction until it ends, so
 * reading through the root handle there would wait for ever).
 */
export function contentReader(db: Db): ObjectReader {
  if (db.isTransaction) return new SqlObjectReader(db);
  let reader = readers.get(db);
  if (!reader) {
    reader = new CachingObjectReader(new SqlObjectReader(db));
    readers.set(db, reader);
  }
  return reader;
}

/**
 * Revision rows read outside transactions, by database, space and id. A revision is inserted once and never
 * updated (stores/revision-store.ts), so a kept row is never stale; every page a reader shows reads its space's
 * revision, and this spares that round trip. Bounded: the oldest kept row goes first past MAX_KEPT_REVISIONS.
 */
const revisionRows = new WeakMap<Db, Map<string, RevisionRow>>();
const MAX_KEPT_REVISIONS = 2_000;

/** A revision of this space (undefined when the id names none of its revisions), kept once read. */
export async function revisionOfSpace(db: Db, spaceId: string, revisionId: string): Promise<RevisionRow | undefined> {
  // Inside a transaction the row may be the transaction's own, not committed yet: read, never kept.
  if (db.isTransaction) return findRevisionOfSpace(db, spaceId, revisionId);
  let kept = revisionRows.get(db);
  if (!kept) {
    kept = new Map();
    revisionRows.set(db, kept);
  }
  const key = `${spaceId}|${revisionId}`;
  const found = kept.get(key);
  if (found) return found;
  const row = await findRevisionOfSpace(db, spaceId, revisionId);
  if (row) {
    kept.set(key, Object.freeze(row));
    if (kept.size > MAX_KEPT_REVISIONS) kept.delete(kept.keys().next().value!);
  }
  return row;
}

/** The root hash of a revision the caller knows to be of this space (a change request's, or main). */
export async function revisionRoot(db: Db, spaceId: string, revisionId: string): Promise<string> {
  const revision = await revisionOfSpace(db, spaceId, revisionId);
  if (!revision) throw new Error(`space ${spaceId} has no revision ${revisionId}`);
  return revision.root;
}

/** The content of the tree below `root`, from the cache when another read loaded it already. */
export function loadRevisionContent(db: Db, root: string): Promise<RevisionContent> {
  if (db.isTransaction) return buildContent(db, root);
  const cached = trees.get(root);
  if (cached) {
    // Re-inserting keeps the Map in least-recently-used order.
    trees.delete(root);
    trees.set(root, cached);
    return cached;
  }
  const loading = buildContent(db, root);
  trees.set(root, loading);
  loading.catch(() => trees.delete(root));
  while (trees.size > MAX_CACHED_TREES) trees.delete(trees.keys().next().value!);
  return loading;
}

async function buildContent(db: Db, root: string): Promise<RevisionContent> {
  const tree = materialize(await WorkingTree.load(contentReader(db), root));
  const pages = new Map<string, IndexedPage>();
  const byPath = new Map<string, MaterializedPage>();
  const walk = (list: readonly MaterializedPage[], parent: MaterializedPage | null, ancestors: readonly string[]): void => {
    for (const page of list) {
      pages.set(page.id, { page, parent, ancestors });
      if (page.path !== undefined && !byPath.has(page.path)) byPath.set(page.path, page);
      walk(page.pages, page, [...ancestors, page.title]);
    }
  };
  walk(tree.pages, null, []);
  const files = new Map(tree.files.map((file) => [file.id, file]));
  const reusables = new Map(tree.reusableContents.map((reusable) => [reusable.id, reusable]));
  return { root, tree, pages, byPath, files, reusables };
}

/** The markdown of a page (empty for a page without content). */
export function readPageMarkdown(db: Db, page: Pick<MaterializedPage, 'contentHash'>): Promise<string> {
  return readMarkdown(contentReader(db), page.contentHash);
}

/**
 * The path of every page of the tree below `root` by id, read without entering the cache of trees: what reads
 * older revisions in passing (moved-pages.ts) would otherwise push out the trees being read at the moment.
 */
export async function pagePathsOf(db: Db, root: string): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  const walk = (list: readonly MaterializedPage[]): void => {
    for (const page of list) {
      if (page.path !== undefined) paths.set(page.id, page.path);
      walk(page.pages);
    }
  };
  walk(materialize(await WorkingTree.load(contentReader(db), root)).pages);
  return paths;
}
