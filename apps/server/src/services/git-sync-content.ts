import {
  checkMarkdownOffThread,
  ContentError,
  limitBreachesInBatches,
  inlineDelimiterCount,
  limitBreachOfParsed,
  parsesOffThread,
  parsesOffThreadCounted,
  detectContentType,
  imageDimensions,
  isValidSlug,
  readMarkdown,
  rewriteIncludeTags,
  slugify,
  uniqueSlug,
  WorkingTree,
  TITLE_MAX_LENGTH,
  type FileObject,
  type ObjectReader,
  type PageFields,
  type PageNode,
  type TreeWriter,
} from '../content/index.js';
import type { ExportContent, ExportFile, ExportPage, ExportReusable, ImportedContent, ImportedPage, ImportedReusable } from '../git/types.js';
import { newId } from '../ids.js';
import { readBlob, type BlobStorage } from '../storage/blob-storage.js';

/*
 * The bridge between the Git module's plain structures and the content core: an import becomes a working
 * tree (markdown as content objects, file bytes in the blob storage and file objects naming them), and a
 * revision's tree becomes what an export writes. Both sides share one link convention (see git/types.ts), so
 * markdown passes through unchanged.
 */

const DESCRIPTION_MAX_LENGTH = 500;

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max).join('').trimEnd();
}

function cleanTitle(title: string): string {
  const clipped = clip(title.replace(/\s+/g, ' ').trim(), TITLE_MAX_LENGTH);
  return clipped === '' ? 'Untitled' : clipped;
}

/** A page path of the previous tree -> the node, so a page that stays where it was keeps its id. */
function nodesByPath(tree: WorkingTree | undefined): Map<string, PageNode> {
  const byPath = new Map<string, PageNode>();
  if (!tree) return byPath;
  for (const node of tree.walk()) {
    const path = node.fields.type === 'link' ? `${tree.pathOf(node.parent ?? node)}#link:${node.fields.title}` : tree.pathOf(node);
    if (!byPath.has(path)) byPath.set(path, node);
  }
  return byPath;
}

function withoutTimestamps(fields: PageFields): Omit<PageFields, 'createdAt' | 'updatedAt'> {
  const { createdAt: _createdAt, updatedAt: _updatedAt, ...rest } = fields;
  return rest;
}

function sameFields(a: PageFields, b: PageFields): boolean {
  return JSON.stringify(sortKeys(withoutTimestamps(a))) === JSON.stringify(sortKeys(withoutTimestamps(b)));
}

function sortKeys(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export interface ImportedFileBlob {
  /** Key of the bytes in the blob storage (the content core's blob hash). */
  hash: string;
  size: number;
}

export interface BuildImportOptions {
  /** The tree the space has now: pages and files found at the same place keep their ids and dates. */
  previous?: WorkingTree;
  /** Where each imported file's bytes were stored, by file name. */
  blobs: ReadonlyMap<string, ImportedFileBlob>;
  clock?: () => string;
}

/** Names an imported page in the message of a content limit it passes. */
function markdownName(page: ImportedPage): string {
  return `The page ${page.git?.path ?? cleanTitle(page.title)}`;
}

/**
 * Checks the imported markdown against the same limits as content written through the API (a page past them
 * would be stored but unreadable); throws ContentError `content_limit` naming the limit and the first page or
 * reusable content past one. Markdown whose parse may hold the event loop (`parsesOffThread`) is checked
 * first, one text at a time under the worker's time limit; then the others, reusable contents and then pages
 * in tree order, the order they are inserted: those whose tree depth the reading measured (`treeDepths`) by
 * the same checks on that depth (`limitBreachOfParsed`), the rest parsed in parallel batches
 * (`limitBreachesInBatches`).
 */
export async function checkImportedMarkdown(
  pages: readonly ImportedPage[],
  reusables: readonly ImportedReusable[] = [],
  treeDepths: ReadonlyMap<string, number> = new Map(),
): Promise<void> {
  const slowPages: ImportedPage[] = [];
  const quickPages: Array<{ page: ImportedPage; delimiters: number }> = [];
  const walk = (list: readonly ImportedPage[]): void => {
    for (const page of list) {
      if (page.type === 'document' && page.markdown !== '') {
        // Counted once for both questions: where it is parsed, and the limit on delimiters.
        const delimiters = inlineDelimiterCount(page.markdown);
        if (parsesOffThreadCounted(page.markdown, delimiters)) slowPages.push(page);
        else quickPages.push({ page, delimiters });
      }
      walk(page.children);
    }
  };
  walk(pages);
  for (const page of slowPages) await checkMarkdownOffThread(page.markdown, markdownName(page));
  const quick: Array<{ markdown: string; what: string; delimiters?: number }> = [];
  for (const reusable of reusables) {
    const what = `The reusable content ${reusable.git.path}`;
    if (parsesOffThread(reusable.markdown)) await checkMarkdownOffThread(reusable.markdown, what);
    else if (reusable.markdown !== '') quick.push({ markdown: reusable.markdown, what });
  }
  for (const { page, delimiters } of quickPages) quick.push({ markdown: page.markdown, what: markdownName(page), delimiters });
  const breaches: Array<string | null | undefined> = quick.map(({ markdown, what, delimiters }) => {
    const depth = treeDepths.get(markdown);
    return depth === undefined ? undefined : (limitBreachOfParsed(markdown, depth, what, delimiters) ?? null);
  });
  const unparsed = quick.filter((_, index) => breaches[index] === undefined).map(({ markdown, what }) => ({ markdown, what }));
  const checked = await limitBreachesInBatches(unparsed);
  let next = 0;
  const breach = breaches.map((known) => (known === undefined ? checked[next++]! : known)).find((message) => message !== null);
  if (breach) throw new ContentError('content_limit', breach);
}

/** Git's include of a reusable content (`.gitbook/includes/<name>`) as the content core's (`/reusable-contents/<id>`). */
const INCLUDE_PREFIX = '.gitbook/includes/';

/**
 * The imported reusable contents in `tree`, each keeping the id it had at the same path; answers the
 * function that turns the markdown's includes of them into the content core's.
 */
function insertImportedReusables(reusables: readonly ImportedReusable[], tree: WorkingTree, writer: TreeWriter, previous: WorkingTree | undefined): (markdown: string) => string {
  const previousByPath = new Map((previous?.reusableObjects ?? []).flatMap((object) => (object.git ? [[object.git.path, object.id] as const] : [])));
  const idByName = new Map<string, string>();
  for (const reusable of reusables) idByName.set(reusable.name, previousByPath.get(reusable.git.path) ?? newId());
  const toCore = (markdown: string) =>
    rewriteIncludeTags(markdown, (target) => {
      const id = target.startsWith(INCLUDE_PREFIX) ? idByName.get(target.slice(INCLUDE_PREFIX.length)) : undefined;
      return id === undefined ? undefined : `/reusable-contents/${id}`;
    });
  for (const reusable of reusables) {
    const markdown = toCore(reusable.markdown);
    tree.insertReusable({
      id: idByName.get(reusable.name)!,
      title: cleanTitle(reusable.title),
      content: markdown === '' ? null : writer.putMarkdown(markdown),
      git: { oid: reusable.git.oid, path: reusable.git.path },
    });
  }
  return toCore;
}

/**
 * The working tree of an imported repository; markdown is handed to `writer`, file bytes must already be
 * stored, and the markdown must have passed `checkImportedMarkdown`.
 */
export function buildImportedTree(content: ImportedContent, writer: TreeWriter, options: BuildImportOptions): WorkingTree {
  const clock = options.clock ?? (() => new Date().toISOString());
  const now = clock();
  const tree = WorkingTree.empty({ clock });
  const previousByPath = nodesByPath(options.previous);
  const usedIds = new Set<string>();
  const includesToCore = insertImportedReusables(content.reusables ?? [], tree, writer, options.previous);

  const insert = (pages: readonly ImportedPage[], parent: PageNode | null): void => {
    const taken = new Set<string>();
    for (const page of pages) {
      const isLink = page.type === 'link';
      let slug: string | undefined;
      if (!isLink) {
        slug = uniqueSlug(isValidSlug(page.slug) ? page.slug : slugify(page.slug || page.title), taken);
        taken.add(slug);
      }
      const title = cleanTitle(page.title);
      const parentPath = parent ? tree.pathOf(parent) : '';
      const key = isLink ? `${parentPath}#link:${title}` : parentPath === '' ? (slug as string) : `${parentPath}/${slug}`;
      const before = previousByPath.get(key);
      const reuse = before && !usedIds.has(before.id) && before.fields.type === page.type ? before : undefined;
      const id = reuse?.id ?? newId();
      usedIds.add(id);

      const fields: PageFields = { type: page.type, title, hidden: page.hidden === true };
      if (slug !== undefined) fields.slug = slug;
      if (page.description) fields.description = clip(page.description, DESCRIPTION_MAX_LENGTH);
      if (page.icon) fields.icon = page.icon;
      if (isLink && page.href) fields.href = page.href;
      if (page.git) fields.git = { oid: page.git.oid, path: page.git.path };
      const content = page.type === 'document' && page.markdown !== '' ? writer.putMarkdown(includesToCore(page.markdown)) : null;
      if (page.type === 'document') {
        // Unchanged pages keep their dates, and so their stored objects: a re-import shares them.
        const unchanged = reuse !== undefined && reuse.content === content && sameFields(reuse.fields, fields);
        fields.createdAt = reuse?.fields.createdAt ?? now;
        fields.updatedAt = unchanged ? (reuse.fields.updatedAt ?? now) : now;
      }
      const node = tree.insertPage({ ...fields, id, content }, { into: parent?.id ?? null });
      insert(page.children, node);
    }
  };
  insert(content.pages, null);

  const previousFiles = new Map((options.previous?.fileObjects ?? []).map((file) => [file.name, file]));
  for (const file of content.files) {
    const stored = options.blobs.get(file.name);
    if (!stored) throw new Error(`the bytes of ${file.name} were not stored`);
    const contentType = detectContentType(file.name, file.bytes);
    const dimensions = imageDimensions(file.bytes, contentType);
    const object: FileObject = {
      kind: 'file',
      id: previousFiles.get(file.name)?.id ?? newId(),
      name: file.name,
      contentType,
      size: stored.size,
      ...(dimensions ? { dimensions } : {}),
      git: { oid: file.git.oid, path: file.git.path },
      blob: stored.hash,
    };
    tree.insertFile(object);
  }
  return tree;
}

/** Puts the bytes of every imported file in the blob storage (before the transaction: it is disk I/O). */
export async function storeImportedFiles(content: ImportedContent, storage: BlobStorage): Promise<Map<string, ImportedFileBlob>> {
  const stored = new Map<string, ImportedFileBlob>();
  for (const file of content.files) {
    const { hash, size } = await storage.put(file.bytes);
    stored.set(file.name, { hash, size });
  }
  return stored;
}

/** What an export writes for a revision's tree: every page with its markdown, every file with its bytes. */
export async function exportContentOf(tree: WorkingTree, reader: ObjectReader, storage: BlobStorage): Promise<ExportContent> {
  const toPage = async (node: PageNode): Promise<ExportPage> => {
    const { fields } = node;
    const type = fields.type === 'link' ? 'link' : fields.type === 'group' ? 'group' : 'document';
    const children: ExportPage[] = [];
    for (const child of node.children) children.push(await toPage(child));
    return {
      id: node.id,
      type,
      title: fields.title,
      slug: fields.slug ?? slugify(fields.title),
      ...(type === 'document' ? { markdown: await readMarkdown(reader, node.content) } : {}),
      ...(fields.description ? { description: fields.description } : {}),
      ...(fields.icon ? { icon: fields.icon } : {}),
      ...(fields.hidden ? { hidden: true } : {}),
      ...(fields.href ? { href: fields.href } : {}),
      children,
    };
  };
  const pages: ExportPage[] = [];
  for (const node of tree.pages) pages.push(await toPage(node));
  const files: ExportFile[] = [];
  for (const file of tree.fileObjects) {
    const bytes = await readBlob(storage, file.blob);
    if (!bytes) throw new Error(`the bytes of file ${file.id} (${file.name}) are missing from the blob storage`);
    files.push({ name: file.name, bytes });
  }
  const reusables: ExportReusable[] = [];
  for (const object of tree.reusableObjects) {
    const name = object.git?.path.match(/\.gitbook\/includes\/(.+)$/)?.[1];
    reusables.push({ id: object.id, title: object.title, markdown: await readMarkdown(reader, object.content), ...(name ? { name } : {}) });
  }
  return { pages, files, reusables };
}
