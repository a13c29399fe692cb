import { escapeHtml as e } from '../site/html.js';

/*
 * The words of a search snippet that the query matched, marked with <mark>. The API answers the snippet as
 * plain text cut around the first match; which words matched is read here with the API's own rule for words
 * and terms (apps/server/src/search/search-text.ts): a word is a run of letters, digits and combining marks,
 * case and Latin accents do not matter, and the last word of the query also matches as a prefix (from two
 * characters), as the search does while one types.
 */

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const MIN_PREFIX_LENGTH = 2;

function foldWord(word: string): string {
  return word.normalize('NFD').replace(/([A-Za-z])[\u0300-\u036f]+/g, '$1').normalize('NFC').toLowerCase();
}

/** Whether a word of a snippet is one the query asked for. */
export type SnippetMatcher = (word: string) => boolean;

export function snippetMatcher(query: string): SnippetMatcher {
  const words = (query.normalize('NFC').match(WORD) ?? []).filter((word) => LETTER_OR_DIGIT.test(word)).map(foldWord);
  const exact = new Set(words);
  const last = words[words.length - 1];
  const prefix = last !== undefined && [...last].length >= MIN_PREFIX_LENGTH ? last : undefined;
  return (word) => {
    const key = foldWord(word);
    return exact.has(key) || (prefix !== undefined && key.startsWith(prefix));
  };
}

/** The snippet as HTML: its text escaped, every matching word in a <mark>. */
export function markSnippet(snippet: string, matches: SnippetMatcher): string {
  let html = '';
  let at = 0;
  for (const found of snippet.matchAll(WORD)) {
    if (!matches(found[0])) continue;
    html += `${e(snippet.slice(at, found.index))}<mark>${e(found[0])}</mark>`;
    at = found.index + found[0].length;
  }
  return html + e(snippet.slice(at));
}
