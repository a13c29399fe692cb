import { describe, expect, it } from 'vitest';
import { mergeMarkdown, mergeTrees, movedIds, type MergeConflict } from './merge.js';
import { MemoryObjectStore, readMarkdown, TreeWriter, type FileObject } from './objects.js';
import { fixedClock, flush } from '../../test/support/content-core.js';
import { materialize, WorkingTree } from './tree.js';

describe('mergeMarkdown', () => {
  const base = ['# Title', '', 'First paragraph.', '', 'Second paragraph.', '', 'Third paragraph.', ''].join('\n');

  it('merges edits to different lines', () => {
    const ours = base.replace('First paragraph.', 'First paragraph, edited in the change request.');
    const theirs = base.replace('Third paragraph.', 'Third paragraph, edited on main.');
    const result = mergeMarkdown(base, ours, theirs);
    expect(result).toEqual({
      ok: true,
      markdown: base
        .replace('First paragraph.', 'First paragraph, edited in the change request.')
        .replace('Third paragraph.', 'Third paragraph, edited on main.'),
    });
  });

  it('merges an insertion on one side with an edit elsewhere on the other', () => {
    const ours = `${base}\nAppended.\n`;
    const theirs = base.replace('# Title', '# New title');
    const result = mergeMarkdown(base, ours, theirs);
    expect(result.ok && result.markdown).toBe(`${base.replace('# Title', '# New title')}\nAppended.\n`);
  });

  it('reports overlapping edits as a conflict with both versions', () => {
    const ours = base.replace('Second paragraph.', 'Second, ours.');
    const theirs = base.replace('Second paragraph.', 'Second, theirs.');
    const result = mergeMarkdown(base, ours, theirs);
    expect(result).toEqual({ ok: false, conflicts: [{ base: ['Second paragraph.'], ours: ['Second, ours.'], theirs: ['Second, theirs.'] }] });
  });

  it('treats the same edit on both sides as no conflict', () => {
    const both = base.replace('Second paragraph.', 'Same change.');
    expect(mergeMarkdown(base, both, both)).toEqual({ ok: true, markdown: both });
  });

  it('treats edits to adjacent lines as a conflict, as git does', () => {
    const text = 'a\nb\nc\n';
    expect(mergeMarkdown(text, 'a\nB\nc\n', 'a\nb\nC\n').ok).toBe(false);
  });

  it('takes the changed side when the other did not change', () => {
    expect(mergeMarkdown(base, base, 'x')).toEqual({ ok: true, markdown: 'x' });
    expect(mergeMarkdown(base, 'y', base)).toEqual({ ok: true, markdown: 'y' });
  });
});

describe('movedIds', () => {
  it('finds the pages outside the longest kept order', () => {
    expect(movedIds(['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd'])).toEqual(new Set());
    expect(movedIds(['a', 'b', 'c', 'd'], ['d', 'a', 'b', 'c'])).toEqual(new Set(['d']));
    expect(movedIds(['a', 'b', 'c', 'd'], ['b', 'a', 'd', 'c']).size).toBe(2);
  });
});

/*
 * Scenarios: a base tree stored in a memory store, then "ours" (the change request) and "theirs" (main)
 * derived from it by edits, each stored like a revision.
 */
class Scenario {
  readonly store = new MemoryObjectStore();
  readonly clock = fixedClock();
  base: string | null = null;

  async build(edit: (tree: WorkingTree, writer: TreeWriter) => void): Promise<this> {
    this.base = await this.derive(null, edit);
    return this;
  }

  async derive(from: string | null, edit: (tree: WorkingTree, writer: TreeWriter) => void): Promise<string> {
    const writer = new TreeWriter(this.store);
    const tree = await WorkingTree.load(this.store, from, { clock: this.clock });
    edit(tree, writer);
    const root = tree.commit(writer);
    flush(this.store, writer, root);
    return root;
  }

  async merge(ours: string | null, theirs: string | null, base = this.base) {
    const writer = new TreeWriter(this.store);
    const result = await mergeTrees(writer, { base, ours, theirs }, { clock: this.clock });
    const written = result.ok ? flush(this.store, writer, result.root) : [];
    return { result, written };
  }

  async outline(root: string | null): Promise<string[]> {
    const tree = await WorkingTree.load(this.store, root);
    const lines: string[] = [];
    const walk = (pages: ReturnType<typeof materialize>['pages'], depth: number) => {
      for (const page of pages) {
        lines.push(`${'  '.repeat(depth)}${page.id}:${page.path ?? '-'}`);
        walk(page.pages, depth + 1);
      }
    };
    walk(materialize(tree).pages, 0);
    return lines;
  }

  async page(root: string | null, id: string) {
    const tree = await WorkingTree.load(this.store, root);
    const node = tree.requirePage(id);
    return { ...node.fields, markdown: await readMarkdown(this.store, node.content), parent: node.parent?.id ?? null };
  }
}

const BASE_MARKDOWN = 'Line one.\n\nLine two.\n\nLine three.\n';

async function docsScenario(): Promise<Scenario> {
  return new Scenario().build((tree, writer) => {
    tree.insertPage({ id: 'intro', title: 'Intro', content: writer.putMarkdown(BASE_MARKDOWN) }, { into: null });
    tree.insertPage({ id: 'guides', title: 'Guides' }, { into: null });
    tree.insertPage({ id: 'setup', title: 'Setup', content: writer.putMarkdown(BASE_MARKDOWN) }, { into: 'guides' });
    tree.insertPage({ id: 'deploy', title: 'Deploy' }, { into: 'guides' });
    tree.insertPage({ id: 'faq', title: 'FAQ' }, { into: null });
  });
}

function kinds(conflicts: readonly MergeConflict[]): string[] {
  return conflicts.map((conflict) => `${conflict.page}:${conflict.kind}`);
}

function expectConflicts(result: Awaited<ReturnType<Scenario['merge']>>['result']): MergeConflict[] {
  if (result.ok) throw new Error('expected conflicts, got a clean merge');
  return result.conflicts;
}

function expectClean(result: Awaited<ReturnType<Scenario['merge']>>['result']): string | null {
  if (!result.ok) throw new Error(`expected a clean merge, got ${JSON.stringify(result.conflicts)}`);
  return result.root;
}

describe('mergeTrees: clean merges', () => {
  it('combines different fields changed on each side of the same page', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.updatePage('setup', { title: 'Installation' }));
    const theirs = await s.derive(s.base, (tree) => tree.updatePage('setup', { emoji: '🚀', hidden: true }));
    const root = expectClean((await s.merge(ours, theirs)).result);
    expect(await s.page(root, 'setup')).toMatchObject({ title: 'Installation', emoji: '🚀', hidden: true, slug: 'setup' });
  });

  it('merges disjoint line edits of the same page content', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree, w) => tree.updatePage('intro', { content: w.putMarkdown(BASE_MARKDOWN.replace('one', 'ONE')) }));
    const theirs = await s.derive(s.base, (tree, w) => tree.updatePage('intro', { content: w.putMarkdown(BASE_MARKDOWN.replace('three', 'THREE')) }));
    const root = expectClean((await s.merge(ours, theirs)).result);
    expect((await s.page(root, 'intro')).markdown).toBe('Line ONE.\n\nLine two.\n\nLine THREE.\n');
  });

  it('takes the same change made on both sides', async () => {
    const s = await docsScenario();
    const edit = (tree: WorkingTree, w: TreeWriter) => tree.updatePage('intro', { title: 'Welcome', content: w.putMarkdown('Same.\n') });
    const ours = await s.derive(s.base, edit);
    const theirs = await s.derive(s.base, (tree, w) => {
      edit(tree, w);
      tree.updatePage('faq', { title: 'Questions' });
    });
    const root = expectClean((await s.merge(ours, theirs)).result);
    expect(await s.page(root, 'intro')).toMatchObject({ title: 'Welcome', markdown: 'Same.\n' });
    expect((await s.page(root, 'faq')).title).toBe('Questions');
  });

  it('applies a move on one side together with edits of the same page on the other', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.movePage('setup', { into: null, at: 0 }));
    const theirs = await s.derive(s.base, (tree, w) =>
      tree.updatePage('setup', { title: 'Setup (v2)', content: w.putMarkdown('New setup.\n') }),
    );
    const root = expectClean((await s.merge(ours, theirs)).result);
    expect(await s.outline(root)).toEqual(['setup:setup', 'intro:intro', 'guides:guides', '  deploy:guides/deploy', 'faq:faq']);
    expect(await s.page(root, 'setup')).toMatchObject({ title: 'Setup (v2)', markdown: 'New setup.\n', parent: null });
  });

  it('keeps pages added on both sides, theirs in their order and ours after the sibling it follows', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => {
      tree.insertPage({ id: 'ours-new', title: 'Troubleshooting' }, { into: 'guides', at: 1 });
      tree.insertPage({ id: 'ours-top', title: 'Changelog' }, { into: null });
    });
    const theirs = await s.derive(s.base, (tree) => {
      tree.insertPage({ id: 'theirs-new', title: 'Troubleshooting' }, { into: 'guides', at: 0 });
    });
    const root = expectClean((await s.merge(ours, theirs)).result);
    // Both "Troubleshooting" pages are kept; theirs keeps the slug, ours gets a suffix.
    expect(await s.outline(root)).toEqual([
      'intro:intro',
      'guides:guides',
      '  theirs-new:guides/troubleshooting',
      '  setup:guides/setup',
      '  ours-new:guides/troubleshooting-2',
      '  deploy:guides/deploy',
      'faq:faq',
      'ours-top:changelog',
    ]);
  });

  it('keeps a reorder on one side with an insertion on the other', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.movePage('faq', { at: 0 }));
    const theirs = await s.derive(s.base, (tree) => tree.insertPage({ id: 'new', title: 'New' }, { into: null, at: 1 }));
    const root = expectClean((await s.merge(ours, theirs)).result);
    expect((await s.outline(root)).filter((line) => !line.startsWith(' '))).toEqual(['faq:faq', 'intro:intro', 'new:new', 'guides:guides']);
  });

  it('deletes a page deleted on one side and left alone on the other', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.deletePage('guides'));
    const theirs = await s.derive(s.base, (tree) => tree.updatePage('faq', { title: 'Questions' }));
    const root = expectClean((await s.merge(ours, theirs)).result);
    expect(await s.outline(root)).toEqual(['intro:intro', 'faq:faq']);
    // Deleted on both sides is no conflict either.
    const theirsToo = await s.derive(s.base, (tree) => {
      tree.deletePage('setup');
      tree.updatePage('intro', { title: 'Start' });
    });
    const both = expectClean((await s.merge(ours, theirsToo)).result);
    expect(await s.outline(both)).toEqual(['intro:intro', 'faq:faq']);
    expect((await s.page(both, 'intro')).title).toBe('Start');
  });

  it('merges files by id: additions from both sides, deletions from either', async () => {
    const file = (id: string): FileObject => ({ kind: 'file', id, name: `${id}.txt`, contentType: 'text/plain', size: 1, blob: 'b'.repeat(64) });
    const s = await new Scenario().build((tree) => {
      tree.insertFile(file('keep'));
      tree.insertFile(file('drop'));
    });
    const ours = await s.derive(s.base, (tree) => {
      tree.deleteFile('drop');
      tree.insertFile(file('ours'));
    });
    const theirs = await s.derive(s.base, (tree) => tree.insertFile(file('theirs')));
    const root = expectClean((await s.merge(ours, theirs)).result);
    const tree = await WorkingTree.load(s.store, root);
    expect(tree.fileObjects.map((f) => f.id)).toEqual(['keep', 'theirs', 'ours']);
  });

  it('writes nothing when one side is unchanged', async () => {
    const s = await docsScenario();
    const theirs = await s.derive(s.base, (tree) => tree.updatePage('faq', { title: 'Questions' }));
    const { result, written } = await s.merge(s.base, theirs);
    expect(expectClean(result)).toBe(theirs);
    expect(written).toEqual([]);
    const ours = await s.derive(s.base, (tree) => tree.updatePage('faq', { title: 'Q' }));
    expect(expectClean((await s.merge(ours, s.base)).result)).toBe(ours);
  });

  it('serves update then merge: after main is brought into the change request, merging is a fast-forward', async () => {
    const s = await docsScenario();
    const crBase = s.base;
    const cr = await s.derive(crBase, (tree) => tree.updatePage('intro', { title: 'Hello' }));
    const main = await s.derive(crBase, (tree) => tree.updatePage('faq', { title: 'Questions' }));
    // Update: base = the CR's base, ours = CR, theirs = main.
    const updated = expectClean((await s.merge(cr, main, crBase)).result);
    // Merge later: base = the main revision the CR was updated from, and main has not moved since.
    const merged = expectClean((await s.merge(updated, main, main)).result);
    expect(merged).toBe(updated);
    expect((await s.page(merged, 'intro')).title).toBe('Hello');
    expect((await s.page(merged, 'faq')).title).toBe('Questions');
  });
});

describe('mergeTrees: conflicts', () => {
  it('reports overlapping content edits, with the change request path and title', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree, w) => {
      tree.updatePage('setup', { title: 'Setup (CR)', content: w.putMarkdown(BASE_MARKDOWN.replace('two', 'TWO-ours')) });
      tree.movePage('setup', { into: null });
    });
    const theirs = await s.derive(s.base, (tree, w) => tree.updatePage('setup', { content: w.putMarkdown(BASE_MARKDOWN.replace('two', 'TWO-theirs')) }));
    const conflicts = expectConflicts((await s.merge(ours, theirs)).result);
    expect(conflicts).toEqual([{ page: 'setup', path: 'setup', title: 'Setup (CR)', kind: 'content' }]);
  });

  it('reports titles and other properties changed differently on both sides', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.updatePage('intro', { title: 'A', emoji: '1', description: 'same' }));
    const theirs = await s.derive(s.base, (tree) => tree.updatePage('intro', { title: 'B', emoji: '2', description: 'same' }));
    const conflicts = expectConflicts((await s.merge(ours, theirs)).result);
    // One entry per kind, however many properties conflict.
    expect(kinds(conflicts)).toEqual(['intro:properties', 'intro:title']);
    expect(conflicts[0]).toMatchObject({ path: 'intro', title: 'A' });
  });

  it('reports a page moved to different parents on both sides as a structure conflict', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.movePage('deploy', { into: null }));
    const theirs = await s.derive(s.base, (tree) => tree.movePage('deploy', { into: 'intro' }));
    expect(kinds(expectConflicts((await s.merge(ours, theirs)).result))).toEqual(['deploy:structure']);
  });

  it('reports a page reordered to different places on both sides as a structure conflict', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.movePage('faq', { at: 0 }));
    const theirs = await s.derive(s.base, (tree) => tree.movePage('faq', { at: 1 }));
    expect(kinds(expectConflicts((await s.merge(ours, theirs)).result))).toEqual(['faq:structure']);
  });

  it('reports moves that would make a cycle', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.movePage('intro', { into: 'faq' }));
    const theirs = await s.derive(s.base, (tree) => tree.movePage('faq', { into: 'intro' }));
    expect(kinds(expectConflicts((await s.merge(ours, theirs)).result)).sort()).toEqual(['faq:structure', 'intro:structure']);
  });

  it('reports a page deleted in the change request and edited on main, with main path and title', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.deletePage('setup'));
    const theirs = await s.derive(s.base, (tree, w) => tree.updatePage('setup', { title: 'Setup v2', content: w.putMarkdown('x') }));
    const conflicts = expectConflicts((await s.merge(ours, theirs)).result);
    expect(conflicts).toEqual([{ page: 'setup', path: 'guides/setup', title: 'Setup v2', kind: 'deleted' }]);
  });

  it('reports a page deleted on main and edited in the change request', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.updatePage('faq', { title: 'FAQ (edited)' }));
    const theirs = await s.derive(s.base, (tree) => tree.deletePage('faq'));
    expect(expectConflicts((await s.merge(ours, theirs)).result)).toEqual([
      { page: 'faq', path: 'faq', title: 'FAQ (edited)', kind: 'deleted' },
    ]);
  });

  it('reports a page deleted on one side that received a new child on the other', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => tree.insertPage({ id: 'child', title: 'Child' }, { into: 'deploy' }));
    const theirs = await s.derive(s.base, (tree) => tree.deletePage('guides'));
    expect(kinds(expectConflicts((await s.merge(ours, theirs)).result))).toEqual(['deploy:deleted']);
  });

  it('reports add/add of the same page id with different content', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree, w) => tree.insertPage({ id: 'same', title: 'Same', content: w.putMarkdown('ours\n') }, { into: null }));
    const theirs = await s.derive(s.base, (tree, w) => tree.insertPage({ id: 'same', title: 'Same', content: w.putMarkdown('theirs\n') }, { into: null }));
    expect(kinds(expectConflicts((await s.merge(ours, theirs)).result))).toEqual(['same:content']);
  });

  it('lists every conflict of the merge, not only the first', async () => {
    const s = await docsScenario();
    const ours = await s.derive(s.base, (tree) => {
      tree.updatePage('intro', { title: 'I1' });
      tree.deletePage('faq');
    });
    const theirs = await s.derive(s.base, (tree) => {
      tree.updatePage('intro', { title: 'I2' });
      tree.updatePage('faq', { hidden: true });
    });
    expect(kinds(expectConflicts((await s.merge(ours, theirs)).result))).toEqual(['faq:deleted', 'intro:title']);
  });
});

describe('mergeTrees: structural sharing', () => {
  it('writes only the pages that are new combinations, not the 10,000 pages of the space', async () => {
    const s = await new Scenario().build((tree, writer) => {
      for (let section = 0; section < 100; section++) {
        tree.insertPage({ id: `s${section}`, title: `S${section}` }, { into: null });
        for (let page = 0; page < 100; page++) {
          tree.insertPage({ id: `p${section}-${page}`, title: `P${page}`, content: writer.putMarkdown(`${BASE_MARKDOWN}${page}\n`) }, { into: `s${section}` });
        }
      }
    });
    const ours = await s.derive(s.base, (tree, w) => tree.updatePage('p1-1', { content: w.putMarkdown('ours\n') }));
    const theirs = await s.derive(s.base, (tree, w) => {
      tree.updatePage('p2-2', { content: w.putMarkdown('theirs\n') });
      tree.updatePage('p1-5', { content: w.putMarkdown(`${BASE_MARKDOWN}5\nmore\n`) });
    });
    const { result, written } = await s.merge(ours, theirs);
    const root = expectClean(result);
    // Section 1 combines ours' p1-1 and theirs' p1-5 (a new object); the root is new; every page object is
    // reused from one side or the other.
    expect(written.map((object) => object.kind).sort()).toEqual(['page', 'root']);
    expect((await s.page(root, 'p1-1')).markdown).toBe('ours\n');
    expect((await s.page(root, 'p2-2')).markdown).toBe('theirs\n');
    expect((await s.page(root, 'p1-5')).markdown).toBe(`${BASE_MARKDOWN}5\nmore\n`);
  });
});
