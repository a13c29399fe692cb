import { WorkingTree, type ObjectReader } from '../content/index.js';

/*
 * The working trees that edits of change requests leave behind, by the root hash they stand for. Loading a
 * revision's tree builds a node for every page of the space (10,000 nodes for a 10,000-page space, some
 * 30 ms even when every object is in the decoded-object cache); an edit then changes a page or two. A request's
 * next edit starts from the root the last one made, so the tree that edit left, already in that state, is
 * kept here and taken by the next edit instead of being loaded again: a warm edit costs what its batch
 * changes, never the size of the space.
 *
 * A tree is taken out while an edit changes it (it is edited in place), so no two edits ever share one; a
 * batch that fails leaves its tree half changed and it is not kept (the next edit of that root loads it
 * again). Keys are content hashes, so a kept tree is right for any revision with that root, in any space or
 * database; a root whose revision was never written (a plan rolled back) is simply never asked for.
 * Bound: at most `MAX_KEPT_PAGES` pages in all, the least recently kept trees going first.
 */

/** About 50 to 100 MB of nodes at most; one 10,000-page space's tree is a fifth of it. */
const MAX_KEPT_PAGES = 50_000;

const kept = new Map<string, { tree: WorkingTree; pages: number }>();
let keptPages = 0;

/** The tree of `root` for an edit to change: the one a previous edit left, else loaded through `reader`. */
export async function takeWorkingTree(reader: ObjectReader, root: string): Promise<WorkingTree> {
  const entry = kept.get(root);
  if (entry) {
    kept.delete(root);
    keptPages -= entry.pages;
    return entry.tree;
  }
  return WorkingTree.load(reader, root);
}

/** Keeps a tree an edit committed, as the tree of its new root, for the next edit to take. */
export function keepWorkingTree(tree: WorkingTree): void {
  // Only a tree exactly as stored: committed and not changed since.
  const root = tree.committedRoot;
  if (root === null) return;
  const pages = tree.pageCount;
  if (pages > MAX_KEPT_PAGES) return;
  const previous = kept.get(root);
  if (previous) {
    kept.delete(root);
    keptPages -= previous.pages;
  }
  kept.set(root, { tree, pages });
  keptPages += pages;
  for (const [oldest, entry] of kept) {
    if (keptPages <= MAX_KEPT_PAGES) break;
    kept.delete(oldest);
    keptPages -= entry.pages;
  }
}

/** How many trees are kept and their pages (tests and benches). */
export function keptWorkingTrees(): { trees: number; pages: number } {
  return { trees: kept.size, pages: keptPages };
}
