import type { RevisionPage } from '@quire/api-types';
import { CorruptContentError } from './errors.js';
import { encodeJsonObject, hashObject, type ObjectKind } from './hash.js';

/*
 * The immutable objects a revision's content is made of, and the small storage interface the stores
 * implement. A revision stores only the hash of its `TreeRoot`; everything below is shared between revisions
 * by hash, like git trees, so an edit writes the changed page, its ancestors and the root, nothing else.
 */

export type PageType = RevisionPage['type'];
export type PageLayout = NonNullable<RevisionPage['layout']>;
export type PageCover = NonNullable<RevisionPage['cover']>;
export type PageComputedSource = NonNullable<RevisionPage['computed']>;
export interface GitLocation {
  oid: string;
  path: string;
}

/** The fields of a page of its own (not its place in the tree), as the API shows them. */
export interface PageFields {
  type: PageType;
  title: string;
  /** Absent on `link` pages, which are not part of any path. */
  slug?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: PageLayout;
  cover?: PageCover;
  variables?: Record<string, string>;
  git?: GitLocation;
  /** Where a `link` page points. */
  href?: string;
  computed?: PageComputedSource;
  computedSeed?: string;
  createdAt?: string;
  updatedAt?: string;
}

/** The field names of `PageFields`, for code that copies or compares them one by one. */
export const PAGE_FIELD_NAMES = [
  'type',
  'title',
  'slug',
  'emoji',
  'icon',
  'description',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'layout',
  'cover',
  'variables',
  'git',
  'href',
  'computed',
  'computedSeed',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof PageFields)[];

export interface PageObject extends PageFields {
  kind: 'page';
  /** Stable page id, the same in every revision. */
  id: string;
  /** Hash of the markdown blob, or null for pages without content (groups, links, empty pages). */
  content: string | null;
  /** Hashes of the child page objects, in order. */
  children: string[];
}

export interface FileObject {
  kind: 'file';
  /** Stable file id, the same in every revision. */
  id: string;
  name: string;
  contentType: string;
  size: number;
  dimensions?: { width: number; height: number };
  git?: GitLocation;
  /** Hash of the blob holding the bytes. */
  blob: string;
}

/**
 * A block of content defined once in a revision and inserted in any number of its pages (the public API's
 * reusable content). Like a page it holds Markdown by hash, so a revision that does not change it shares it.
 */
export interface ReusableObject {
  kind: 'reusable';
  /** Stable id, the same in every revision. */
  id: string;
  title: string;
  /** Hash of the markdown blob, or null for an empty block. */
  content: string | null;
  git?: GitLocation;
}

export interface TreeRoot {
  kind: 'root';
  /** Hashes of the top-level page objects, in order. */
  pages: string[];
  /** Hashes of the file objects, in order of insertion. */
  files: string[];
  /**
   * Hashes of the reusable content objects, in order of insertion. Absent when there are none, so that
   * every root written before reusable contents existed keeps its hash.
   */
  reusables?: string[];
}

export type TreeObject = PageObject | FileObject | ReusableObject | TreeRoot;

/** One object to store, as the stores insert it: "insert ... on conflict (hash) do nothing". */
export interface NewObject {
  hash: string;
  kind: ObjectKind;
  /** Canonical JSON (UTF-8) for root/page/file; the raw bytes for a blob. */
  body: Buffer;
}

/**
 * Read access to stored objects. `getMany` exists so that a whole tree loads with one query per level, never
 * one per page; it answers only the hashes it found (callers decide whether a missing one is an error).
 */
export interface ObjectReader {
  get(hash: string): Promise<TreeObject | undefined>;
  getMany(hashes: readonly string[]): Promise<ReadonlyMap<string, TreeObject>>;
  getBlob(hash: string): Promise<Uint8Array | undefined>;
}

/** Reads a markdown blob; a null content hash is the empty page. */
export async function readMarkdown(reader: ObjectReader, contentHash: string | null): Promise<string> {
  if (contentHash === null) return '';
  const bytes = await reader.getBlob(contentHash);
  if (bytes === undefined) throw new CorruptContentError(`Markdown blob ${contentHash} is missing`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * Turns a stored row back into an object, checking its shape, so that stores need no knowledge of it and a
 * corrupt row is reported as such instead of surfacing later as an odd TypeError.
 */
export function decodeObject(kind: ObjectKind, body: Uint8Array): TreeObject | Uint8Array {
  if (kind === 'blob') return body;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new CorruptContentError(`A stored ${kind} object is not valid JSON`);
  }
  assertTreeObject(value, kind);
  return value;
}

export function assertTreeObject(value: unknown, kind?: Exclude<ObjectKind, 'blob'>): asserts value is TreeObject {
  const ok =
    typeof value === 'object' &&
    value !== null &&
    (kind === undefined || (value as { kind?: unknown }).kind === kind) &&
    isTreeObjectShape(value as Record<string, unknown>);
  if (!ok) throw new CorruptContentError(`A stored object is not a valid ${kind ?? 'tree'} object`);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isTreeObjectShape(value: Record<string, unknown>): boolean {
  switch (value.kind) {
    case 'root':
      return isStringArray(value.pages) && isStringArray(value.files) && (value.reusables === undefined || isStringArray(value.reusables));
    case 'reusable':
      return typeof value.id === 'string' && typeof value.title === 'string' && (value.content === null || typeof value.content === 'string');
    case 'page':
      return (
        typeof value.id === 'string' &&
        typeof value.title === 'string' &&
        typeof value.type === 'string' &&
        typeof value.hidden === 'boolean' &&
        (value.content === null || typeof value.content === 'string') &&
        isStringArray(value.children)
      );
    case 'file':
      return (
        typeof value.id === 'string' &&
        typeof value.name === 'string' &&
        typeof value.contentType === 'string' &&
        typeof value.size === 'number' &&
        typeof value.blob === 'string'
      );
    default:
      return false;
  }
}

/**
 * Collects the objects an operation creates, so the store can insert them in the caller's transaction in one
 * batch. It is also a reader: operations that build on objects made earlier in the same batch (a change
 * batch, a merge) read them from here before they are stored.
 *
 * Nothing is written until `collect(root)`, which answers only the new objects reachable from the final
 * root: intermediate states of a batch (a page inserted then edited in the same batch) are never stored.
 */
export class TreeWriter implements ObjectReader {
  private readonly pending = new Map<string, { object: NewObject; value: TreeObject | undefined }>();

  constructor(private readonly base: ObjectReader) {}

  putObject(value: TreeObject): string {
    const { hash, body } = encodeJsonObject(value.kind, value);
    if (!this.pending.has(hash)) this.pending.set(hash, { object: { hash, kind: value.kind, body }, value });
    return hash;
  }

  putBlob(bytes: Uint8Array): string {
    const body = Buffer.from(bytes);
    const hash = hashObject('blob', body);
    if (!this.pending.has(hash)) this.pending.set(hash, { object: { hash, kind: 'blob', body }, value: undefined });
    return hash;
  }

  putMarkdown(markdown: string): string {
    // The bytes hashed are the bytes stored (`hashMarkdown`), encoded once.
    const body = Buffer.from(markdown, 'utf8');
    const hash = hashObject('blob', body);
    if (!this.pending.has(hash)) this.pending.set(hash, { object: { hash, kind: 'blob', body }, value: undefined });
    return hash;
  }

  async get(hash: string): Promise<TreeObject | undefined> {
    const entry = this.pending.get(hash);
    if (entry) return entry.value;
    return this.base.get(hash);
  }

  async getMany(hashes: readonly string[]): Promise<ReadonlyMap<string, TreeObject>> {
    const found = new Map<string, TreeObject>();
    const missing: string[] = [];
    for (const hash of hashes) {
      const entry = this.pending.get(hash);
      if (entry?.value) found.set(hash, entry.value);
      else if (!entry) missing.push(hash);
    }
    if (missing.length > 0) for (const [hash, value] of await this.base.getMany(missing)) found.set(hash, value);
    return found;
  }

  async getBlob(hash: string): Promise<Uint8Array | undefined> {
    const entry = this.pending.get(hash);
    if (entry) return entry.object.kind === 'blob' ? entry.object.body : undefined;
    return this.base.getBlob(hash);
  }

  /** Number of objects put so far, reachable or not (for diagnostics). */
  get size(): number {
    return this.pending.size;
  }

  /**
   * The objects to store for `rootHash`: the new objects reachable from it, children before parents. The walk
   * descends only through new objects, because an object already stored has all its descendants stored too.
   */
  collect(rootHash: string | null): NewObject[] {
    const out: NewObject[] = [];
    const seen = new Set<string>();
    const visit = (hash: string): void => {
      if (seen.has(hash)) return;
      seen.add(hash);
      const entry = this.pending.get(hash);
      if (!entry) return;
      const value = entry.value;
      if (value?.kind === 'root') {
        value.pages.forEach(visit);
        value.files.forEach(visit);
        value.reusables?.forEach(visit);
      } else if (value?.kind === 'reusable') {
        if (value.content !== null) visit(value.content);
      } else if (value?.kind === 'page') {
        if (value.content !== null) visit(value.content);
        value.children.forEach(visit);
      } else if (value?.kind === 'file') {
        visit(value.blob);
      }
      out.push(entry.object);
    };
    if (rootHash !== null) visit(rootHash);
    return out;
  }
}

/**
 * An LRU cache of decoded objects in front of a store's reader. Caching by hash is always correct because an
 * object never changes once written; the byte budget bounds memory however large the spaces are. Cached
 * objects are frozen so that no caller can change what another caller will read.
 */
export class CachingObjectReader implements ObjectReader {
  private readonly entries = new Map<string, { value: TreeObject; bytes: number }>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly inner: ObjectReader,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get cachedBytes(): number {
    return this.bytes;
  }

  get cachedObjects(): number {
    return this.entries.size;
  }

  async get(hash: string): Promise<TreeObject | undefined> {
    const cached = this.touch(hash);
    if (cached) return cached;
    this.misses++;
    const value = await this.inner.get(hash);
    if (value) return this.remember(hash, value);
    return undefined;
  }

  async getMany(hashes: readonly string[]): Promise<ReadonlyMap<string, TreeObject>> {
    const found = new Map<string, TreeObject>();
    const missing: string[] = [];
    for (const hash of new Set(hashes)) {
      const cached = this.touch(hash);
      if (cached) found.set(hash, cached);
      else missing.push(hash);
    }
    this.misses += missing.length;
    if (missing.length > 0) {
      for (const [hash, value] of await this.inner.getMany(missing)) found.set(hash, this.remember(hash, value));
    }
    return found;
  }

  getBlob(hash: string): Promise<Uint8Array | undefined> {
    // Blobs (page markdown, file bytes) can be large and are read one page at a time: not worth the budget.
    return this.inner.getBlob(hash);
  }

  private touch(hash: string): TreeObject | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    this.hits++;
    // Re-inserting moves the entry to the end of the Map's order: the Map doubles as the LRU list.
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    return entry.value;
  }

  private remember(hash: string, value: TreeObject): TreeObject {
    const frozen = deepFreeze(value);
    // Decoded JS objects take about twice their JSON size (UTF-16 strings plus object headers).
    const bytes = JSON.stringify(frozen).length * 2 + 64;
    if (bytes > this.maxBytes) return frozen;
    const previous = this.entries.get(hash);
    if (previous) {
      this.entries.delete(hash);
      this.bytes -= previous.bytes;
    }
    this.entries.set(hash, { value: frozen, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return frozen;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * An in-memory object store: the reference implementation of what the SQL stores do, used by unit tests and
 * by code that needs a throwaway tree. It counts reads and writes so tests can check how much an operation
 * touches.
 */
export class MemoryObjectStore implements ObjectReader {
  private readonly objects = new Map<string, NewObject>();
  getCalls = 0;
  getManyCalls = 0;
  objectsRead = 0;

  /** Inserts the objects that are not stored yet; answers how many were new. */
  write(objects: readonly NewObject[]): number {
    let inserted = 0;
    for (const object of objects) {
      if (this.objects.has(object.hash)) continue;
      // Verifying the key here catches a writer bug that would otherwise corrupt content addressing.
      if (hashObject(object.kind, object.body) !== object.hash) throw new Error(`Bad hash for ${object.hash}`);
      this.objects.set(object.hash, { ...object, body: Buffer.from(object.body) });
      inserted++;
    }
    return inserted;
  }

  has(hash: string): boolean {
    return this.objects.has(hash);
  }

  get size(): number {
    return this.objects.size;
  }

  async get(hash: string): Promise<TreeObject | undefined> {
    this.getCalls++;
    return this.decode(hash);
  }

  async getMany(hashes: readonly string[]): Promise<ReadonlyMap<string, TreeObject>> {
    this.getManyCalls++;
    const found = new Map<string, TreeObject>();
    for (const hash of hashes) {
      const value = this.decode(hash);
      if (value) found.set(hash, value);
    }
    return found;
  }

  async getBlob(hash: string): Promise<Uint8Array | undefined> {
    const object = this.objects.get(hash);
    return object?.kind === 'blob' ? Buffer.from(object.body) : undefined;
  }

  private decode(hash: string): TreeObject | undefined {
    const object = this.objects.get(hash);
    if (!object || object.kind === 'blob') return undefined;
    this.objectsRead++;
    return decodeObject(object.kind, object.body) as TreeObject;
  }
}
