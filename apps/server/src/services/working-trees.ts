import { WorkingTree, type ObjectReader } from '../content/index.js';

/*
 * The working trees that edits of change requests leave behind, one per change request. Loading a
 * revision's tree builds a node for every page of the space (10,000 nodes for a 10,000-page space, some
 * 30 ms even when every object is in the decoded-object cache); an edit then changes a page or two. A request's
 * next edit starts from the root its last one made, so the tree that edit left, already in that state, is
 * kept here and taken by the next edit instead of being loaded again. When the request moved on meanwhile
 * (an edit made by another process, an update from main), the kept tree is brought to the request's root by
 * `advanceTo`, which reads only where the two roots differ. Either way a warm edit costs what changed, never
 * the size of the space.
 *
 * A tree is taken out while an edit changes it (it is edited in place), so no two edits ever share one; a
 * batch that fails leaves its tree half changed and it is not kept (the next edit of that request loads its
 * tree again). A kept tree stands for its root hash, content-addressed: whichever revision has that root.
 * Bound: at most `MAX_KEPT_PAGES` pages in all, the least recently kept trees going first.
 */

/** About 50 to 100 MB of nodes at most; one 10,000-page space's tree is a fifth of it. */
const MAX_KEPT_PAGES = 50_000;

const kept = new Map<string, { tree: WorkingTree; pages: number }>();
let keptPages = 0;

/**
 * The tree of `root` for an edit of the change request `scope` to change: the one its previous edit left,
 * brought to `root` when the request moved on since, else loaded through `reader`.
 */
export async function takeWorkingTree(reader: ObjectReader, root: string, scope: string): Promise<WorkingTree> {
  const entry = kept.get(scope);
  if (entry) {
    kept.delete(scope);
    keptPages -= entry.pages;
    try {
      await entry.tree.advanceTo(reader, root);
      return entry.tree;
    } catch {
      // A root that cannot be read whole is reported by the load below, as for any edit.
    }
  }
  return WorkingTree.load(reader, root);
}

/** Keeps a tree an edit of the change request `scope` committed, for its next edit to take. */
export function keepWorkingTree(tree: WorkingTree, scope: string): void {
  // Only a tree exactly as stored: committed and not changed since.
  if (tree.committedRoot === null) return;
  const pages = tree.pageCount;
  if (pages > MAX_KEPT_PAGES) return;
  const previous = kept.get(scope);
  if (previous) {
    kept.delete(scope);
    keptPages -= previous.pages;
  }
  kept.set(scope, { tree, pages });
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
