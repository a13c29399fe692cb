import { describe, expect, it } from 'vitest';
import { MemoryObjectStore, TreeWriter, WorkingTree } from '../content/index.js';
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

const reads = (store: MemoryObjectStore) => store.getCalls + store.getManyCalls;

describe('working trees kept between edits', () => {
  it('hands the tree an edit committed to the next edit of that root, once, without reading the store', async () => {
    const { store, root } = await storedTree(3);
    const loaded = await takeWorkingTree(store, root);
    expect(loaded.pageCount).toBe(3);
    const writer = new TreeWriter(store);
    loaded.updatePage('p1', { title: 'Edited' });
    const next = loaded.commit(writer);
    flush(store, writer, next);
    keepWorkingTree(loaded);

    const before = reads(store);
    const taken = await takeWorkingTree(store, next);
    expect(taken).toBe(loaded);
    expect(reads(store)).toBe(before);
    // Taken out while an edit changes it: a second edit of the same root loads its own.
    const other = await takeWorkingTree(store, next);
    expect(other).not.toBe(loaded);
    expect(reads(store)).toBeGreaterThan(before);
    expect(other.getPage('p1')?.fields.title).toBe('Edited');
  });

  it('keeps no tree changed since its commit (a batch refused half-way)', async () => {
    const { store, root } = await storedTree(2);
    const tree = await takeWorkingTree(store, root);
    tree.updatePage('p0', { title: 'Half done' });
    const { trees } = keptWorkingTrees();
    keepWorkingTree(tree);
    expect(keptWorkingTrees().trees).toBe(trees);
    const again = await takeWorkingTree(store, root);
    expect(again).not.toBe(tree);
    expect(again.getPage('p0')?.fields.title).toBe('Page 0');
  });
});
