import { describe, expect, it } from 'vitest';
import { CorruptContentError } from './errors.js';
import { decodeObject, MemoryObjectStore, TreeWriter, type FileObject } from './objects.js';

const file = (id: string): FileObject => ({ kind: 'file', id, name: id, contentType: 'text/plain', size: 1, blob: 'x' });

describe('decodeObject', () => {
  it('answers blobs as bytes and checks the shape of JSON objects', () => {
    expect(decodeObject('blob', Buffer.from('raw'))).toEqual(Buffer.from('raw'));
    expect(decodeObject('file', Buffer.from(JSON.stringify(file('f'))))).toEqual(file('f'));
    expect(() => decodeObject('page', Buffer.from('{not json'))).toThrow(CorruptContentError);
    expect(() => decodeObject('page', Buffer.from(JSON.stringify(file('f'))))).toThrow(CorruptContentError);
    expect(() => decodeObject('root', Buffer.from('{"kind":"root","pages":[1],"files":[]}'))).toThrow(CorruptContentError);
  });
});

describe('TreeWriter', () => {
  it('reads its own pending objects before the store, and the store for the rest', async () => {
    const store = new MemoryObjectStore();
    const first = new TreeWriter(store);
    const stored = first.putObject(file('stored'));
    store.write(first.collect(stored));

    const writer = new TreeWriter(store);
    const pending = writer.putObject(file('pending'));
    const blob = writer.putMarkdown('text');
    const found = await writer.getMany([stored, pending, 'missing']);
    expect([...found.keys()].sort()).toEqual([pending, stored].sort());
    expect(await writer.get(blob)).toBeUndefined();
    expect(Buffer.from((await writer.getBlob(blob))!).toString()).toBe('text');
    expect(store.has(pending)).toBe(false);
  });

  it('puts equal content once', () => {
    const writer = new TreeWriter(new MemoryObjectStore());
    expect(writer.putMarkdown('same')).toBe(writer.putBlob(Buffer.from('same')));
    expect(writer.putObject(file('a'))).toBe(writer.putObject({ ...file('a') }));
    expect(writer.size).toBe(2);
  });
});

describe('MemoryObjectStore', () => {
  it('inserts only absent objects and refuses an object whose key is not its hash', () => {
    const store = new MemoryObjectStore();
    const writer = new TreeWriter(store);
    const hash = writer.putObject(file('a'));
    const objects = writer.collect(hash);
    expect(store.write(objects)).toBe(1);
    expect(store.write(objects)).toBe(0);
    expect(() => store.write([{ ...objects[0]!, hash: '0'.repeat(64) }])).toThrow(/Bad hash/);
  });
});
