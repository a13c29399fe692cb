import { describe, expect, it } from 'vitest';
import { ContentError } from './errors.js';
import { documentToMarkdown, markdownToDocument, reusableIncludesIn } from './markdown/index.js';
import { MemoryObjectStore, TreeWriter, readMarkdown } from './objects.js';
import { materialize, WorkingTree } from './tree.js';

/*
 * Reusable contents in the content model: stored in a revision's root beside its pages, content-addressed
 * like them, and inserted in pages by an include tag that the document model reads as the public API's
 * `reusable-content` block.
 */

async function commitTree(store: MemoryObjectStore, build: (tree: WorkingTree, writer: TreeWriter) => void, root: string | null = null): Promise<string> {
  const writer = new TreeWriter(store);
  const tree = await WorkingTree.load(writer, root);
  build(tree, writer);
  const next = tree.commit(writer);
  store.write(writer.collect(next));
  return next;
}

describe('reusable contents in a revision tree', () => {
  it('are stored beside the pages and read back with their markdown', async () => {
    const store = new MemoryObjectStore();
    const root = await commitTree(store, (tree, writer) => {
      tree.insertPage({ id: 'intro', title: 'Introduction' }, { into: null });
      tree.insertReusable({ id: 'rc1', title: 'Support', content: writer.putMarkdown('Write to **help@example.com**.\n') });
    });
    const loaded = await WorkingTree.load(store, root);
    const { reusableContents } = materialize(loaded);
    expect(reusableContents).toEqual([{ id: 'rc1', title: 'Support', contentHash: expect.any(String) }]);
    expect(await readMarkdown(store, reusableContents[0]!.contentHash)).toBe('Write to **help@example.com**.\n');
  });

  it('leave the root of a tree without any as it was hashed before they existed', async () => {
    const store = new MemoryObjectStore();
    const withPage = await commitTree(store, (tree) => tree.insertPage({ id: 'intro', title: 'Introduction' }, { into: null }));
    const added = await commitTree(store, (tree) => tree.insertReusable({ id: 'rc1', title: 'Support' }), withPage);
    const removed = await commitTree(store, (tree) => tree.deleteReusable('rc1'), added);
    expect(added).not.toBe(withPage);
    expect(removed).toBe(withPage);
  });

  it('write only the reusable content that changed, and share the pages', async () => {
    const store = new MemoryObjectStore();
    const first = await commitTree(store, (tree, writer) => {
      tree.insertPage({ id: 'intro', title: 'Introduction' }, { into: null });
      tree.insertReusable({ id: 'rc1', title: 'One', content: writer.putMarkdown('one') });
      tree.insertReusable({ id: 'rc2', title: 'Two', content: writer.putMarkdown('two') });
    });
    const before = store.size;
    const writer = new TreeWriter(store);
    const tree = await WorkingTree.load(writer, first);
    expect(tree.updateReusable('rc2', { title: 'Two' })).toBe(false);
    expect(tree.updateReusable('rc2', { content: writer.putMarkdown('deux') })).toBe(true);
    store.write(writer.collect(tree.commit(writer)));
    // The new reusable object, its markdown blob and the root.
    expect(store.size - before).toBe(3);
  });

  it('refuse an unknown id, a repeated id and an empty title', async () => {
    const tree = WorkingTree.empty();
    tree.insertReusable({ id: 'rc1', title: 'One' });
    const codeOf = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (error) {
        return error instanceof ContentError ? error.code : 'other';
      }
      return undefined;
    };
    expect(codeOf(() => tree.insertReusable({ id: 'rc1', title: 'Again' }))).toBe('duplicate_id');
    expect(codeOf(() => tree.updateReusable('nope', { title: 'X' }))).toBe('reusable_content_not_found');
    expect(codeOf(() => tree.insertReusable({ id: 'rc2', title: ' ' }))).toBe('invalid_title');
    expect(tree.deleteReusable('nope')).toBe(false);
  });
});

describe('the include tag of a reusable content', () => {
  const markdown = 'Before.\n\n{% include "/reusable-contents/rc1" %}\n\nAfter.\n';

  it('is a reusable-content block of the document, and back', () => {
    const document = markdownToDocument(markdown);
    expect(document.nodes[1]).toMatchObject({
      object: 'block',
      type: 'reusable-content',
      isVoid: true,
      data: { ref: { kind: 'reusable-content', reusableContent: 'rc1' } },
    });
    expect(documentToMarkdown(document)).toBe(markdown);
  });

  it('is only a paragraph of its own: inside a sentence or in code it stays text', () => {
    const inline = markdownToDocument('See {% include "/reusable-contents/rc1" %} here.\n');
    expect(inline.nodes[0]!.type).toBe('paragraph');
    const code = markdownToDocument('```\n{% include "/reusable-contents/rc1" %}\n```\n');
    expect(code.nodes[0]!.type).toBe('code');
  });

  it('is found in markdown without parsing it', () => {
    expect(reusableIncludesIn(`${markdown}\n  {% include "/reusable-contents/rc-2" %}\n`)).toEqual(['rc1', 'rc-2']);
    expect(reusableIncludesIn('No tag here.')).toEqual([]);
  });
});
