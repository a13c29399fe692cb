import type { ChangeRequestContentChange } from '@quire/api-types';
import { newId } from '../ids.js';
import { ContentError } from './errors.js';
import { detectContentType, imageDimensions } from './files.js';
import { applyLinkRewrites, classifyUrl, findLinkDestinations, parseMarkdownWithinLimits, type LinkDestination } from './markdown/index.js';
import type { FileObject, TreeWriter } from './objects.js';
import { markdownHash, WorkingTree, type PageNode, type PagePatch } from './tree.js';

/*
 * A batch of content changes of a change request (ChangeRequestContentChange), applied all or nothing: the
 * whole batch runs on an in-memory working tree, and only a batch that succeeds produces a root. A failing
 * batch throws a ContentError naming the change, and the caller throws the writer away.
 */

/**
 * A page change; `checkedLinks` are the link destinations of its markdown when it was already checked
 * against the content limits and parsed elsewhere (in a worker thread: see markdown-pool.ts), so that
 * applying the batch does not parse it again.
 */
type PageChange = Extract<ChangeRequestContentChange, { operation: 'insert_page' | 'update_page' | 'delete_page' }> & { checkedLinks?: LinkDestination[] };
/** A reusable content change, with its markdown's links when already checked (as for pages). */
type ReusableChange = Extract<ChangeRequestContentChange, { operation: 'insert_reusable_content' | 'update_reusable_content' | 'delete_reusable_content' }> & {
  checkedLinks?: LinkDestination[];
};

/** A file of an `insert_files` change, with its bytes already decoded (base64) or downloaded (url). */
export interface FileInput {
  name: string;
  contentType?: string;
  ref?: string;
  data: Uint8Array;
}

export type ContentChangeInput = PageChange | ReusableChange | { operation: 'insert_files'; files: FileInput[] };

export interface AppliedChange {
  object: 'created_page' | 'updated_page' | 'deleted_page';
  page: string;
  ref?: string;
}

export interface AppliedReusableChange {
  object: 'created_reusable_content' | 'updated_reusable_content' | 'deleted_reusable_content';
  reusableContent: string;
  ref?: string;
}

export interface ApplyChangesResult {
  root: string;
  /** One entry per page change, in the order of the batch. */
  changes: AppliedChange[];
  /** One entry per reusable content change, in the order of the batch. */
  reusableChanges: AppliedReusableChange[];
  /** The files added by `insert_files`, in the order of the batch. */
  insertedFiles: FileObject[];
}

export interface ApplyChangesOptions {
  newPageId?: () => string;
  newFileId?: () => string;
  clock?: () => string;
  /** Largest accepted file, in bytes (the contract's 1 MB). */
  maxFileBytes?: number;
}

export const MAX_FILE_BYTES = 1024 * 1024;

export async function applyContentChanges(
  writer: TreeWriter,
  rootHash: string | null,
  changes: readonly ContentChangeInput[],
  options: ApplyChangesOptions = {},
): Promise<ApplyChangesResult> {
  return applyChangesToTree(writer, await WorkingTree.load(writer, rootHash), changes, options);
}

/**
 * The same on a tree already loaded (the one a previous edit left: services/working-trees.ts), which it
 * edits in place: a batch that succeeds leaves the tree as its new root, one that fails leaves it half
 * changed, to be thrown away. Synchronous, so nothing else can see the tree while it changes; its cost is
 * the batch's (the pages it changes, their siblings and ancestors), whatever the size of the tree.
 */
export function applyChangesToTree(writer: TreeWriter, tree: WorkingTree, changes: readonly ContentChangeInput[], options: ApplyChangesOptions = {}): ApplyChangesResult {
  tree.useClock(options.clock);
  const batch = new Batch(tree, writer, options);
  changes.forEach((change, index) => {
    try {
      batch.apply(change);
    } catch (error) {
      throw error instanceof ContentError ? error.atChange(index) : error;
    }
  });
  return { root: tree.commit(writer), changes: batch.applied, reusableChanges: batch.appliedReusables, insertedFiles: batch.insertedFiles };
}

class Batch {
  readonly applied: AppliedChange[] = [];
  readonly appliedReusables: AppliedReusableChange[] = [];
  readonly insertedFiles: FileObject[] = [];
  private readonly refs = new Map<string, { kind: 'page' | 'file' | 'reusable'; id: string }>();
  private readonly newPageId: () => string;
  private readonly newFileId: () => string;
  private readonly maxFileBytes: number;

  constructor(
    private readonly tree: WorkingTree,
    private readonly writer: TreeWriter,
    options: ApplyChangesOptions,
  ) {
    this.newPageId = options.newPageId ?? (() => newId());
    this.newFileId = options.newFileId ?? (() => newId());
    this.maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
  }

  apply(change: ContentChangeInput): void {
    switch (change.operation) {
      case 'insert_page':
        return this.insertPage(change);
      case 'update_page':
        return this.updatePage(change);
      case 'delete_page':
        return this.deletePage(change);
      case 'insert_files':
        return this.insertFiles(change.files);
      case 'insert_reusable_content':
        return this.insertReusable(change);
      case 'update_reusable_content':
        return this.updateReusable(change);
      case 'delete_reusable_content':
        return this.deleteReusable(change);
      default:
        throw new ContentError('invalid_change', `Unknown operation "${(change as { operation?: unknown }).operation}"`);
    }
  }

  private insertPage(change: Extract<PageChange, { operation: 'insert_page' }>): void {
    const into = change.into === undefined || change.into === null ? null : this.resolvePage(change.into).id;
    if (change.ref !== undefined) this.claimRef(change.ref);
    const node = this.tree.insertPage(
      {
        id: this.newPageId(),
        title: change.title,
        ...(change.slug === undefined ? {} : { slug: change.slug }),
        ...(change.emoji === undefined ? {} : { emoji: change.emoji }),
        ...(change.description === undefined ? {} : { description: change.description }),
      },
      { into, at: change.at },
    );
    if (change.ref !== undefined) this.refs.set(change.ref, { kind: 'page', id: node.id });
    // Content goes in once the page has its place: relative links resolve against the page's own path.
    this.setMarkdown(node, change.document.markdown, change.checkedLinks);
    this.applied.push({ object: 'created_page', page: node.id, ...(change.ref === undefined ? {} : { ref: change.ref }) });
  }

  private updatePage(change: Extract<PageChange, { operation: 'update_page' }>): void {
    const node = this.resolvePage(change.page);
    const { operation: _operation, page: _page, document, into, at, checkedLinks: _checkedLinks, ...fields } = change;
    if (document === undefined && into === undefined && at === undefined && Object.values(fields).every((v) => v === undefined)) {
      throw new ContentError('empty_update', 'An update_page change must change at least one thing');
    }
    if (document !== undefined && node.fields.type !== 'document') {
      throw new ContentError('not_a_document', `Page "${node.id}" is a ${node.fields.type} page, which has no content`);
    }
    if (into !== undefined || at !== undefined) {
      this.tree.movePage(node.id, { into: into === undefined || into === null ? into : this.resolvePage(into).id, at });
    }
    const patch: PagePatch = {};
    if (fields.title !== undefined) patch.title = fields.title;
    if (fields.slug !== undefined) patch.slug = fields.slug;
    if (fields.emoji !== undefined) patch.emoji = fields.emoji;
    if (fields.description !== undefined) patch.description = fields.description;
    if (fields.hidden !== undefined) patch.hidden = fields.hidden;
    this.tree.updatePage(node.id, patch);
    if (document !== undefined) this.setMarkdown(node, document.markdown, change.checkedLinks);
    this.applied.push({ object: 'updated_page', page: node.id });
  }

  private deletePage(change: Extract<PageChange, { operation: 'delete_page' }>): void {
    const node = this.resolvePage(change.page);
    this.tree.deletePage(node.id);
    this.applied.push({ object: 'deleted_page', page: node.id });
  }

  private insertFiles(files: readonly FileInput[]): void {
    if (!Array.isArray(files) || files.length === 0) throw new ContentError('invalid_file', 'insert_files needs at least one file');
    for (const file of files) {
      const nameLength = typeof file.name === 'string' ? [...file.name].length : 0;
      if (nameLength < 1 || nameLength > 256 || /[/\\\0]/.test(file.name)) {
        throw new ContentError('invalid_file', 'A file name must have 1 to 256 characters and no slash');
      }
      if (file.data.byteLength > this.maxFileBytes) {
        throw new ContentError('file_too_large', `File "${file.name}" is larger than ${this.maxFileBytes} bytes`);
      }
      if (file.ref !== undefined) this.claimRef(file.ref);
      const contentType = detectContentType(file.name, file.data, file.contentType);
      const dimensions = contentType.startsWith('image/') ? imageDimensions(file.data, contentType) : undefined;
      const object: FileObject = {
        kind: 'file',
        id: this.newFileId(),
        name: file.name,
        contentType,
        size: file.data.byteLength,
        ...(dimensions ? { dimensions } : {}),
        blob: this.writer.putBlob(file.data),
      };
      this.tree.insertFile(object);
      if (file.ref !== undefined) this.refs.set(file.ref, { kind: 'file', id: object.id });
      this.insertedFiles.push(object);
    }
  }

  private insertReusable(change: Extract<ReusableChange, { operation: 'insert_reusable_content' }>): void {
    if (change.ref !== undefined) this.claimRef(change.ref);
    const object = this.tree.insertReusable({ id: this.newPageId(), title: change.title, content: this.stableMarkdown('', change.document.markdown, change.checkedLinks) });
    if (change.ref !== undefined) this.refs.set(change.ref, { kind: 'reusable', id: object.id });
    this.appliedReusables.push({ object: 'created_reusable_content', reusableContent: object.id, ...(change.ref === undefined ? {} : { ref: change.ref }) });
  }

  private updateReusable(change: Extract<ReusableChange, { operation: 'update_reusable_content' }>): void {
    const id = this.resolveReusable(change.reusableContent);
    if (change.title === undefined && change.document === undefined) {
      throw new ContentError('empty_update', 'An update_reusable_content change must change its title or its document');
    }
    this.tree.updateReusable(id, {
      ...(change.title === undefined ? {} : { title: change.title }),
      ...(change.document === undefined ? {} : { content: this.stableMarkdown('', change.document.markdown, change.checkedLinks) }),
    });
    this.appliedReusables.push({ object: 'updated_reusable_content', reusableContent: id });
  }

  private deleteReusable(change: Extract<ReusableChange, { operation: 'delete_reusable_content' }>): void {
    const id = this.resolveReusable(change.reusableContent);
    this.tree.deleteReusable(id);
    this.appliedReusables.push({ object: 'deleted_reusable_content', reusableContent: id });
  }

  /** A reusable content given by the `ref` of one inserted earlier in the batch, or by id. */
  private resolveReusable(idOrRef: string): string {
    const ref = this.refs.get(idOrRef);
    if (ref && ref.kind !== 'reusable') throw new ContentError('unknown_ref', `"${idOrRef}" is the ref of a ${ref.kind}, not of a reusable content`);
    const id = ref?.id ?? idOrRef;
    if (!this.tree.getReusable(id)) {
      throw new ContentError(
        'reusable_content_not_found',
        ref ? `The reusable content inserted as "${idOrRef}" was deleted earlier in the batch` : `There is no reusable content with id or ref "${idOrRef}"`,
      );
    }
    return id;
  }

  /** A page given by the `ref` of a page inserted earlier in the batch, or by id. */
  private resolvePage(idOrRef: string): PageNode {
    const ref = this.refs.get(idOrRef);
    if (ref && ref.kind !== 'page') throw new ContentError('unknown_ref', `"${idOrRef}" is the ref of a ${ref.kind === 'file' ? 'file' : 'reusable content'}, not of a page`);
    const id = ref?.id ?? idOrRef;
    const node = this.tree.getPage(id);
    if (!node) {
      throw new ContentError(
        'page_not_found',
        ref ? `The page inserted as "${idOrRef}" was deleted earlier in the batch` : `There is no page with id or ref "${idOrRef}"`,
      );
    }
    return node;
  }

  private claimRef(ref: string): void {
    if (this.refs.has(ref)) throw new ContentError('duplicate_ref', `The ref "${ref}" is used twice in the batch`);
  }

  /**
   * Stores the page's markdown with its links made stable: `ref:<label>` becomes `/pages/<id>` or
   * `/files/<id>`, and a path of a page of the space becomes `/pages/<id>`, so that renaming or moving the
   * target later does not break the link.
   */
  private setMarkdown(node: PageNode, markdown: string, checkedLinks?: readonly LinkDestination[]): void {
    this.tree.updatePage(node.id, { content: this.stableMarkdown(this.tree.pathOf(node), markdown, checkedLinks) });
  }

  /**
   * The hash of the markdown stored with its links made stable (see setMarkdown); relative links resolve
   * against `pagePath` (a reusable content has none: its links resolve from the top of the space).
   */
  private stableMarkdown(pagePath: string, markdown: string, checkedLinks?: readonly LinkDestination[]): string | null {
    const links = checkedLinks ?? findLinkDestinations(markdown, parseMarkdownWithinLimits(markdown, 'document.markdown'));
    const stable = applyLinkRewrites(markdown, links, (url) => {
      const target = classifyUrl(url, pagePath);
      if (target.kind === 'ref') {
        const hashAt = target.label.indexOf('#');
        const label = hashAt < 0 ? target.label : target.label.slice(0, hashAt);
        const anchor = hashAt < 0 ? '' : target.label.slice(hashAt);
        const ref = this.refs.get(label);
        if (!ref || ref.kind === 'reusable') throw new ContentError('unknown_ref', `The link "${url}" names no page or file created earlier in the batch`);
        return ref.kind === 'page' ? `/pages/${ref.id}${anchor}` : `/files/${ref.id}`;
      }
      if (target.kind === 'page-path' && target.path !== '') {
        const page = this.tree.findByPath(target.path);
        if (page) return `/pages/${page.id}${target.anchor ? `#${encodeURIComponent(target.anchor)}` : ''}`;
      }
      return undefined;
    });
    return markdownHash(this.writer, stable) ?? null;
  }
}
