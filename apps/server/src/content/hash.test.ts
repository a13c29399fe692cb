import { describe, expect, it } from 'vitest';
import { canonicalJson, encodeJsonObject, hashMarkdown, hashObject, sha256Hex } from './hash.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1]},"b":1}');
  });

  it('leaves out undefined properties, as JSON does, and writes undefined array items as null', () => {
    expect(canonicalJson({ a: undefined, b: null, c: [undefined] })).toBe('{"b":null,"c":[null]}');
  });

  it('refuses values JSON cannot hold exactly', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: Infinity })).toThrow(TypeError);
    expect(() => canonicalJson({ d: new Date(0) })).toThrow(TypeError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });

  it('accepts a value repeated in siblings (only true cycles are refused)', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('hashes', () => {
  it('are SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('separate kinds, so equal bytes of different kinds never share a key', () => {
    const bytes = Buffer.from('{"kind":"root","pages":[],"files":[]}');
    expect(hashObject('blob', bytes)).not.toBe(hashObject('root', bytes));
    expect(hashObject('blob', bytes)).not.toBe(sha256Hex(bytes));
  });

  it('key markdown by its UTF-8 bytes', () => {
    expect(hashMarkdown('é')).toBe(hashObject('blob', Buffer.from('é', 'utf8')));
    expect(hashMarkdown('a')).not.toBe(hashMarkdown('a\n'));
  });

  it('do not depend on property order', () => {
    expect(encodeJsonObject('page', { a: 1, b: 2 }).hash).toBe(encodeJsonObject('page', { b: 2, a: 1 }).hash);
  });
});
