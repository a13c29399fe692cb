import type { RevisionFile, RevisionPage } from '@quire/api-types';
import { ContentError, CorruptContentError } from './errors.js';
import {
  PAGE_FIELD_NAMES,
  type FileObject,
  type GitLocation,
  type ObjectReader,
  type PageFields,
  type PageObject,
  type PageType,
  type ReusableObject,
  type TreeObject,
  type TreeRoot,
  type TreeWriter,
} from './objects.js';

/*
 * The page tree of a revision, as a Merkle tree (see objects.ts). `WorkingTree` is the editable in-memory
 * form: it loads a root, applies any number of edits, and `commit` hashes and hands to the writer only the
 * nodes that changed (an edited page, its ancestors, the root), reusing the stored hash of every untouched
 * subtree without even re-serialising it.
 */

export const SLUG_MAX_LENGTH = 100;
export const TITLE_MAX_LENGTH = 100;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A page in a working tree. `hash` is null when the node or something below it changed since it was stored. */
export interface PageNode {
  readonly id: string;
  fields: PageFields;
  content: string | null;
  children: PageNode[];
  parent: PageNode | null;
  hash: string | null;
}

/** Where to put a page: under `into` (a page id, or null for the top level) at position `at` (default last). */
export interface PagePlace {
  into: string | null;
  at?: number | undefined;
}

/** A new page. Fields left out take their defaults: type `document`, not hidden, slug made from the title. */
export interface NewPageInput extends Partial<Omit<PageFields, 'title'>> {
  id: string;
  title: string;
  /** Hash of the markdown blob (see TreeWriter.putMarkdown), or null/absent for no content. */
  content?: string | null;
}

type Removable<T> = { [K in keyof T]?: T[K] | null };

/**
 * A change of a page's own fields. Optional fields given as null are removed; fields left out keep their
 * value. `content` is the hash of the new markdown blob (null empties the page).
 */
export type PagePatch = Removable<Omit<PageFields, 'type' | 'title' | 'hidden' | 'createdAt' | 'updatedAt'>> & {
  title?: string;
  hidden?: boolean;
  content?: string | null;
  updatedAt?: string;
};

export interface WorkingTreeOptions {
  /** Source of createdAt/updatedAt for pages that change; tests pass a fixed clock. */
  clock?: () => string;
}

const TIMESTAMPED_TYPES: ReadonlySet<PageType> = new Set(['document', 'computed']);
/**
 * Keys of a patch that are not copied as fields: content is handled apart, updatedAt is set by the change
 * itself, and type and createdAt are not editable (a type change would orphan content or children).
 */
const NOT_PATCHED: ReadonlySet<string> = new Set(['content', 'updatedAt', 'type', 'createdAt']);

const systemClock = (): string => new Date().toISOString();

export class WorkingTree {
  private readonly topLevel: PageNode[] = [];
  private readonly index = new Map<string, PageNode>();
  private files: { hash: string | null; object: FileObject }[] = [];
  private reusables: { hash: string | null; object: ReusableObject }[] = [];
  /** Hash of the stored root, or null when anything changed since (or the tree was never stored). */
  private rootHash: string | null = null;
  private clock: () => string;

  private constructor(options: WorkingTreeOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * The clock of the edits to come: a tree kept between edits (services/working-trees.ts) was made by an
   * earlier call, whose clock is not this one's.
   */
  useClock(clock: (() => string) | undefined): void {
    this.clock = clock ?? systemClock;
  }

  static empty(options: WorkingTreeOptions = {}): WorkingTree {
    return new WorkingTree(options);
  }

  /**
   * Loads the whole tree below `rootHash` breadth-first: one `getMany` for the top level and the files, then
   * one per level of depth, so a 10,000-page space costs a handful of queries (and nothing when cached).
   */
  static async load(reader: ObjectReader, rootHash: string | null, options: WorkingTreeOptions = {}): Promise<WorkingTree> {
    const tree = new WorkingTree(options);
    if (rootHash === null) return tree;
    const root = await reader.get(rootHash);
    if (root?.kind !== 'root') throw new CorruptContentError(`Tree root ${rootHash} is missing`);

    const first = await reader.getMany([...root.pages, ...root.files, ...(root.reusables ?? [])]);
    for (const hash of root.files) {
      const object = first.get(hash);
      if (object?.kind !== 'file') throw new CorruptContentError(`File object ${hash} is missing`);
      tree.files.push({ hash, object });
    }
    for (const hash of root.reusables ?? []) {
      const object = first.get(hash);
      if (object?.kind !== 'reusable') throw new CorruptContentError(`Reusable content object ${hash} is missing`);
      tree.reusables.push({ hash, object });
    }

    let level: { parent: PageNode | null; hashes: readonly string[] }[] = [{ parent: null, hashes: root.pages }];
    let objects = first;
    while (level.length > 0) {
      const next: typeof level = [];
      for (const { parent, hashes } of level) {
        for (const hash of hashes) {
          const object = objects.get(hash);
          if (object?.kind !== 'page') throw new CorruptContentError(`Page object ${hash} is missing`);
          if (tree.index.has(object.id)) throw new CorruptContentError(`Page ${object.id} appears twice in ${rootHash}`);
          const node: PageNode = {
            id: object.id,
            fields: pickFields(object),
            content: object.content,
            children: [],
            parent,
            hash,
          };
          tree.index.set(node.id, node);
          (parent ? parent.children : tree.topLevel).push(node);
          if (object.children.length > 0) next.push({ parent: node, hashes: object.children });
        }
      }
      level = next;
      if (level.length > 0) objects = await reader.getMany(level.flatMap((entry) => entry.hashes));
    }
    tree.rootHash = rootHash;
    return tree;
  }

  /**
   * A tree made of nodes built elsewhere (the merge builds the merged tree this way). Nodes that carry a hash
   * must be exactly the stored object of that hash, children included; the rest are written on commit.
   */
  static fromNodes(
    topLevel: PageNode[],
    files: readonly { hash: string | null; object: FileObject }[],
    options: WorkingTreeOptions = {},
    reusables: readonly { hash: string | null; object: ReusableObject }[] = [],
  ): WorkingTree {
    const tree = new WorkingTree(options);
    tree.topLevel.push(...topLevel);
    tree.files = files.map((entry) => ({ ...entry }));
    tree.reusables = reusables.map((entry) => ({ ...entry }));
    for (const node of tree.walk()) {
      if (tree.index.has(node.id)) throw new Error(`Page ${node.id} appears twice`);
      tree.index.set(node.id, node);
    }
    return tree;
  }

  /** The stored hash of each file, for callers that rebuild a tree from parts of this one. */
  get fileEntries(): readonly { hash: string | null; object: FileObject }[] {
    return this.files;
  }

  /** The stored hash of each reusable content, likewise. */
  get reusableEntries(): readonly { hash: string | null; object: ReusableObject }[] {
    return this.reusables;
  }

  // ----- reading -----

  get pages(): readonly PageNode[] {
    return this.topLevel;
  }

  get pageCount(): number {
    return this.index.size;
  }

  get fileObjects(): readonly FileObject[] {
    return this.files.map((entry) => entry.object);
  }

  /** The stored root hash when nothing changed since load/commit, else null. */
  get committedRoot(): string | null {
    return this.rootHash;
  }

  getPage(id: string): PageNode | undefined {
    return this.index.get(id);
  }

  requirePage(id: string): PageNode {
    const node = this.index.get(id);
    if (!node) throw new ContentError('page_not_found', `There is no page with id "${id}"`);
    return node;
  }

  get reusableObjects(): readonly ReusableObject[] {
    return this.reusables.map((entry) => entry.object);
  }

  getReusable(id: string): ReusableObject | undefined {
    return this.reusables.find((entry) => entry.object.id === id)?.object;
  }

  getFile(id: string): FileObject | undefined {
    return this.files.find((entry) => entry.object.id === id)?.object;
  }

  childrenOf(parentId: string | null): readonly PageNode[] {
    return parentId === null ? this.topLevel : this.requirePage(parentId).children;
  }

  /** Every page, parents before children, siblings in order. */
  *walk(): Generator<PageNode> {
    const stack = [...this.topLevel].reverse();
    while (stack.length > 0) {
      const node = stack.pop()!;
      yield node;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }

  /** The page's path: its ancestors' slugs and its own joined by `/`; empty for link pages. */
  pathOf(node: PageNode): string {
    if (node.fields.slug === undefined) return '';
    const slugs: string[] = [];
    for (let at: PageNode | null = node; at; at = at.parent) if (at.fields.slug !== undefined) slugs.push(at.fields.slug);
    return slugs.reverse().join('/');
  }

  /** The page at `path` (slugs joined by `/`, without leading or trailing slash), if any. */
  findByPath(path: string): PageNode | undefined {
    const parts = path.split('/').filter((part) => part.length > 0);
    let candidates: readonly PageNode[] = this.topLevel;
    let found: PageNode | undefined;
    for (const part of parts) {
      found = candidates.find((node) => node.fields.slug === part);
      if (!found) return undefined;
      candidates = found.children;
    }
    return found;
  }

  isAncestorOrSelf(ancestorId: string, node: PageNode): boolean {
    for (let at: PageNode | null = node; at; at = at.parent) if (at.id === ancestorId) return true;
    return false;
  }

  // ----- editing -----

  insertPage(input: NewPageInput, place: PagePlace): PageNode {
    if (this.index.has(input.id)) throw new ContentError('duplicate_id', `A page with id "${input.id}" already exists`);
    const parent = this.parentFor(place.into);
    const siblings = parent ? parent.children : this.topLevel;
    const at = checkPosition(place.at, siblings.length);
    const type = input.type ?? 'document';
    checkTitle(input.title);

    const fields: PageFields = { type, title: input.title, hidden: input.hidden ?? false };
    for (const name of PAGE_FIELD_NAMES) {
      if (name === 'type' || name === 'title' || name === 'hidden' || name === 'slug') continue;
      const value = input[name];
      if (value !== undefined) (fields as unknown as Record<string, unknown>)[name] = value;
    }
    if (type === 'link') {
      if (input.slug !== undefined) throw new ContentError('invalid_slug', 'Link pages have no slug');
    } else {
      const taken = slugsOf(siblings);
      if (input.slug !== undefined) {
        checkSlug(input.slug);
        if (taken.has(input.slug)) throw slugTaken(input.slug);
        fields.slug = input.slug;
      } else {
        fields.slug = uniqueSlug(slugify(input.title), taken);
      }
    }
    if (TIMESTAMPED_TYPES.has(type)) {
      const now = this.clock();
      fields.createdAt ??= now;
      fields.updatedAt ??= fields.createdAt;
    }
    const content = input.content ?? null;
    if (content !== null && type !== 'document' && type !== 'computed') {
      throw new ContentError('not_a_document', `A ${type} page cannot hold content`);
    }
    const node: PageNode = { id: input.id, fields, content, children: [], parent, hash: null };
    siblings.splice(at, 0, node);
    this.index.set(node.id, node);
    this.markChanged(node);
    return node;
  }

  /** Applies `patch` to the page's fields; answers whether anything actually changed (equal values are no-ops). */
  updatePage(id: string, patch: PagePatch): boolean {
    const node = this.requirePage(id);
    const next: PageFields = { ...node.fields };
    const target = next as unknown as Record<string, unknown>;
    let changed = false;
    let contentChanged = false;

    for (const [name, value] of Object.entries(patch)) {
      if (value === undefined || NOT_PATCHED.has(name)) continue;
      if (name === 'title') checkTitle(value as string);
      if (name === 'slug') {
        if (node.fields.type === 'link') throw new ContentError('invalid_slug', 'Link pages have no slug');
        if (value === null) throw new ContentError('invalid_slug', 'The slug of a page cannot be removed');
        checkSlug(value as string);
        if (value !== node.fields.slug && slugsOf(this.siblingsOf(node), node).has(value as string)) {
          throw slugTaken(value as string);
        }
      }
      if (!(PAGE_FIELD_NAMES as readonly string[]).includes(name)) continue;
      if (sameValue(target[name], value === null ? undefined : value)) continue;
      if (value === null) delete target[name];
      else target[name] = value;
      changed = true;
    }
    if (patch.content !== undefined && patch.content !== node.content) {
      if (patch.content !== null && node.fields.type !== 'document' && node.fields.type !== 'computed') {
        throw new ContentError('not_a_document', `A ${node.fields.type} page cannot hold content`);
      }
      contentChanged = true;
    }
    if (!changed && !contentChanged) return false;
    if (TIMESTAMPED_TYPES.has(next.type)) next.updatedAt = patch.updatedAt ?? this.clock();
    node.fields = next;
    if (contentChanged) node.content = patch.content ?? null;
    this.markChanged(node);
    return true;
  }

  /**
   * Moves the page (with its subtree) to `place`; `into: undefined` keeps its parent and only changes its
   * position. A slug already taken in the new parent gets a numeric suffix: the caller chose a place, not a
   * slug, and refusing the move would leave them no way to make it.
   */
  movePage(id: string, place: { into?: string | null | undefined; at?: number | undefined }): boolean {
    const node = this.requirePage(id);
    const newParent = place.into === undefined ? node.parent : this.parentFor(place.into);
    if (newParent && this.isAncestorOrSelf(node.id, newParent)) {
      throw new ContentError('invalid_move', `Page "${id}" cannot be moved into itself or one of its descendants`);
    }
    const oldSiblings = this.siblingsOf(node);
    const oldIndex = oldSiblings.indexOf(node);
    const newSiblings = newParent ? newParent.children : this.topLevel;
    const sameParent = newParent === node.parent;
    const lengthWithout = sameParent ? oldSiblings.length - 1 : newSiblings.length;
    const at = place.at === undefined && sameParent ? oldIndex : checkPosition(place.at, lengthWithout);
    if (sameParent && at === oldIndex) return false;

    oldSiblings.splice(oldIndex, 1);
    if (node.parent) this.markChanged(node.parent);
    else this.rootHash = null;

    if (!sameParent && node.fields.slug !== undefined) {
      const taken = slugsOf(newSiblings);
      if (taken.has(node.fields.slug)) {
        node.fields = { ...node.fields, slug: uniqueSlug(node.fields.slug, taken) };
        node.hash = null;
      }
    }
    newSiblings.splice(at, 0, node);
    node.parent = newParent;
    // The node's own object is unchanged unless its slug was; its new parent's child list is what changed.
    if (node.hash === null) this.markChanged(node);
    else if (newParent) this.markChanged(newParent);
    else this.rootHash = null;
    return true;
  }

  /** Deletes the page and its subtree; answers the deleted pages, parents first. */
  deletePage(id: string): PageNode[] {
    const node = this.requirePage(id);
    const siblings = this.siblingsOf(node);
    siblings.splice(siblings.indexOf(node), 1);
    if (node.parent) this.markChanged(node.parent);
    else this.rootHash = null;
    const removed: PageNode[] = [];
    const stack = [node];
    while (stack.length > 0) {
      const at = stack.pop()!;
      removed.push(at);
      this.index.delete(at.id);
      for (let i = at.children.length - 1; i >= 0; i--) stack.push(at.children[i]!);
    }
    return removed;
  }

  /** Replaces the children of a page (or the top level) with the given pages of this tree, for merges. */
  setChildren(parentId: string | null, childIds: readonly string[]): void {
    const parent = parentId === null ? null : this.requirePage(parentId);
    const current = parent ? parent.children : this.topLevel;
    const next = childIds.map((id) => this.requirePage(id));
    if (next.length === current.length && next.every((node, i) => node === current[i])) return;
    current.splice(0, current.length, ...next);
    for (const child of next) child.parent = parent;
    if (parent) this.markChanged(parent);
    else this.rootHash = null;
  }

  insertFile(object: FileObject): void {
    if (this.files.some((entry) => entry.object.id === object.id)) {
      throw new ContentError('duplicate_id', `A file with id "${object.id}" already exists`);
    }
    this.files.push({ hash: null, object });
    this.rootHash = null;
  }

  deleteFile(id: string): boolean {
    return this.removeEntry(this.files, id);
  }

  // A reusable content has no place in the page tree: it is edited as a whole, like a file, but has a
  // title that people edit and Markdown that pages insert.

  insertReusable(input: { id: string; title: string; content?: string | null; git?: ReusableObject['git'] }): ReusableObject {
    if (this.getReusable(input.id)) throw new ContentError('duplicate_id', `A reusable content with id "${input.id}" already exists`);
    checkTitle(input.title, 'reusable content');
    const object: ReusableObject = { kind: 'reusable', id: input.id, title: input.title, content: input.content ?? null, ...(input.git ? { git: input.git } : {}) };
    this.reusables.push({ hash: null, object });
    this.rootHash = null;
    return object;
  }

  /** Changes the title and/or content (a markdown hash, null empties it); answers whether anything changed. */
  updateReusable(id: string, patch: { title?: string; content?: string | null }): boolean {
    const entry = this.reusables.find((candidate) => candidate.object.id === id);
    if (!entry) throw new ContentError('reusable_content_not_found', `There is no reusable content with id "${id}"`);
    if (patch.title !== undefined) checkTitle(patch.title, 'reusable content');
    const next: ReusableObject = {
      ...entry.object,
      ...(patch.title === undefined ? {} : { title: patch.title }),
      ...(patch.content === undefined ? {} : { content: patch.content }),
    };
    if (sameValue(next, entry.object)) return false;
    entry.object = next;
    entry.hash = null;
    this.rootHash = null;
    return true;
  }

  deleteReusable(id: string): boolean {
    return this.removeEntry(this.reusables, id);
  }

  /**
   * Hands every changed object to the writer and answers the new root hash. Untouched subtrees are not
   * visited: their stored hash is reused as is.
   */
  commit(writer: TreeWriter): string {
    if (this.rootHash !== null) return this.rootHash;
    const hashOf = (node: PageNode): string => {
      if (node.hash !== null) return node.hash;
      const object: PageObject = {
        kind: 'page',
        id: node.id,
        ...node.fields,
        content: node.content,
        children: node.children.map(hashOf),
      };
      node.hash = writer.putObject(object);
      return node.hash;
    };
    const root: TreeRoot = {
      kind: 'root',
      pages: this.topLevel.map(hashOf),
      files: this.files.map((entry) => (entry.hash ??= writer.putObject(entry.object))),
      ...(this.reusables.length > 0 ? { reusables: this.reusables.map((entry) => (entry.hash ??= writer.putObject(entry.object))) } : {}),
    };
    this.rootHash = writer.putObject(root);
    return this.rootHash;
  }

  /**
   * Makes this tree, committed and unchanged since, the tree of `rootHash`, as `load` would build it, reading
   * only the objects where the two differ: a child list whose hash is unchanged is not read, a subtree whose
   * hash is unchanged is kept whole wherever it now stands, and a page still in the tree keeps its node. Its
   * cost grows with the difference (the changed pages, their ancestors and those lists), not with the tree:
   * this is how a tree kept from one edit catches up with edits made elsewhere (services/working-trees.ts).
   * Answers the number of objects read. On an error the tree is left half changed and must be dropped.
   */
  async advanceTo(reader: ObjectReader, rootHash: string): Promise<number> {
    if (this.rootHash === null) throw new Error('Only a committed, unchanged tree can advance to another root');
    if (this.rootHash === rootHash) return 0;
    const root = await reader.get(rootHash);
    if (root?.kind !== 'root') throw new CorruptContentError(`Tree root ${rootHash} is missing`);
    let read = 1;
    const oldFiles = new Map(this.files.map((entry) => [entry.hash, entry]));
    const oldReusables = new Map(this.reusables.map((entry) => [entry.hash, entry]));
    const listed = [...root.files.filter((hash) => !oldFiles.has(hash)), ...(root.reusables ?? []).filter((hash) => !oldReusables.has(hash))];

    /** Nodes placed in the new tree; one placed twice means a page listed twice. */
    const placed = new Set<PageNode>();
    /** Nodes taken out of a child list; those never placed again are deleted, with what stays below them. */
    const removed: PageNode[] = [];
    const place = (node: PageNode, parent: PageNode | null): PageNode => {
      if (placed.has(node)) throw new CorruptContentError(`Page ${node.id} appears twice in ${rootHash}`);
      placed.add(node);
      node.parent = parent;
      return node;
    };
    type ChildList = { parent: PageNode | null; hashes: readonly string[]; old: readonly PageNode[] };
    let level: ChildList[] = [{ parent: null, hashes: root.pages, old: [...this.topLevel] }];
    let extra: readonly string[] | undefined = listed;
    while (level.length > 0 || extra) {
      // A child whose hash is among its parent's old children is that child, unchanged; the others are read.
      const unknown = new Set<string>(extra ?? []);
      const oldByHash = level.map(({ old }) => new Map(old.map((node) => [node.hash, node])));
      level.forEach(({ hashes }, i) => hashes.forEach((hash) => oldByHash[i]!.has(hash) || unknown.add(hash)));
      const objects = unknown.size > 0 ? await reader.getMany([...unknown]) : new Map<string, never>();
      read += unknown.size;
      if (extra) {
        // The root's lists of files and reusable contents, read with the top level.
        this.files = root.files.map((hash) => oldFiles.get(hash) ?? { hash, object: expectKind(objects.get(hash), 'file', hash) });
        this.reusables = (root.reusables ?? []).map((hash) => oldReusables.get(hash) ?? { hash, object: expectKind(objects.get(hash), 'reusable', hash) });
        extra = undefined;
      }
      const next: ChildList[] = [];
      level.forEach(({ parent, hashes, old }, i) => {
        const children = hashes.map((hash) => {
          const same = oldByHash[i]!.get(hash);
          if (same) return place(same, parent);
          const object = expectKind(objects.get(hash), 'page', hash);
          const existing = this.index.get(object.id);
          // Moved with its subtree unchanged: the node stands as it is.
          if (existing && existing.hash === hash) return place(existing, parent);
          const node: PageNode = existing ?? { id: object.id, fields: pickFields(object), content: object.content, children: [], parent, hash };
          if (existing) {
            node.fields = pickFields(object);
            node.content = object.content;
            node.hash = hash;
          } else {
            this.index.set(node.id, node);
          }
          next.push({ parent: node, hashes: object.children, old: [...node.children] });
          return place(node, parent);
        });
        const kept = new Set(children);
        for (const node of old) if (!kept.has(node)) removed.push(node);
        if (parent) parent.children = children;
        else this.topLevel.splice(0, this.topLevel.length, ...children);
      });
      level = next;
    }
    for (const node of removed) {
      const stack = [node];
      while (stack.length > 0) {
        const at = stack.pop()!;
        // A page moved out of a deleted one is in the tree still, with what is below it.
        if (placed.has(at)) continue;
        if (this.index.get(at.id) === at) this.index.delete(at.id);
        stack.push(...at.children);
      }
    }
    this.rootHash = rootHash;
    return read;
  }

  // ----- internals -----

  /** Removes the entry of `id` from a list the root names (files, reusable contents); false when absent. */
  private removeEntry(entries: { object: { id: string } }[], id: string): boolean {
    const index = entries.findIndex((entry) => entry.object.id === id);
    if (index < 0) return false;
    entries.splice(index, 1);
    this.rootHash = null;
    return true;
  }

  private siblingsOf(node: PageNode): PageNode[] {
    return node.parent ? node.parent.children : this.topLevel;
  }

  private parentFor(into: string | null): PageNode | null {
    if (into === null) return null;
    const parent = this.requirePage(into);
    if (parent.fields.type === 'link') {
      throw new ContentError('invalid_parent', `Page "${into}" is a link and cannot hold pages`);
    }
    return parent;
  }

  /** The node's object and every ancestor's (whose child lists hold its hash) must be rewritten. */
  private markChanged(node: PageNode): void {
    for (let at: PageNode | null = node; at; at = at.parent) at.hash = null;
    this.rootHash = null;
  }
}

/** The object of `hash` read for a tree, which must be of `kind`. */
function expectKind<K extends TreeObject['kind']>(object: TreeObject | undefined, kind: K, hash: string): Extract<TreeObject, { kind: K }> {
  if (object?.kind !== kind) throw new CorruptContentError(`${kind === 'reusable' ? 'Reusable content' : kind[0]!.toUpperCase() + kind.slice(1)} object ${hash} is missing`);
  return object as Extract<TreeObject, { kind: K }>;
}

function pickFields(object: PageObject): PageFields {
  const fields = { type: object.type, title: object.title, hidden: object.hidden } as PageFields;
  const target = fields as unknown as Record<string, unknown>;
  for (const name of PAGE_FIELD_NAMES) {
    const value = object[name];
    if (value !== undefined) target[name] = value;
  }
  return fields;
}

function slugsOf(siblings: readonly PageNode[], except?: PageNode): Set<string> {
  const taken = new Set<string>();
  for (const sibling of siblings) if (sibling !== except && sibling.fields.slug !== undefined) taken.add(sibling.fields.slug);
  return taken;
}

function slugTaken(slug: string): ContentError {
  return new ContentError('slug_taken', `Another page at the same place already has the slug "${slug}"`);
}

function checkPosition(at: number | undefined, length: number): number {
  if (at === undefined) return length;
  if (!Number.isInteger(at) || at < 0) {
    throw new ContentError('invalid_position', `Position ${String(at)} is not a whole number of 0 or more`);
  }
  return Math.min(at, length);
}

function checkTitle(title: string, what = 'page'): void {
  const length = typeof title === 'string' ? [...title].length : 0;
  if (length < 1 || length > TITLE_MAX_LENGTH || title.trim() === '') {
    throw new ContentError('invalid_title', `A ${what} title must have 1 to ${TITLE_MAX_LENGTH} characters`);
  }
}

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug);
}

function checkSlug(slug: string): void {
  if (!isValidSlug(slug)) {
    throw new ContentError(
      'invalid_slug',
      `"${slug}" is not a valid slug: use lower-case letters and digits in words joined by single hyphens, at most ${SLUG_MAX_LENGTH} characters`,
    );
  }
}

/** Deep equality of JSON values, so that setting a field to its current value is not a change. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

// ----- slugs -----

// Letters that NFKD does not decompose into ASCII but that have a customary ASCII spelling.
const TRANSLITERATIONS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
};

/**
 * The slug made from a title: ASCII lower-case letters and digits, other runs turned into single hyphens, at
 * most 100 characters. A title with no usable character (only emoji or a non-Latin script) gives "page", so
 * that every page still has a path.
 */
export function slugify(title: string): string {
  const ascii = title
    .toLowerCase()
    .replace(/[ßæœøđðłþı]/g, (letter) => TRANSLITERATIONS[letter] ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');
  let slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (slug.length > SLUG_MAX_LENGTH) slug = slug.slice(0, SLUG_MAX_LENGTH).replace(/-+$/, '');
  return slug || 'page';
}

/** `base`, or `base-2`, `base-3`... whichever is first free among `taken`, kept within 100 characters. */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, SLUG_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

// ----- API shapes -----

/** A page as the API shows it, minus `urls` (the presenter knows the base URL) and the content itself. */
export interface MaterializedPage extends Omit<RevisionPage, 'urls' | 'pages' | 'markdown' | 'document'> {
  pages: MaterializedPage[];
  /** Hash of the markdown blob, for reading the content when asked; not part of the API object. */
  contentHash: string | null;
}

/** A file as the API shows it, minus `downloadURL`, plus the hash of its bytes. */
export interface MaterializedFile extends Omit<RevisionFile, 'downloadURL'> {
  blob: string;
}

/** A reusable content as the API shows it, plus the hash of its markdown. */
export interface MaterializedReusable {
  id: string;
  title: string;
  git?: GitLocation;
  contentHash: string | null;
}

export interface MaterializedTree {
  pages: MaterializedPage[];
  files: MaterializedFile[];
  reusableContents: MaterializedReusable[];
}

export function materialize(tree: WorkingTree): MaterializedTree {
  const toPage = (node: PageNode, parentPath: string): MaterializedPage => {
    const { slug, ...rest } = node.fields;
    const path = slug === undefined ? undefined : parentPath ? `${parentPath}/${slug}` : slug;
    const page: MaterializedPage = {
      id: node.id,
      ...rest,
      ...(slug === undefined ? {} : { slug, path }),
      pages: node.children.map((child) => toPage(child, path ?? parentPath)),
      contentHash: node.content,
    };
    return page;
  };
  return {
    pages: tree.pages.map((node) => toPage(node, '')),
    files: tree.fileObjects.map(({ kind: _kind, ...file }) => ({ ...file })),
    reusableContents: tree.reusableObjects.map(({ id, title, git, content }) => ({ id, title, ...(git ? { git } : {}), contentHash: content })),
  };
}

export async function materializeRoot(reader: ObjectReader, rootHash: string | null): Promise<MaterializedTree> {
  return materialize(await WorkingTree.load(reader, rootHash));
}

// ----- one-shot operations: old root in, new root out -----

export interface TreeOperationOptions extends WorkingTreeOptions {}

/** Inserts a page (with `markdown` as its content, if given) and answers the new root. */
export async function insertPage(
  writer: TreeWriter,
  rootHash: string | null,
  input: Omit<NewPageInput, 'content'> & { markdown?: string },
  place: PagePlace,
  options: TreeOperationOptions = {},
): Promise<{ root: string; page: PageNode }> {
  const tree = await WorkingTree.load(writer, rootHash, options);
  const { markdown, ...rest } = input;
  const page = tree.insertPage({ ...rest, content: markdownHash(writer, markdown) ?? null }, place);
  return { root: tree.commit(writer), page };
}

/** Updates a page's fields and/or content (`markdown`; empty text empties it) and answers the new root. */
export async function updatePage(
  writer: TreeWriter,
  rootHash: string | null,
  pageId: string,
  patch: Omit<PagePatch, 'content'> & { markdown?: string },
  options: TreeOperationOptions = {},
): Promise<string> {
  const tree = await WorkingTree.load(writer, rootHash, options);
  const { markdown, ...rest } = patch;
  const content = markdownHash(writer, markdown);
  tree.updatePage(pageId, content === undefined ? rest : { ...rest, content });
  return tree.commit(writer);
}

export async function movePage(
  writer: TreeWriter,
  rootHash: string | null,
  pageId: string,
  place: { into?: string | null; at?: number },
  options: TreeOperationOptions = {},
): Promise<string> {
  const tree = await WorkingTree.load(writer, rootHash, options);
  tree.movePage(pageId, place);
  return tree.commit(writer);
}

export async function deletePage(
  writer: TreeWriter,
  rootHash: string | null,
  pageId: string,
  options: TreeOperationOptions = {},
): Promise<{ root: string; deleted: string[] }> {
  const tree = await WorkingTree.load(writer, rootHash, options);
  const deleted = tree.deletePage(pageId).map((node) => node.id);
  return { root: tree.commit(writer), deleted };
}

export async function insertFiles(writer: TreeWriter, rootHash: string | null, files: readonly FileObject[]): Promise<string> {
  const tree = await WorkingTree.load(writer, rootHash);
  for (const file of files) tree.insertFile(file);
  return tree.commit(writer);
}

/** Deletes the files with the given ids; ids that are not in the tree are ignored (deleting is idempotent). */
export async function deleteFiles(writer: TreeWriter, rootHash: string | null, fileIds: readonly string[]): Promise<string> {
  const tree = await WorkingTree.load(writer, rootHash);
  for (const id of fileIds) tree.deleteFile(id);
  return tree.commit(writer);
}

/** Empty markdown is stored as "no content" rather than as an empty blob. */
export function markdownHash(writer: TreeWriter, markdown: string | undefined): string | null | undefined {
  if (markdown === undefined) return undefined;
  return markdown === '' ? null : writer.putMarkdown(markdown);
}
