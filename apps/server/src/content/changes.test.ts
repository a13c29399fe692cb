import { describe, expect, it } from 'vitest';
import { applyChangesToTree, applyContentChanges, type ContentChangeInput } from './changes.js';
import { ContentError } from './errors.js';
import { CachingObjectReader, MemoryObjectStore, readMarkdown, TreeWriter } from './objects.js';
import { hashObject } from './hash.js';
import { fixedClock, flush, sequentialIds } from '../../test/support/content-core.js';
import { materialize, WorkingTree } from './tree.js';

// A 3x2 PNG: signature, then the IHDR chunk (enough for the header reader).
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.from([0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0]),
]);

async function setup() {
  const store = new MemoryObjectStore();
  const writer = new TreeWriter(store);
  const tree = WorkingTree.empty({ clock: fixedClock() });
  tree.insertPage({ id: 'home', title: 'Home', content: writer.putMarkdown('Welcome.\n') }, { into: null });
  tree.insertPage({ id: 'guides', title: 'Guides', type: 'group' }, { into: null });
  tree.insertPage({ id: 'setup', title: 'Setup' }, { into: 'guides' });
  tree.insertPage({ id: 'deep', title: 'Deep' }, { into: 'setup' });
  const root = tree.commit(writer);
  flush(store, writer, root);
  return { store, root };
}

async function apply(store: MemoryObjectStore, root: string | null, changes: ContentChangeInput[]) {
  const writer = new TreeWriter(new CachingObjectReader(store));
  const result = await applyContentChanges(writer, root, changes, {
    newPageId: sequentialIds('page'),
    newFileId: sequentialIds('file'),
    clock: fixedClock(Date.UTC(2025, 0, 1)),
  });
  flush(store, writer, result.root);
  return result;
}

async function applyError(store: MemoryObjectStore, root: string | null, changes: ContentChangeInput[]): Promise<ContentError> {
  try {
    await apply(store, root, changes);
  } catch (error) {
    expect(error).toBeInstanceOf(ContentError);
    return error as ContentError;
  }
  throw new Error('the batch was expected to fail');
}

async function markdownOf(store: MemoryObjectStore, root: string, id: string): Promise<string> {
  const tree = await WorkingTree.load(store, root);
  return readMarkdown(store, tree.requirePage(id).content);
}

describe('applyContentChanges', () => {
  it('inserts pages, resolving refs as parents and in links, and answers one entry per change', async () => {
    const { store, root } = await setup();
    const result = await apply(store, root, [
      { operation: 'insert_files', files: [{ name: 'logo.png', ref: 'logo', data: PNG }] },
      { operation: 'insert_page', title: 'Tutorials', ref: 'tuts', document: { markdown: '' }, into: null, at: 1 },
      {
        operation: 'insert_page',
        title: 'First steps',
        into: 'tuts',
        emoji: '👣',
        description: 'Start here',
        document: { markdown: 'Back to [tutorials](ref:tuts#top), see ![logo](ref:logo).\n' },
      },
    ]);
    expect(result.changes).toEqual([
      { object: 'created_page', page: 'page1', ref: 'tuts' },
      { object: 'created_page', page: 'page2' },
    ]);
    const { pages } = materialize(await WorkingTree.load(store, result.root));
    expect(pages.map((page) => page.id)).toEqual(['home', 'page1', 'guides']);
    expect(pages[1]!.pages[0]).toMatchObject({
      id: 'page2',
      title: 'First steps',
      slug: 'first-steps',
      path: 'tutorials/first-steps',
      emoji: '👣',
      description: 'Start here',
      createdAt: '2025-01-01T00:00:02.000Z',
    });
    expect(pages[1]!.contentHash).toBeNull();
    // ref: labels are batch-local, so they are replaced by the stable links they stand for.
    expect(await markdownOf(store, result.root, 'page2')).toBe('Back to [tutorials](/pages/page1#top), see ![logo](/files/file1).\n');
  });

  it('stores files with their hash, size, content type and image dimensions', async () => {
    const { store, root } = await setup();
    const result = await apply(store, root, [
      {
        operation: 'insert_files',
        files: [
          { name: 'pixel.png', data: PNG },
          { name: 'notes.txt', data: Buffer.from('hello') },
          { name: 'data.bin', contentType: 'application/x-custom', data: Buffer.from([1, 2, 3]) },
        ],
      },
    ]);
    expect(result.changes).toEqual([]);
    expect(result.insertedFiles).toEqual([
      { kind: 'file', id: 'file1', name: 'pixel.png', contentType: 'image/png', size: PNG.length, dimensions: { width: 3, height: 2 }, blob: hashObject('blob', PNG) },
      { kind: 'file', id: 'file2', name: 'notes.txt', contentType: 'text/plain', size: 5, blob: hashObject('blob', Buffer.from('hello')) },
      { kind: 'file', id: 'file3', name: 'data.bin', contentType: 'application/x-custom', size: 3, blob: hashObject('blob', Buffer.from([1, 2, 3])) },
    ]);
    expect(Buffer.from((await store.getBlob(result.insertedFiles[0]!.blob))!)).toEqual(PNG);
    expect((await WorkingTree.load(store, result.root)).fileObjects).toHaveLength(3);
  });

  it('updates fields, moves, and replaces content of existing pages', async () => {
    const { store, root } = await setup();
    const result = await apply(store, root, [
      { operation: 'update_page', page: 'setup', title: 'Installation', slug: 'install', emoji: '🛠', hidden: true },
      { operation: 'update_page', page: 'deep', into: null, at: 0 },
      { operation: 'update_page', page: 'home', document: { markdown: 'New home.\n' }, description: 'Front page' },
      { operation: 'update_page', page: 'setup', emoji: null },
    ]);
    expect(result.changes.map((change) => `${change.object}:${change.page}`)).toEqual([
      'updated_page:setup',
      'updated_page:deep',
      'updated_page:home',
      'updated_page:setup',
    ]);
    const tree = await WorkingTree.load(store, result.root);
    expect(tree.pages.map((node) => node.id)).toEqual(['deep', 'home', 'guides']);
    const installation = tree.requirePage('setup');
    expect(installation.fields).toMatchObject({ title: 'Installation', slug: 'install', hidden: true });
    expect(installation.fields).not.toHaveProperty('emoji');
    expect(tree.pathOf(installation)).toBe('guides/install');
    expect(tree.requirePage('home').fields.description).toBe('Front page');
    expect(await markdownOf(store, result.root, 'home')).toBe('New home.\n');
  });

  it('deletes pages with their subtrees', async () => {
    const { store, root } = await setup();
    const result = await apply(store, root, [{ operation: 'delete_page', page: 'setup' }]);
    expect(result.changes).toEqual([{ object: 'deleted_page', page: 'setup' }]);
    const tree = await WorkingTree.load(store, result.root);
    expect(tree.getPage('deep')).toBeUndefined();
    expect(tree.pageCount).toBe(2);
  });

  it('turns links to page paths into stable page links, relative ones resolved from the page', async () => {
    const { store, root } = await setup();
    const result = await apply(store, root, [
      {
        operation: 'update_page',
        page: 'setup',
        document: { markdown: '[deep](setup/deep) [home](/home#intro) [up](../home.md) [gone](/nowhere) [web](https://x.y/home)\n' },
      },
    ]);
    expect(await markdownOf(store, result.root, 'setup')).toBe(
      '[deep](/pages/deep) [home](/pages/home#intro) [up](/pages/home) [gone](/nowhere) [web](https://x.y/home)\n',
    );
  });

  it('is all or nothing: a failing change throws, naming it, and no root is produced', async () => {
    const { store, root } = await setup();
    const before = materialize(await WorkingTree.load(store, root));
    const sizeBefore = store.size;
    const error = await applyError(store, root, [
      { operation: 'insert_page', title: 'Kept?', document: { markdown: 'x' } },
      { operation: 'update_page', page: 'home', title: 'Changed?' },
      { operation: 'delete_page', page: 'no-such-page' },
    ]);
    expect(error.code).toBe('page_not_found');
    expect(error.changeIndex).toBe(2);
    expect(error.message).toMatch(/^changes\[2\]: /);
    expect(store.size).toBe(sizeBefore);
    expect(materialize(await WorkingTree.load(store, root))).toEqual(before);
  });

  it('reports invalid changes as typed errors', async () => {
    const { store, root } = await setup();
    const cases: [ContentChangeInput[], ContentError['code']][] = [
      [[{ operation: 'update_page', page: 'guides', into: 'deep' }], 'invalid_move'],
      [[{ operation: 'update_page', page: 'setup', into: 'setup' }], 'invalid_move'],
      [[{ operation: 'update_page', page: 'setup', at: -1 }], 'invalid_position'],
      [[{ operation: 'insert_page', title: 'X', document: { markdown: '' }, at: 2.5 }], 'invalid_position'],
      [[{ operation: 'insert_page', title: 'X', document: { markdown: '' }, into: 'missing' }], 'page_not_found'],
      [[{ operation: 'update_page', page: 'missing', title: 'X' }], 'page_not_found'],
      [[{ operation: 'update_page', page: 'guides', document: { markdown: 'x' } }], 'not_a_document'],
      [[{ operation: 'update_page', page: 'home' } as ContentChangeInput], 'empty_update'],
      [[{ operation: 'insert_page', title: 'X', slug: 'home', document: { markdown: '' } }], 'slug_taken'],
      [[{ operation: 'update_page', page: 'setup', slug: 'Not A Slug' }], 'invalid_slug'],
      [
        [
          { operation: 'insert_page', title: 'A', ref: 'dup', document: { markdown: '' } },
          { operation: 'insert_page', title: 'B', ref: 'dup', document: { markdown: '' } },
        ],
        'duplicate_ref',
      ],
      [[{ operation: 'insert_page', title: 'A', document: { markdown: '[x](ref:unknown)' } }], 'unknown_ref'],
      [
        [
          { operation: 'insert_files', files: [{ name: 'f.txt', ref: 'f', data: Buffer.from('x') }] },
          { operation: 'insert_page', title: 'A', into: 'f', document: { markdown: '' } },
        ],
        'unknown_ref',
      ],
      [
        [
          { operation: 'insert_page', title: 'A', ref: 'a', document: { markdown: '' } },
          { operation: 'delete_page', page: 'a' },
          { operation: 'update_page', page: 'a', title: 'Again' },
        ],
        'page_not_found',
      ],
      [[{ operation: 'insert_files', files: [{ name: 'big.bin', data: Buffer.alloc(1024 * 1024 + 1) }] }], 'file_too_large'],
      [[{ operation: 'insert_files', files: [{ name: 'a/b.txt', data: Buffer.from('x') }] }], 'invalid_file'],
      [[{ operation: 'rename_space' } as unknown as ContentChangeInput], 'invalid_change'],
    ];
    for (const [changes, code] of cases) {
      const error = await applyError(store, root, changes);
      expect({ code: error.code, index: error.changeIndex }).toEqual({ code, index: changes.length - 1 });
    }
  });

  it('applies a batch to an empty space', async () => {
    const store = new MemoryObjectStore();
    const result = await apply(store, null, [{ operation: 'insert_page', title: 'First', document: { markdown: '# First\n' } }]);
    expect(materialize(await WorkingTree.load(store, result.root)).pages.map((page) => page.path)).toEqual(['first']);
  });

  it('continues from the tree an earlier batch left, giving the roots a fresh load of each revision gives', async () => {
    // The service keeps the tree of a request's last edit for its next one (services/working-trees.ts).
    const { store, root } = await setup();
    const batches: ContentChangeInput[][] = [
      [{ operation: 'update_page', page: 'home', document: { markdown: 'Welcome back.\n' } }],
      [
        { operation: 'insert_page', title: 'Install', ref: 'install', into: 'guides', at: 0, document: { markdown: 'See [setup](guides/setup).\n' } },
        { operation: 'update_page', page: 'deep', into: 'install' },
      ],
      [
        { operation: 'update_page', page: 'setup', title: 'Set up', slug: 'set-up', hidden: true },
        { operation: 'insert_files', files: [{ name: 'logo.png', data: PNG }] },
      ],
      [{ operation: 'delete_page', page: 'guides' }, { operation: 'insert_reusable_content', title: 'Note', document: { markdown: 'A note.\n' } }],
    ];
    const options = () => ({ newPageId: sequentialIds('page'), newFileId: sequentialIds('file'), clock: fixedClock(Date.UTC(2025, 0, 1)) });
    const kept = await WorkingTree.load(store, root);
    let expected = root;
    for (const changes of batches) {
      const fresh = new TreeWriter(store);
      const reference = await applyContentChanges(fresh, expected, changes, options());
      flush(store, fresh, reference.root);
      const reads = store.getCalls + store.getManyCalls;
      const writer = new TreeWriter(store);
      const result = applyChangesToTree(writer, kept, changes, options());
      expect(store.getCalls + store.getManyCalls).toBe(reads);
      expect(result).toEqual(reference);
      expect(kept.committedRoot).toBe(reference.root);
      // What it would write is what the fresh batch wrote: nothing more, nothing less.
      expect(writer.collect(result.root).map((object) => object.hash).sort()).toEqual(fresh.collect(reference.root).map((object) => object.hash).sort());
      expected = reference.root;
    }
  });
});
