import { expect, it } from 'vitest';
import type { BenchOwner } from '../../bench/bench-owner.js';
import { commitMainRevision } from '../../bench/bench-revisions.js';
import { seededRandom } from '../../bench/seeded-random.js';
import { describeEachDialect } from '../../test/dialects.js';
import { useBenchOwnedDatabase } from '../../test/support/bench-owned-database.js';
import { ContentError, TreeWriter, WorkingTree, materialize, readMarkdown, type PageNode } from '../content/index.js';
import type { Db } from '../db/index.js';
import { ROWS_PER_BLOCK, dropSpace, reindexSpace, searchPagesOf, searchSpace } from '../search/index.js';
import { SqlObjectReader } from '../stores/content-object-store.js';
import { createSpace } from './space-service.js';
import { reindexSpaceSearchReport } from './search-reindex.js';

/*
 * The reindex after an edit compares the indexed revision's tree with the new one (search-tree-changes.ts)
 * instead of walking every page. These tests check that it writes exactly what the full walk writes, after
 * random sequences of every kind of tree edit, and that it touches only what an edit changed.
 */

const WORDS = ['alpha', 'bravo', 'cobalt', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper', 'kestrel', 'lumen'];

describeEachDialect('search reindex by tree comparison', (dialect) => {
  let db: Db;
  let owner: BenchOwner;

  useBenchOwnedDatabase(dialect, 'Reindex tests', (suite) => ({ db, owner } = suite));

  const newSpace = async (title: string): Promise<string> =>
    (await createSpace(owner.context, owner.caller, owner.organizationId, { title })).space.id;

  /** The space's rows with ids relative to its block and revision ids as the step that made them. */
  async function rowsOf(spaceId: string, stepOf: ReadonlyMap<string, number>): Promise<unknown[]> {
    const state = await db.selectFrom('search_spaces').selectAll().where('space_id', '=', spaceId).executeTakeFirstOrThrow();
    const rows = await db.selectFrom('search_sections')
      .select(['id', 'revision_id', 'page_id', 'page_hash', 'section_position', 'depth', 'page_title', 'page_path', 'ancestors', 'section_id', 'section_title', 'body'])
      .where('space_id', '=', spaceId)
      .orderBy('id')
      .execute();
    return rows.map(({ id, revision_id, ...row }) => ({ ...row, at: Number(id) - state.row_block * ROWS_PER_BLOCK, step: stepOf.get(revision_id) }));
  }

  /** The rows without what depends on the history of writes (ids, revision), in a fixed order. */
  async function contentOf(spaceId: string): Promise<unknown[]> {
    const rows = (await rowsOf(spaceId, new Map())) as Array<Record<string, unknown>>;
    return rows
      .map(({ at: _at, step: _step, ...row }) => row)
      .sort((a, b) => `${String(a.page_id)}\u0000${String(a.section_position).padStart(6, '0')}`.localeCompare(`${String(b.page_id)}\u0000${String(b.section_position).padStart(6, '0')}`));
  }

  /** The space's ranking index (word counts, postings by page and section), without row ids. */
  async function rankingOf(spaceId: string): Promise<unknown> {
    const terms = await db.selectFrom('search_terms').select(['term', 'sections', 'pages']).where('space_id', '=', spaceId).orderBy('term').execute();
    const postings = await db.selectFrom('search_postings as p').innerJoin('search_sections as s', 's.id', 'p.row_id')
      .select(['p.term', 'p.minus_impact', 'p.depth', 'p.page_id', 's.section_position']).where('p.space_id', '=', spaceId)
      .orderBy('p.page_id').orderBy('s.section_position').orderBy('p.term').execute();
    return { terms, postings: postings.map((row) => ({ ...row, minus_impact: Number(row.minus_impact) })) };
  }

  async function counts(spaceId: string) {
    return db.selectFrom('search_spaces').select(['page_count', 'section_count', 'row_format']).where('space_id', '=', spaceId).executeTakeFirstOrThrow();
  }

  it('writes after random edit sequences exactly the rows of the full walk, and those of a rebuild from scratch', { timeout: 240_000 }, async () => {
    const random = seededRandom(dialect === 'sqlite' ? 2701 : 2702);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(' ');
    const markdown = (): string => {
      const parts = [words(3 + Math.floor(random() * 6))];
      for (let h = Math.floor(random() * 3); h > 0; h--) parts.push(`## ${words(2)}`, words(4 + Math.floor(random() * 5)));
      return parts.join('\n\n');
    };

    const writer = new TreeWriter(new SqlObjectReader(db));
    const tree = WorkingTree.empty();
    let nextId = 0;
    const put = (): string | null => (random() < 0.1 ? null : writer.putMarkdown(markdown()));
    const insert = (): void => {
      const parents = [...tree.walk()].filter((node) => node.fields.type !== 'link');
      const into = parents.length === 0 || random() < 0.25 ? null : pick(parents).id;
      const roll = random();
      const id = `pg${nextId++}`;
      if (roll < 0.15) tree.insertPage({ id, title: words(2), type: 'group' }, { into });
      else if (roll < 0.22) tree.insertPage({ id, title: words(1), type: 'link', href: 'https://example.com/' }, { into });
      else tree.insertPage({ id, title: words(2), content: put() }, { into, at: Math.floor(random() * 4) });
    };
    for (let i = 0; i < 30; i++) insert();

    const edits: Array<(node: PageNode) => void> = [
      (node) => { if (node.fields.type !== 'link' && node.fields.type !== 'group') tree.updatePage(node.id, { content: put() }); },
      (node) => { tree.updatePage(node.id, { title: words(2) }); },
      (node) => { if (node.fields.type !== 'link') tree.updatePage(node.id, { slug: words(1) }); },
      (node) => {
        const targets = [...tree.walk()].filter((target) => target.fields.type !== 'link' && !tree.isAncestorOrSelf(node.id, target));
        tree.movePage(node.id, { into: random() < 0.3 || targets.length === 0 ? null : pick(targets).id, at: Math.floor(random() * 5) });
      },
      (node) => { tree.movePage(node.id, { at: Math.floor(random() * 5) }); },
      (node) => { if (tree.pageCount > 10) tree.deletePage(node.id); },
      () => insert(),
      (node) => { tree.updatePage(node.id, { hidden: !node.fields.hidden }); },
    ];

    const changes = await newSpace('Compared');
    const walked = await newSpace('Walked');
    const rebuilt = await newSpace('Rebuilt');
    const changesSteps = new Map<string, number>();
    const walkedSteps = new Map<string, number>();
    const modes: string[] = [];
    for (let step = 0; step < 40; step++) {
      if (step > 0) {
        for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
          try {
            pick(edits)(pick([...tree.walk()]));
          } catch (error) {
            // A random slug may be taken, a random move may be into the page itself: not an edit then.
            if (!(error instanceof ContentError)) throw error;
          }
        }
      }
      const root = tree.commit(writer);
      changesSteps.set(await commitMainRevision(db, changes, owner.caller.user.id, writer, root), step);
      walkedSteps.set(await commitMainRevision(db, walked, owner.caller.user.id, writer, root), step);
      // One step in four is not indexed: the next reindex then spans several revisions.
      if (step > 0 && step < 39 && random() < 0.25) continue;

      const report = await reindexSpaceSearchReport(owner.context, changes);
      modes.push(report.mode);
      const full = await reindexSpaceSearchReport(owner.context, walked, { full: true });
      expect(full.mode).toBe('full');
      expect(report.outcome).toBe(full.outcome);
      if (report.result && full.result) {
        expect(report.result.writtenPages).toBe(full.result.writtenPages);
        expect(report.result.removedPages).toBe(full.result.removedPages);
        expect(report.result.writtenSections).toBe(full.result.writtenSections);
      }
      expect(await rowsOf(changes, changesSteps)).toEqual(await rowsOf(walked, walkedSteps));
      expect(await counts(changes)).toEqual(await counts(walked));

      await dropSpace(db, rebuilt);
      const read = (hash: string) => readMarkdown(writer, hash);
      const scratch = await reindexSpace(db, rebuilt, `step-${step}`, searchPagesOf(materialize(tree), read));
      expect(await contentOf(changes)).toEqual(await contentOf(rebuilt));
      expect(await rankingOf(changes)).toEqual(await rankingOf(rebuilt));
      expect(await counts(changes)).toMatchObject({ page_count: scratch.pages, section_count: scratch.sections });
      const word = pick(WORDS);
      expect((await searchSpace(db, changes, word, { limit: 100 })).items).toEqual((await searchSpace(db, rebuilt, word, { limit: 100 })).items);
    }
    // The first reindex has nothing to compare with; every later one compared trees.
    expect(modes[0]).toBe('full');
    expect(modes.slice(1).every((mode) => mode === 'changes')).toBe(true);
  });

  it('reads and compares only the edited page and its ancestors, and walks everything when the rows are of an older format', { timeout: 120_000 }, async () => {
    const writer = new TreeWriter(new SqlObjectReader(db));
    const tree = WorkingTree.empty();
    for (let s = 0; s < 20; s++) {
      tree.insertPage({ id: `s${s}`, title: `Section ${s}`, content: writer.putMarkdown(`Section ${s} intro.`) }, { into: null });
      for (let p = 0; p < 20; p++) tree.insertPage({ id: `s${s}p${p}`, title: `Page ${s}.${p}`, content: writer.putMarkdown(`Text of ${s}.${p}.`) }, { into: `s${s}` });
    }
    const spaceId = await newSpace('Large');
    const user = owner.caller.user.id;
    await commitMainRevision(db, spaceId, user, writer, tree.commit(writer));
    expect(await reindexSpaceSearchReport(owner.context, spaceId)).toMatchObject({ mode: 'full', objectsRead: 420, markdownRead: 420 });

    tree.updatePage('s7p3', { content: writer.putMarkdown('Text rewritten with zeppelin.') });
    await commitMainRevision(db, spaceId, user, writer, tree.commit(writer));
    const edit = await reindexSpaceSearchReport(owner.context, spaceId);
    // The two roots, the old and new section page and the old and new edited page; one markdown blob.
    expect(edit).toMatchObject({ mode: 'changes', objectsRead: 6, markdownRead: 1 });
    expect(edit.result).toMatchObject({ comparedPages: 2, storedHashesRead: 2, writtenPages: 1, removedPages: 0, pages: 420 });
    expect((await searchSpace(db, spaceId, 'zeppelin')).items.map((item) => item.id)).toEqual(['s7p3']);

    // Renaming a section rewrites its pages (their ancestors changed), and only those.
    tree.updatePage('s4', { title: 'Renamed section' });
    await commitMainRevision(db, spaceId, user, writer, tree.commit(writer));
    const rename = await reindexSpaceSearchReport(owner.context, spaceId);
    expect(rename).toMatchObject({ mode: 'changes', markdownRead: 21 });
    expect(rename.result).toMatchObject({ comparedPages: 21, writtenPages: 21 });

    // Rows from before the row format was recorded: one full walk, which records it.
    await db.updateTable('search_spaces').set({ row_format: 0 }).where('space_id', '=', spaceId).execute();
    tree.updatePage('s1p1', { content: writer.putMarkdown('Another text.') });
    await commitMainRevision(db, spaceId, user, writer, tree.commit(writer));
    expect(await reindexSpaceSearchReport(owner.context, spaceId)).toMatchObject({ mode: 'full', markdownRead: 1, result: { writtenPages: 1, comparedPages: 420 } });
    tree.updatePage('s1p2', { content: writer.putMarkdown('Yet another text.') });
    await commitMainRevision(db, spaceId, user, writer, tree.commit(writer));
    expect(await reindexSpaceSearchReport(owner.context, spaceId)).toMatchObject({ mode: 'changes', markdownRead: 1, result: { writtenPages: 1 } });
  });
});
