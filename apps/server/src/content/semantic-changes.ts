import { sameValue, type MaterializedFile, type MaterializedPage, type MaterializedTree } from './tree.js';

/*
 * What changed from one revision's tree to another's, as readers of a history want it: pages created,
 * edited (which of their own fields), moved to another parent, deleted; files created, edited, deleted.
 * Pure: both trees are already materialized.
 */

/** The fields of a page whose change makes it "edited"; `document` is its content. */
export const PAGE_ATTRIBUTES = ['title', 'description', 'slug', 'emoji', 'document', 'layout', 'cover', 'variables', 'href'] as const;
export type PageAttribute = (typeof PAGE_ATTRIBUTES)[number];

/** The fields of a file whose change makes it "edited"; `blob` is its bytes. */
export const FILE_ATTRIBUTES = ['name', 'contentType', 'size', 'dimensions', 'blob'] as const;
export type FileAttribute = (typeof FILE_ATTRIBUTES)[number];

export type SemanticChange =
  | { type: 'page_created' | 'page_deleted'; page: MaterializedPage }
  | { type: 'page_edited'; page: MaterializedPage; before: MaterializedPage; attributes: PageAttribute[] }
  | { type: 'page_moved'; page: MaterializedPage; parentBefore: MaterializedPage | null; parentAfter: MaterializedPage | null }
  | { type: 'file_created' | 'file_deleted'; file: MaterializedFile }
  | { type: 'file_edited'; file: MaterializedFile; before: MaterializedFile; attributes: FileAttribute[] };

interface Placed {
  page: MaterializedPage;
  parent: MaterializedPage | null;
}

/** Every page of the tree with its parent, parents before children, in tree order. */
function placedPages(tree: MaterializedTree): Map<string, Placed> {
  const placed = new Map<string, Placed>();
  const walk = (pages: readonly MaterializedPage[], parent: MaterializedPage | null): void => {
    for (const page of pages) {
      placed.set(page.id, { page, parent });
      walk(page.pages, page);
    }
  };
  walk(tree.pages, null);
  return placed;
}

function pageValue(page: MaterializedPage, attribute: PageAttribute): unknown {
  return attribute === 'document' ? page.contentHash : page[attribute];
}

/**
 * The changes from `before` to `after`: pages in the order of `after`'s tree (a page both edited and moved
 * is listed twice), then deleted pages in the order of `before`'s, then files likewise.
 */
export function semanticChanges(before: MaterializedTree, after: MaterializedTree): SemanticChange[] {
  const changes: SemanticChange[] = [];
  const pagesBefore = placedPages(before);
  const pagesAfter = placedPages(after);
  for (const { page, parent } of pagesAfter.values()) {
    const old = pagesBefore.get(page.id);
    if (!old) {
      changes.push({ type: 'page_created', page });
      continue;
    }
    const attributes = PAGE_ATTRIBUTES.filter((attribute) => !sameValue(pageValue(old.page, attribute), pageValue(page, attribute)));
    if (attributes.length > 0) changes.push({ type: 'page_edited', page, before: old.page, attributes });
    if ((old.parent?.id ?? null) !== (parent?.id ?? null)) changes.push({ type: 'page_moved', page, parentBefore: old.parent, parentAfter: parent });
  }
  for (const { page } of pagesBefore.values()) if (!pagesAfter.has(page.id)) changes.push({ type: 'page_deleted', page });

  const filesBefore = new Map(before.files.map((file) => [file.id, file]));
  const filesAfter = new Set(after.files.map((file) => file.id));
  for (const file of after.files) {
    const old = filesBefore.get(file.id);
    if (!old) {
      changes.push({ type: 'file_created', file });
      continue;
    }
    const attributes = FILE_ATTRIBUTES.filter((attribute) => !sameValue(old[attribute], file[attribute]));
    if (attributes.length > 0) changes.push({ type: 'file_edited', file, before: old, attributes });
  }
  for (const file of before.files) if (!filesAfter.has(file.id)) changes.push({ type: 'file_deleted', file });
  return changes;
}
