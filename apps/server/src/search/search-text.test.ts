import { describe, expect, it } from 'vitest';
import { FOLD_PUNCTUATION_CLASS } from '../db/migrations/0040_search.js';
import { ftsMatchExpression } from '../stores/search-store.js';
import {
  MAX_QUERY_TERMS,
  SNIPPET_MAX_LENGTH,
  containsMatch,
  foldWord,
  makeSnippet,
  parseSearchQuery,
  wordMatcher,
} from './search-text.js';

describe('parseSearchQuery', () => {
  it('keeps only words; operators and punctuation of both query languages only separate them', () => {
    expect(parseSearchQuery('"install" NEAR(foo* -bar) OR baz:qux ^x AND {y} \'z\' a&b|c!d <-> e:*')).toEqual({
      terms: ['install', 'NEAR', 'foo', 'bar', 'OR', 'baz', 'qux', 'x', 'AND', 'y', 'z', 'a', 'b', 'c', 'd', 'e'],
      prefix: false, // the last word, `e`, is a single letter
    });
    expect(parseSearchQuery('getting star')).toEqual({ terms: ['getting', 'star'], prefix: true });
  });

  it('finds no terms in text without letters or digits', () => {
    for (const query of ['', '   ', '"', '***', '-()-', '\u0301', '\ud800', '\u0000', '🎉🎉', '.,;:!?']) {
      expect(parseSearchQuery(query)).toEqual({ terms: [], prefix: false });
    }
  });

  it('counts a repeated word once, keeps the last word last, and caps the number of terms', () => {
    expect(parseSearchQuery('Café cafe api CAFÉ').terms).toEqual(['api', 'CAFÉ']);
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    const parsed = parseSearchQuery(many);
    expect(parsed.terms).toHaveLength(MAX_QUERY_TERMS);
    expect(parsed.terms.at(-1)).toBe('w39');
    expect(parsed.terms[0]).toBe('w0');
  });

  it('reads letters of every script and composes decomposed accents', () => {
    expect(parseSearchQuery('Straße 東京 Привет e\u0301te').terms).toEqual(['Straße', '東京', 'Привет', 'éte']);
  });

  it('makes FTS5 expressions of quoted terms only', () => {
    expect(ftsMatchExpression(parseSearchQuery('NEAR(a b) col:x inst'))).toBe('"NEAR" "a" "b" "col" "x" "inst"*');
  });
});

describe('foldWord and matching', () => {
  it('drops accents from Latin letters only, like unicode61 remove_diacritics 2', () => {
    expect(foldWord('ÉCOLE')).toBe('ecole');
    expect(foldWord('Crème')).toBe('creme');
    expect(foldWord('Ångström')).toBe('angstrom');
    expect(foldWord('Йод')).toBe('йод');
    expect(foldWord('Straße')).toBe('straße');
  });

  it('matches whole words, and the last term as a prefix', () => {
    const matches = wordMatcher(parseSearchQuery('ecole instal'));
    expect(matches('École')).toBe(true);
    expect(matches('installation')).toBe(true);
    expect(matches('ecoles')).toBe(false);
    expect(containsMatch('Run the installer.', matches)).toBe(true);
    expect(containsMatch('Nothing here', matches)).toBe(false);
  });
});

describe('makeSnippet', () => {
  const matches = wordMatcher(parseSearchQuery('needle'));

  it('answers short text whole, with white space collapsed', () => {
    expect(makeSnippet('one\n\ntwo   needle', matches)).toBe('one two needle');
  });

  it('cuts long text around the first match, at spaces, within the length', () => {
    const before = Array.from({ length: 200 }, (_, i) => `before${i}`).join(' ');
    const after = Array.from({ length: 200 }, (_, i) => `after${i}`).join(' ');
    const snippet = makeSnippet(`${before} needle ${after}`, matches);
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_LENGTH);
    expect(snippet).toMatch(/^….*needle.*…$/);
    expect(snippet.indexOf('needle')).toBeGreaterThan(20);
    expect(snippet.indexOf('needle')).toBeLessThan(SNIPPET_MAX_LENGTH / 2);
    // Whole words only at both ends.
    expect(snippet).toMatch(/^…before\d+ /);
    expect(snippet).toMatch(/ after\d+…$/);
  });

  it('starts at the beginning when the body has no match, and never splits a surrogate pair', () => {
    const text = '😀'.repeat(400);
    const snippet = makeSnippet(text, matches);
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_LENGTH);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(snippet.startsWith('😀')).toBe(true);
  });
});

describe('the PostgreSQL fold', () => {
  it('turns into spaces exactly the characters of its blocks that are not letters, digits or marks', () => {
    const pattern = new RegExp(FOLD_PUNCTUATION_CLASS.replace(/\\u([0-9A-F]{4})/g, '\\u{$1}'), 'u');
    const blocks: Array<[number, number]> = [[0x21, 0x7e], [0xa0, 0xff], [0x2000, 0x206f]];
    for (const [from, to] of blocks) {
      for (let code = from; code <= to; code++) {
        const char = String.fromCodePoint(code);
        expect([code.toString(16), pattern.test(char)]).toEqual([code.toString(16), !/[\p{L}\p{N}\p{M}]/u.test(char)]);
      }
    }
  });
});
