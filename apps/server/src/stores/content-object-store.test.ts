import { expect, it } from 'vitest';
import { describeEachDialect, useTestDatabase } from '../../test/dialects.js';
import { insertPage, materializeRoot, readMarkdown, TreeWriter, updatePage, WorkingTree } from '../content/index.js';
import { putObjects, SqlObjectReader } from './content-object-store.js';

describeEachDialect('content object store', (dialect) => {
  const database = useTestDatabase(dialect);

  it('stores what a writer made and reads it back as the same tree, markdown and file bytes', async () => {
    const reader = new SqlObjectReader(database.db);
    const writer = new TreeWriter(reader);
    const tree = WorkingTree.empty();
    const guide = tree.insertPage({ id: 'guide', title: 'Guide', content: writer.putMarkdown('# Guide\n\nHello é 🚀') }, { into: null });
    tree.insertPage({ id: 'child', title: 'Child' }, { into: guide.id });
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    tree.insertFile({ kind: 'file', id: 'logo', name: 'logo.bin', contentType: 'application/octet-stream', size: bytes.length, blob: writer.putBlob(bytes) });
    const root = tree.commit(writer);
    const objects = writer.collect(root);
    await database.db.transaction().execute((trx) => putObjects(trx, objects));

    const loaded = await materializeRoot(reader, root);
    expect(loaded.pages.map((page) => [page.id, page.path, page.pages.map((child) => child.path)])).toEqual([['guide', 'guide', ['guide/child']]]);
    expect(await readMarkdown(reader, loaded.pages[0]!.contentHash)).toBe('# Guide\n\nHello é 🚀');
    expect(Buffer.from((await reader.getBlob(loaded.files[0]!.blob))!)).toEqual(bytes);
    expect(await reader.get(loaded.files[0]!.blob)).toBeUndefined();
    expect(await reader.getBlob(root)).toBeUndefined();
    const rows = await database.db.selectFrom('content_objects').select(['hash', 'size']).where('hash', 'in', objects.map((object) => object.hash)).execute();
    expect(rows).toHaveLength(objects.length);
    expect(rows.find((row) => row.hash === loaded.files[0]!.blob)?.size).toBe(bytes.length);
  });

  it('writes only what changed on an edit, and writing an existing object again is a no-op', async () => {
    const reader = new SqlObjectReader(database.db);
    const first = new TreeWriter(reader);
    let root = WorkingTree.empty().commit(first);
    for (let index = 0; index < 30; index++) {
      root = (await insertPage(first, root, { id: `p${index}`, title: `Page ${index}`, markdown: `body ${index}` }, { into: null })).root;
    }
    await putObjects(database.db, first.collect(root));
    const count = async () => Number((await database.db.selectFrom('content_objects').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();

    const edit = new TreeWriter(reader);
    const edited = await updatePage(edit, root, 'p7', { markdown: 'new body' });
    const written = edit.collect(edited);
    // The changed page, its new markdown and the new root.
    expect(written.map((object) => object.kind).sort()).toEqual(['blob', 'page', 'root']);
    await putObjects(database.db, written);
    await putObjects(database.db, written);
    expect(await count()).toBe(before + 3);
    const many = await reader.getMany([edited, root, 'missing']);
    expect([...many.keys()].sort()).toEqual([edited, root].sort());
  });
});
