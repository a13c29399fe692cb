import { describe, expect, it } from 'vitest';
import { markSnippet, snippetMatcher } from './search-snippet.js';

describe('markSnippet', () => {
  it('marks the words the query matched, whatever their case and Latin accents, and escapes the rest', () => {
    const matches = snippetMatcher('Cafe <b>');
    expect(markSnippet('A café & a CAFE; <b>bold</b> cafeteria', matches)).toBe(
      'A <mark>café</mark> &amp; a <mark>CAFE</mark>; &lt;<mark>b</mark>&gt;bold&lt;/<mark>b</mark>&gt; cafeteria',
    );
  });

  it('matches the last word as a prefix, as the search does while one types, but not a single letter', () => {
    expect(markSnippet('Install the installer', snippetMatcher('inst'))).toBe('<mark>Install</mark> the <mark>installer</mark>');
    expect(markSnippet('a and b', snippetMatcher('a'))).toBe('<mark>a</mark> and b');
  });

  it('marks nothing for a query of punctuation only', () => {
    expect(markSnippet('x | y', snippetMatcher('| --'))).toBe('x | y');
  });
});
