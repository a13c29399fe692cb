import { describe, expect, it } from 'vitest';
import { ContentError, CorruptContentError } from './errors.js';
import { CachingObjectReader, MemoryObjectStore, TreeWriter, readMarkdown, type FileObject, type PageObject } from './objects.js';
import { bytesOf, fixedClock, flush } from '../../test/support/content-core.js';
import {
  deleteFiles,
  deletePage,
  insertFiles,
  insertPage,
  materialize,
  materializeRoot,
  movePage,
  slugify,
  uniqueSlug,
  updatePage,
  WorkingTree,
  type MaterializedPage,
} from './tree.js';

function expectContentError(fn: () => unknown, code: ContentError['code']): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ContentError);
  expect((caught as ContentError).code).toBe(code);
}

/** id -> path, and the page ids in tree order, for compact assertions. */
function outline(pages: readonly MaterializedPage[], depth = 0): string[] {
  return pages.flatMap((page) => [`${'  '.repeat(depth)}${page.id}:${page.path ?? '-'}`, ...outline(page.pages, depth + 1)]);
}

function sampleTree(): WorkingTree {
  const tree = WorkingTree.empty({ clock: fixedClock() });
  tree.insertPage({ id: 'intro', title: 'Introduction' }, { into: null });
  tree.insertPage({ id: 'guides', title: 'Guides', type: 'group' }, { into: null });
  tree.insertPage({ id: 'setup', title: 'Set up' }, { into: 'guides' });
  tree.insertPage({ id: 'deploy', title: 'Deploy!' }, { into: 'guides' });
  tree.insertPage({ id: 'docker', title: 'Docker' }, { into: 'deploy' });
  tree.insertPage({ id: 'ext', title: 'Website', type: 'link', href: 'https://example.com' }, { into: null });
  return tree;
}

describe('slugs', () => {
  it('are lower-case ASCII words joined by single hyphens', () => {
    expect(slugify('Getting Started: the Basics!')).toBe('getting-started-the-basics');
    expect(slugify('  Ça déménage — Straße Æther ')).toBe('ca-demenage-strasse-aether');
    expect(slugify('API v2.1 / REST')).toBe('api-v2-1-rest');
  });

  it('fall back to "page" when the title has no ASCII letter or digit', () => {
    expect(slugify('🚀🚀')).toBe('page');
    expect(slugify('日本語')).toBe('page');
  });

  it('are at most 100 characters and never end in a hyphen after truncation', () => {
    const slug = slugify(`${'a'.repeat(99)} bcd`);
    expect(slug).toBe('a'.repeat(99));
    expect(slugify('word '.repeat(40)).length).toBeLessThanOrEqual(100);
    expect(slugify('word '.repeat(40))).not.toMatch(/-$/);
  });

  it('take numeric suffixes to stay unique, still within 100 characters', () => {
    expect(uniqueSlug('intro', new Set(['intro']))).toBe('intro-2');
    expect(uniqueSlug('intro', new Set(['intro', 'intro-2']))).toBe('intro-3');
    const long = 'x'.repeat(100);
    const next = uniqueSlug(long, new Set([long]));
    expect(next).toBe(`${'x'.repeat(98)}-2`);
  });
});

describe('WorkingTree editing', () => {
  it('builds a tree whose materialized form has paths from ancestors slugs', () => {
    const { pages } = materialize(sampleTree());
    expect(outline(pages)).toEqual([
      'intro:introduction',
      'guides:guides',
      '  setup:guides/set-up',
      '  deploy:guides/deploy',
      '    docker:guides/deploy/docker',
      'ext:-',
    ]);
    const intro = pages[0]!;
    expect(intro).toMatchObject({ type: 'document', title: 'Introduction', hidden: false, contentHash: null });
    expect(intro.createdAt).toBe('2024-01-01T00:00:01.000Z');
    expect(intro.updatedAt).toBe(intro.createdAt);
    // Link entries have neither slug nor path (nor timestamps); groups have a slug but no timestamps.
    const link = pages[2]!;
    expect(link).not.toHaveProperty('slug');
    expect(link).not.toHaveProperty('path');
    expect(link.href).toBe('https://example.com');
    expect(pages[1]).not.toHaveProperty('createdAt');
  });

  it('makes slugs unique among siblings only', () => {
    const tree = sampleTree();
    tree.insertPage({ id: 'intro2', title: 'Introduction' }, { into: null });
    tree.insertPage({ id: 'nested', title: 'Introduction' }, { into: 'guides' });
    expect(tree.getPage('intro2')!.fields.slug).toBe('introduction-2');
    expect(tree.getPage('nested')!.fields.slug).toBe('introduction');
  });

  it('refuses an explicit slug that a sibling has, or one that is malformed', () => {
    const tree = sampleTree();
    expectContentError(() => tree.insertPage({ id: 'x', title: 'X', slug: 'introduction' }, { into: null }), 'slug_taken');
    expectContentError(() => tree.insertPage({ id: 'x', title: 'X', slug: 'Bad Slug' }, { into: null }), 'invalid_slug');
    expectContentError(() => tree.updatePage('setup', { slug: 'deploy' }), 'slug_taken');
    // Keeping one's own slug is not a collision.
    expect(tree.updatePage('setup', { slug: 'set-up' })).toBe(false);
  });

  it('inserts at a position, past the end meaning last, and refuses negative or fractional positions', () => {
    const tree = sampleTree();
    tree.insertPage({ id: 'first', title: 'First' }, { into: 'guides', at: 0 });
    tree.insertPage({ id: 'middle', title: 'Middle' }, { into: 'guides', at: 2 });
    tree.insertPage({ id: 'last', title: 'Last' }, { into: 'guides', at: 99 });
    expect(tree.childrenOf('guides').map((node) => node.id)).toEqual(['first', 'setup', 'middle', 'deploy', 'last']);
    expectContentError(() => tree.insertPage({ id: 'bad', title: 'Bad' }, { into: null, at: -1 }), 'invalid_position');
    expectContentError(() => tree.insertPage({ id: 'bad', title: 'Bad' }, { into: null, at: 1.5 }), 'invalid_position');
  });

  it('refuses unknown parents, link parents, duplicate ids and bad titles', () => {
    const tree = sampleTree();
    expectContentError(() => tree.insertPage({ id: 'x', title: 'X' }, { into: 'nope' }), 'page_not_found');
    expectContentError(() => tree.insertPage({ id: 'x', title: 'X' }, { into: 'ext' }), 'invalid_parent');
    expectContentError(() => tree.insertPage({ id: 'intro', title: 'X' }, { into: null }), 'duplicate_id');
    expectContentError(() => tree.insertPage({ id: 'x', title: '' }, { into: null }), 'invalid_title');
    expectContentError(() => tree.insertPage({ id: 'x', title: 'y'.repeat(101) }, { into: null }), 'invalid_title');
  });

  it('updates fields, removes optional ones with null, keeps the slug when the title changes', () => {
    const tree = sampleTree();
    expect(tree.updatePage('setup', { title: 'Installation', emoji: '🛠', description: 'How to' })).toBe(true);
    let setup = tree.getPage('setup')!;
    expect(setup.fields).toMatchObject({ title: 'Installation', slug: 'set-up', emoji: '🛠', description: 'How to' });
    expect(setup.fields.updatedAt).not.toBe(setup.fields.createdAt);
    expect(tree.updatePage('setup', { emoji: null })).toBe(true);
    setup = tree.getPage('setup')!;
    expect(setup.fields).not.toHaveProperty('emoji');
  });

  it('treats an update to the current values as no change: same root, nothing written', () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const tree = sampleTree();
    const root = tree.commit(writer);
    flush(store, writer, root);
    expect(tree.updatePage('setup', { title: 'Set up', hidden: false, emoji: null })).toBe(false);
    const again = new TreeWriter(store);
    expect(tree.commit(again)).toBe(root);
    expect(again.collect(root)).toHaveLength(0);
  });

  it('refuses content on pages that cannot hold it', () => {
    const tree = sampleTree();
    expectContentError(() => tree.updatePage('guides', { content: 'abc' }), 'not_a_document');
    expectContentError(() => tree.updatePage('ext', { slug: 'ext' }), 'invalid_slug');
  });

  it('moves pages between parents and within one, with their subtrees', () => {
    const tree = sampleTree();
    expect(tree.movePage('deploy', { into: null, at: 0 })).toBe(true);
    expect(outline(materialize(tree).pages)).toEqual([
      'deploy:deploy',
      '  docker:deploy/docker',
      'intro:introduction',
      'guides:guides',
      '  setup:guides/set-up',
      'ext:-',
    ]);
    // Reorder among the current siblings without naming the parent.
    expect(tree.movePage('ext', { at: 1 })).toBe(true);
    expect(tree.pages.map((node) => node.id)).toEqual(['deploy', 'ext', 'intro', 'guides']);
    // Same place: nothing to do.
    expect(tree.movePage('ext', { at: 1 })).toBe(false);
    expect(tree.movePage('ext', {})).toBe(false);
  });

  it('refuses to move a page into itself or its subtree', () => {
    const tree = sampleTree();
    expectContentError(() => tree.movePage('guides', { into: 'guides' }), 'invalid_move');
    expectContentError(() => tree.movePage('guides', { into: 'docker' }), 'invalid_move');
    expectContentError(() => tree.movePage('setup', { into: 'ext' }), 'invalid_parent');
    expectContentError(() => tree.movePage('setup', { into: null, at: -3 }), 'invalid_position');
  });

  it('suffixes the slug of a moved page that collides in its new parent', () => {
    const tree = sampleTree();
    tree.insertPage({ id: 'setup-top', title: 'Set up' }, { into: null });
    tree.movePage('setup', { into: null });
    expect(tree.getPage('setup')!.fields.slug).toBe('set-up-2');
    expect(tree.pathOf(tree.getPage('setup')!)).toBe('set-up-2');
  });

  it('deletes a page with its subtree', () => {
    const tree = sampleTree();
    const removed = tree.deletePage('guides').map((node) => node.id);
    expect(removed).toEqual(['guides', 'setup', 'deploy', 'docker']);
    expect(tree.pageCount).toBe(2);
    expect(tree.getPage('docker')).toBeUndefined();
    expectContentError(() => tree.deletePage('guides'), 'page_not_found');
  });

  it('finds pages by path', () => {
    const tree = sampleTree();
    expect(tree.findByPath('guides/deploy/docker')?.id).toBe('docker');
    expect(tree.findByPath('/guides/set-up/')?.id).toBe('setup');
    expect(tree.findByPath('guides/nope')).toBeUndefined();
  });
});

describe('storage round trip', () => {
  it('stores and loads the same tree, content and files included', async () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const tree = sampleTree();
    tree.updatePage('intro', { content: writer.putMarkdown('# Hello\n') });
    const file: FileObject = { kind: 'file', id: 'f1', name: 'a.png', contentType: 'image/png', size: 3, blob: writer.putBlob(Buffer.from('abc')) };
    tree.insertFile(file);
    const root = tree.commit(writer);
    flush(store, writer, root);

    const loaded = await WorkingTree.load(store, root);
    expect(materialize(loaded)).toEqual(materialize(tree));
    expect(await readMarkdown(store, loaded.getPage('intro')!.content)).toBe('# Hello\n');
    expect(materialize(loaded).files).toEqual([{ id: 'f1', name: 'a.png', contentType: 'image/png', size: 3, blob: file.blob }]);
    expect(loaded.committedRoot).toBe(root);
  });

  it('answers the same root for the same content, whatever order fields were set in', () => {
    const a = WorkingTree.empty({ clock: () => '2024-01-01T00:00:00.000Z' });
    const b = WorkingTree.empty({ clock: () => '2024-01-01T00:00:00.000Z' });
    a.insertPage({ id: 'p', title: 'P', emoji: '1', description: 'd' }, { into: null });
    b.insertPage({ id: 'p', title: 'P', description: 'd', emoji: '1' }, { into: null });
    const store = new MemoryObjectStore();
    expect(a.commit(new TreeWriter(store))).toBe(b.commit(new TreeWriter(store)));
  });

  it('reports a missing object as corrupt content, not as a caller error', async () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const root = sampleTree().commit(writer);
    // Store only the root: its pages are missing.
    store.write(writer.collect(root).filter((object) => object.kind === 'root'));
    await expect(WorkingTree.load(store, root)).rejects.toBeInstanceOf(CorruptContentError);
    await expect(WorkingTree.load(store, 'f'.repeat(64))).rejects.toBeInstanceOf(CorruptContentError);
  });

  it('collects only what the final root reaches: intermediate states of a batch are not written', () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const tree = WorkingTree.empty({ clock: fixedClock() });
    tree.insertPage({ id: 'p', title: 'P', content: writer.putMarkdown('draft') }, { into: null });
    tree.commit(writer);
    tree.updatePage('p', { content: writer.putMarkdown('final') });
    const root = tree.commit(writer);
    const objects = writer.collect(root);
    expect(objects.map((object) => object.kind).sort()).toEqual(['blob', 'page', 'root']);
    expect(objects.find((object) => object.kind === 'blob')!.body.toString()).toBe('final');
    expect(writer.size).toBeGreaterThan(objects.length);
  });
});

describe('one-shot operations', () => {
  it('produce new roots and leave the old ones readable', async () => {
    const store = new MemoryObjectStore();
    const clock = fixedClock();
    let writer = new TreeWriter(store);
    const first = await insertPage(writer, null, { id: 'a', title: 'A', markdown: 'one' }, { into: null }, { clock });
    flush(store, writer, first.root);

    writer = new TreeWriter(store);
    const second = await insertPage(writer, first.root, { id: 'b', title: 'B' }, { into: 'a' }, { clock });
    const third = await updatePage(writer, second.root, 'a', { title: 'A2', markdown: 'two' }, { clock });
    const fourth = await movePage(writer, third, 'b', { into: null, at: 0 }, { clock });
    const fileRoot = await insertFiles(writer, fourth, [
      { kind: 'file', id: 'f', name: 'x.txt', contentType: 'text/plain', size: 1, blob: writer.putBlob(Buffer.from('x')) },
    ]);
    const { root: fifth, deleted } = await deletePage(writer, fileRoot, 'a', { clock });
    const sixth = await deleteFiles(writer, fifth, ['f', 'absent']);
    flush(store, writer, sixth);
    flush(store, writer, fourth);

    expect(deleted).toEqual(['a']);
    expect(outline((await materializeRoot(store, fourth)).pages)).toEqual(['b:b', 'a:a']);
    expect(outline((await materializeRoot(store, sixth)).pages)).toEqual(['b:b']);
    expect((await materializeRoot(store, sixth)).files).toEqual([]);
    // The first revision is untouched.
    const old = await materializeRoot(store, first.root);
    expect(old.pages[0]!.title).toBe('A');
    expect(await readMarkdown(store, old.pages[0]!.contentHash)).toBe('one');
    const updated = (await materializeRoot(store, fourth)).pages[1]!;
    expect(await readMarkdown(store, updated.contentHash)).toBe('two');
  });

  it('stores empty markdown as no content', async () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const { root } = await insertPage(writer, null, { id: 'a', title: 'A', markdown: 'x' }, { into: null });
    const emptied = await updatePage(writer, root, 'a', { markdown: '' });
    expect((await materializeRoot(writer, emptied)).pages[0]!.contentHash).toBeNull();
  });
});

describe('structural sharing', () => {
  /** `sections` groups of `perSection` pages each, with content; answers the tree, its root and the store. */
  function generate(pagesPerSection: readonly number[]) {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const tree = WorkingTree.empty({ clock: () => '2024-01-01T00:00:00.000Z' });
    pagesPerSection.forEach((count, s) => {
      tree.insertPage({ id: `s${s}`, title: `Section ${s}` }, { into: null });
      for (let p = 0; p < count; p++) {
        tree.insertPage({ id: `s${s}p${p}`, title: `Page ${p}`, content: writer.putMarkdown(`# Page ${s}.${p}\n\nBody.\n`) }, { into: `s${s}` });
      }
    });
    const root = tree.commit(writer);
    const written = flush(store, writer, root);
    return { store, root, written };
  }

  const BIG = Array.from({ length: 100 }, () => 100);

  it('editing one page of a 10,000-page space writes the page, its ancestors and the root only', async () => {
    const { store, root, written } = generate(BIG);
    expect(store.size).toBe(written.length);
    // 100 sections + 10,000 pages + 10,000 blobs + 1 root.
    expect(written.length).toBe(20_101);

    const writer = new TreeWriter(store);
    const next = await updatePage(writer, root, 's42p17', { markdown: '# Edited\n' });
    const objects = writer.collect(next);
    expect(objects.map((object) => object.kind).sort()).toEqual(['blob', 'page', 'page', 'root']);
    // The section (100 child hashes) and the root (100 page hashes) dominate: a few kilobytes in all,
    // against megabytes for the whole tree.
    expect(bytesOf(objects)).toBeLessThan(20_000);
    expect(bytesOf(objects) * 100).toBeLessThan(bytesOf(written));
    expect(store.write(objects)).toBe(4);
  });

  it('writes the same number and size of objects whatever the number of other pages', async () => {
    const big = generate(BIG);
    const small = generate(BIG.map((count, s) => (s === 42 ? count : 1)));
    const measure = async ({ store, root }: { store: MemoryObjectStore; root: string }) => {
      const writer = new TreeWriter(store);
      const next = await updatePage(writer, root, 's42p17', { title: 'Renamed', markdown: 'new' });
      return writer.collect(next).map((object) => `${object.kind}:${object.body.byteLength}`).sort();
    };
    expect(await measure(big)).toEqual(await measure(small));
  });

  it('a move rewrites the parents and the root, not the moved page', async () => {
    const { store, root } = generate(BIG);
    const writer = new TreeWriter(store);
    const next = await movePage(writer, root, 's1p1', { into: null, at: 0 });
    const objects = writer.collect(next);
    // Only s1 (its child list lost a hash) and the root (it gained one); the moved page object is reused.
    expect(objects.map((object) => object.kind).sort()).toEqual(['page', 'root']);
    expect((JSON.parse(objects[0]!.body.toString()) as PageObject).id).toBe('s1');
  });

  it('a move into a parent where the slug is taken also rewrites the moved page (its slug changes)', async () => {
    const { store, root } = generate(BIG);
    const writer = new TreeWriter(store);
    const next = await movePage(writer, root, 's1p1', { into: 's2', at: 0 });
    const objects = writer.collect(next);
    const pages = objects.filter((o) => o.kind === 'page').map((o) => JSON.parse(o.body.toString()) as PageObject);
    expect(pages.map((page) => page.id).sort()).toEqual(['s1', 's1p1', 's2']);
    expect(pages.find((page) => page.id === 's1p1')!.slug).toBe('page-1-2');
  });

  it('loads a 10,000-page tree with one query per level, and from the cache the second time', async () => {
    const { store, root } = generate(BIG);
    store.getManyCalls = 0;
    store.objectsRead = 0;
    const cache = new CachingObjectReader(store, 64 * 1024 * 1024);
    const tree = await WorkingTree.load(cache, root);
    expect(tree.pageCount).toBe(10_100);
    // Root, then top level (+ files), then the pages of the sections.
    expect(store.getManyCalls).toBe(2);
    expect(store.objectsRead).toBe(10_101);

    const again = await WorkingTree.load(cache, root);
    expect(again.pageCount).toBe(10_100);
    expect(store.objectsRead).toBe(10_101);
    expect(cache.hits).toBeGreaterThanOrEqual(10_101);
  });
});

describe('CachingObjectReader', () => {
  it('evicts the least recently used objects beyond its byte budget', async () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const hashes = Array.from({ length: 10 }, (_, i) =>
      writer.putObject({ kind: 'file', id: `f${i}`, name: `f${i}`, contentType: 'text/plain', size: 1, blob: 'b' }),
    );
    store.write(hashes.flatMap((hash) => writer.collect(hash)));
    const one = (await store.get(hashes[0]!))!;
    const size = JSON.stringify(one).length * 2 + 64;
    const cache = new CachingObjectReader(store, size * 3);

    await cache.getMany(hashes.slice(0, 3));
    expect(cache.cachedObjects).toBe(3);
    await cache.get(hashes[0]!); // now most recent: hashes[1] is the oldest
    await cache.get(hashes[3]!);
    expect(cache.cachedObjects).toBe(3);
    expect(cache.cachedBytes).toBeLessThanOrEqual(size * 3);
    const reads = store.objectsRead;
    await cache.get(hashes[0]!);
    expect(store.objectsRead).toBe(reads);
    await cache.get(hashes[1]!);
    expect(store.objectsRead).toBe(reads + 1);
  });

  it('hands out frozen objects, so one caller cannot change what another reads', async () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const root = sampleTree().commit(writer);
    flush(store, writer, root);
    const cache = new CachingObjectReader(store);
    const object = (await cache.get(root))!;
    expect(Object.isFrozen(object)).toBe(true);
    expect(() => (object as { pages: string[] }).pages.push('x')).toThrow();
  });
});

describe('WorkingTree.advanceTo', () => {
  /** A small seeded generator, so that a failure names the sequence that made it. */
  function random(seed: number): () => number {
    let state = seed;
    return () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  }

  /** Everything a loaded tree holds: the API shape, the stored hash of each page and its parent. */
  function state(tree: WorkingTree) {
    const nodes = [...tree.walk()].map((node) => [node.id, node.hash, node.parent?.id ?? null, node.children.map((child) => child.id).join(',')]);
    const found = nodes.map(([id]) => tree.getPage(id as string)?.id);
    return { materialized: materialize(tree), nodes, found, pageCount: tree.pageCount, root: tree.committedRoot, files: tree.fileEntries, reusables: tree.reusableEntries };
  }

  it('reaches the tree a load of the other root builds, reading only where they differ, for random edit sequences', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
      const store = new MemoryObjectStore();
      const clock = fixedClock();
      let writer = new TreeWriter(store);
      const start = WorkingTree.empty({ clock });
      for (let i = 0; i < 60; i++) {
        const parents = [null, ...[...start.walk()].filter((node) => node.fields.type !== 'link').map((node) => node.id)];
        start.insertPage({ id: `p${i}`, title: `Page ${i}`, content: writer.putMarkdown(`page ${i}\n`) }, { into: pick(parents) });
      }
      const roots = [start.commit(writer)];
      flush(store, writer, roots[0]!);
      let counter = 60;
      for (let step = 0; step < 12; step++) {
        const tree = await WorkingTree.load(store, roots.at(-1)!, { clock });
        writer = new TreeWriter(store);
        for (let change = 0; change < 1 + Math.floor(next() * 3); change++) {
          const pages = [...tree.walk()];
          const page = pick(pages);
          const parents = [null, ...pages.filter((node) => !tree.isAncestorOrSelf(page.id, node)).map((node) => node.id)];
          switch (pick(['content', 'title', 'move', 'move', 'delete', 'insert', 'file', 'reusable'] as const)) {
            case 'content': tree.updatePage(page.id, { content: writer.putMarkdown(`edited ${counter++}\n`) }); break;
            case 'title': tree.updatePage(page.id, { title: `Title ${counter++}` }); break;
            case 'move': tree.movePage(page.id, { into: pick(parents), at: Math.floor(next() * 4) }); break;
            case 'delete': if (pages.length > 5) tree.deletePage(page.id); break;
            case 'insert': tree.insertPage({ id: `p${counter++}`, title: 'New' }, { into: pick(parents), at: 0 }); break;
            case 'file': tree.insertFile({ kind: 'file', id: `f${counter++}`, name: 'a.txt', contentType: 'text/plain', size: 1, blob: writer.putBlob(Buffer.from('a')) }); break;
            case 'reusable': tree.insertReusable({ id: `r${counter++}`, title: 'Block', content: writer.putMarkdown(`block ${counter}\n`) }); break;
          }
        }
        const root = tree.commit(writer);
        flush(store, writer, root);
        roots.push(root);
      }
      // From every root to every other, forwards and backwards.
      for (const [from, to] of roots.flatMap((a, i) => roots.map((b, j) => [a, b, i, j] as const)).filter(([, , i, j]) => i !== j)) {
        const tree = await WorkingTree.load(store, from);
        const read = await tree.advanceTo(store, to);
        const loaded = await WorkingTree.load(store, to);
        expect(state(tree), `seed ${seed}`).toEqual(state(loaded));
        expect(read).toBeLessThanOrEqual(loaded.pageCount + 20);
        // And it edits as a loaded tree does.
        const edited = [...loaded.walk()][0]!.id;
        const writers = [new TreeWriter(store), new TreeWriter(store)] as const;
        tree.useClock(fixedClock(Date.UTC(2025, 0, 1)));
        loaded.useClock(fixedClock(Date.UTC(2025, 0, 1)));
        tree.updatePage(edited, { title: 'Once more' });
        loaded.updatePage(edited, { title: 'Once more' });
        expect(tree.commit(writers[0])).toBe(loaded.commit(writers[1]));
      }
    }
  });

  it('reads the changed page, its ancestors\' lists and the root for a one-page edit of a large tree', async () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const tree = WorkingTree.empty({ clock: fixedClock() });
    for (let s = 0; s < 50; s++) {
      tree.insertPage({ id: `s${s}`, title: `Section ${s}` }, { into: null });
      for (let p = 0; p < 40; p++) tree.insertPage({ id: `s${s}p${p}`, title: `Page ${p}` }, { into: `s${s}` });
    }
    const before = tree.commit(writer);
    flush(store, writer, before);
    const edited = await WorkingTree.load(store, before);
    const next = new TreeWriter(store);
    edited.updatePage('s20p7', { title: 'Edited' });
    const after = edited.commit(next);
    flush(store, next, after);

    const kept = await WorkingTree.load(store, before);
    const reads = store.objectsRead;
    // The root, section 20 and its page 7: three objects of 2,050 pages.
    expect(await kept.advanceTo(store, after)).toBe(3);
    expect(store.objectsRead - reads).toBe(3);
    expect(kept.getPage('s20p7')?.fields.title).toBe('Edited');
    expect(state(kept)).toEqual(state(await WorkingTree.load(store, after)));
  });

  it('refuses a tree changed since its commit, and a root that lists a page twice', async () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const tree = sampleTree();
    const root = tree.commit(writer);
    flush(store, writer, root);
    const changed = await WorkingTree.load(store, root);
    changed.updatePage('intro', { title: 'Changed' });
    await expect(changed.advanceTo(store, root)).rejects.toThrow(/committed/);
    const intro = (await store.get((await store.get(root) as { pages: string[] }).pages[0]!))!;
    const twice = writer.putObject({ kind: 'root', pages: [writer.putObject(intro), writer.putObject({ ...intro as PageObject, title: 'Other' })], files: [] });
    flush(store, writer, twice);
    await expect((await WorkingTree.load(store, root)).advanceTo(store, twice)).rejects.toBeInstanceOf(CorruptContentError);
  });
});
