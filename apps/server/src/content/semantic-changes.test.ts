import { describe, expect, it } from 'vitest';
import { semanticChanges } from './semantic-changes.js';
import type { MaterializedFile, MaterializedPage, MaterializedTree } from './tree.js';

const page = (id: string, fields: Partial<MaterializedPage> = {}): MaterializedPage => ({
  id, title: id, type: 'document', hidden: false, slug: id, path: id, pages: [], contentHash: `h-${id}`, ...fields,
});
const file = (id: string, fields: Partial<MaterializedFile> = {}): MaterializedFile => ({ id, name: `${id}.txt`, contentType: 'text/plain', size: 1, blob: `b-${id}`, ...fields });
const tree = (pages: MaterializedPage[], files: MaterializedFile[] = []): MaterializedTree => ({ pages, files, reusableContents: [] });

describe('semanticChanges', () => {
  it('finds nothing between equal trees', () => {
    const same = tree([page('a', { pages: [page('b')] })], [file('f')]);
    expect(semanticChanges(same, structuredClone(same))).toEqual([]);
  });

  it('lists created, edited and moved pages in the new order, then deleted pages, then files', () => {
    const before = tree([page('a', { pages: [page('b')] }), page('c'), page('gone', { pages: [page('child')] })], [file('f'), file('g'), file('old')]);
    const after = tree(
      [page('a', { title: 'A2' }), page('c', { contentHash: 'h-c2', pages: [page('b', { path: 'c/b' })] }), page('new')],
      [file('f', { name: 'renamed.txt' }), file('g'), file('added')],
    );
    const changes = semanticChanges(before, after);
    expect(changes.map((change) => [change.type, 'page' in change ? change.page.id : change.file.id, 'attributes' in change ? change.attributes : undefined])).toEqual([
      ['page_edited', 'a', ['title']],
      ['page_edited', 'c', ['document']],
      ['page_moved', 'b', undefined],
      ['page_created', 'new', undefined],
      ['page_deleted', 'gone', undefined],
      ['page_deleted', 'child', undefined],
      ['file_edited', 'f', ['name']],
      ['file_created', 'added', undefined],
      ['file_deleted', 'old', undefined],
    ]);
    const moved = changes.find((change) => change.type === 'page_moved');
    expect(moved).toMatchObject({ parentBefore: { id: 'a' }, parentAfter: { id: 'c' } });
  });
});
