import { describe, expect, it } from 'vitest';
import { buildTree } from '../site/tree.js';
import type { RevisionFile, RevisionPage } from '../site/types.js';
import { fileMap, pageMap } from './address-maps.js';

const file = (id: string, name: string, path?: string) => ({ id, name, ...(path ? { git: { path } } : {}), dimensions: { width: 10, height: 5 } }) as unknown as RevisionFile;

describe('fileMap', () => {
  it('serves files under the base path by id, by name (the first of a name) and by Git path', () => {
    const files = [file('f 1', 'logo.png', '.gitbook/assets/logo.png'), file('f2', 'logo.png')];
    const map = fileMap(files, '/sites/docs');
    expect(map['id:f 1']).toEqual({ href: '/sites/docs/~files/f%201', name: 'logo.png', width: 10, height: 5 });
    expect(map['name:logo.png']).toBe(map['id:f 1']);
    expect(map['path:.gitbook/assets/logo.png']).toBe(map['id:f 1']);
    expect(map['id:f2']?.href).toBe('/sites/docs/~files/f2');
  });

  it('makes the map once per list and base path', () => {
    const files = [file('f', 'a.png')];
    expect(fileMap(files, '/a')).toBe(fileMap(files, '/a'));
    expect(fileMap(files, '/b')).not.toBe(fileMap(files, '/a'));
    expect(fileMap(files, '/b')['id:f']?.href).toBe('/b/~files/f');
  });
});

describe('pageMap', () => {
  it('maps page ids and paths to their site addresses, once per tree', () => {
    const page = (id: string, path: string) => ({ id, title: id, type: 'document', path, pages: [] }) as unknown as RevisionPage;
    const tree = buildTree([page('p1', 'intro'), page('p2', 'guide/install')], '/sites/docs');
    const map = pageMap(tree);
    expect(map).toEqual({ 'id:p1': '/sites/docs', 'path:intro': '/sites/docs', 'id:p2': '/sites/docs/guide/install', 'path:guide/install': '/sites/docs/guide/install' });
    expect(pageMap(tree)).toBe(map);
  });
});
