import { describe, expect, it } from 'vitest';
import { materialize, MemoryObjectStore, TreeWriter, WorkingTree } from '../content/index.js';
import { fixedClock, flush } from '../../test/support/content-core.js';
import { keepWorkingTree, keptWorkingTrees, takeWorkingTree } from './working-trees.js';

async function storedTree(pages: number): Promise<{ store: MemoryObjectStore; root: string }> {
  const store = new MemoryObjectStore();
  const writer = new TreeWriter(store);
  const tree = WorkingTree.empty({ clock: fixedClock() });
  for (let i = 0; i < pages; i++) tree.insertPage({ id: `p${i}`, title: `Page ${i}`, content: writer.putMarkdown(`page ${i}\n`) }, { into: null });
  const root = tree.commit(writer);
  flush(store, writer, root);
  return { store, root };
}

/** Edits a fresh load of `root` (as another process would) and stores the result; answers its root. */
async function editElsewhere(store: MemoryObjectStore, root: string, page: string, title: string): Promise<string> {
  const tree = await WorkingTree.load(store, root);
  const writer = new TreeWriter(store);
  tree.updatePage(page, { title });
  const next = tree.commit(writer);
  flush(store, writer, next);
  return next;
}

describe('working trees kept between edits', () => {
  it('hands the tree a request\'s edit committed to its next edit, once, without reading the store', async () => {
    const { store, root } = await storedTree(3);
    const loaded = await takeWorkingTree(store, root, 'cr-1');
    expect(loaded.pageCount).toBe(3);
    const writer = new TreeWriter(store);
    loaded.updatePage('p1', { title: 'Edited' });
    const next = loaded.commit(writer);
    flush(store, writer, next);
    keepWorkingTree(loaded, 'cr-1');

    const before = store.objectsRead;
    const taken = await takeWorkingTree(store, next, 'cr-1');
    expect(taken).toBe(loaded);
    expect(store.objectsRead).toBe(before);
    // Taken out while an edit changes it: a second edit of the same request loads its own.
    const other = await takeWorkingTree(store, next, 'cr-1');
    expect(other).not.toBe(loaded);
    expect(store.objectsRead).toBeGreaterThan(before);
    expect(other.getPage('p1')?.fields.title).toBe('Edited');
  });

  it('brings a kept tree to the request\'s root when it moved on elsewhere, reading what changed only', async () => {
    const { store, root } = await storedTree(200);
    const tree = await takeWorkingTree(store, root, 'cr-2');
    keepWorkingTree(tree, 'cr-2');
    const moved = await editElsewhere(store, await editElsewhere(store, root, 'p7', 'Seven'), 'p150', 'Hundred and fifty');
    const before = store.objectsRead;
    const taken = await takeWorkingTree(store, moved, 'cr-2');
    expect(taken).toBe(tree);
    // The root and the two pages whose hash changed, of 200.
    expect(store.objectsRead - before).toBe(3);
    expect(materialize(taken)).toEqual(materialize(await WorkingTree.load(store, moved)));
  });

  it('keeps no tree changed since its commit (a batch refused half-way)', async () => {
    const { store, root } = await storedTree(2);
    const tree = await takeWorkingTree(store, root, 'cr-3');
    tree.updatePage('p0', { title: 'Half done' });
    const { trees } = keptWorkingTrees();
    keepWorkingTree(tree, 'cr-3');
    expect(keptWorkingTrees().trees).toBe(trees);
    const again = await takeWorkingTree(store, root, 'cr-3');
    expect(again).not.toBe(tree);
    expect(again.getPage('p0')?.fields.title).toBe('Page 0');
  });
});
