/*
 * The text side of search, the same on both databases: turning what a user typed into a safe list of terms,
 * and cutting the snippet shown for a matching section. No SQL here; the dialect modules turn the terms into
 * an FTS5 MATCH expression or a tsquery, always from these letters-and-digits-only terms, so no operator of
 * either query language can come from user text.
 */

/** The contract caps the query at 512 characters; longer text is cut rather than refused. */
export const MAX_QUERY_LENGTH = 512;
/** Every term is one more posting list to intersect and rank; beyond this, more words barely narrow a search. */
export const MAX_QUERY_TERMS = 16;
/**
 * The last term matches as a prefix (search as you type) from this many characters. A one-letter prefix
 * expands to a large part of the vocabulary, which costs much and finds little.
 */
export const MIN_PREFIX_LENGTH = 2;
/** Longest snippet, ellipses included. */
export const SNIPPET_MAX_LENGTH = 300;

export interface SearchTerms {
  /** Words to find, all of them (AND), in the order typed, each made only of letters, digits and marks. */
  terms: string[];
  /** Whether the last term also matches longer words that start with it. */
  prefix: boolean;
}

/**
 * A word is a run of letters, digits and combining marks: what SQLite's unicode61 tokenizer keeps together
 * (it splits on punctuation, symbols and spaces) and what the PostgreSQL index sees after folding.
 */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Case and accents do not matter (SQLite: `remove_diacritics 2`; PostgreSQL: `quire_search_fold`): accents
 * are dropped from Latin letters only, as both indexes do, so `é` finds `e` but Cyrillic `й` stays `й`.
 */
export function foldWord(word: string): string {
  // ASCII (most words) has nothing to normalize: the normalizations cost ten times the lower-casing.
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize('NFD').replace(/([A-Za-z])[\u0300-\u036f]+/g, '$1').normalize('NFC').toLowerCase();
}

/**
 * Reads the query as plain words: punctuation, quotes, `*`, `-`, parentheses and the like only separate
 * words, and FTS keywords (`NEAR`, `OR`, `NOT`) are words like any other. Repeated words count once.
 */
export function parseSearchQuery(query: string): SearchTerms {
  const words = (query.slice(0, MAX_QUERY_LENGTH).normalize('NFC').match(WORD) ?? []).filter((word) => LETTER_OR_DIGIT.test(word));
  if (words.length === 0) return { terms: [], prefix: false };
  const last = words[words.length - 1]!;
  const lastKey = foldWord(last);
  const seen = new Set<string>([lastKey]);
  const terms: string[] = [];
  for (const word of words.slice(0, -1)) {
    const key = foldWord(word);
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(word);
  }
  // The last word is kept (it is the one being typed, matched as a prefix); the cut falls on earlier words.
  terms.splice(MAX_QUERY_TERMS - 1);
  terms.push(last);
  return { terms, prefix: [...lastKey].length >= MIN_PREFIX_LENGTH };
}

/** Tells whether a word of the text is one of the terms (the last one possibly as a prefix). */
export type WordMatcher = (word: string) => boolean;

export function wordMatcher({ terms, prefix }: SearchTerms): WordMatcher {
  const exact = new Set(terms.map(foldWord));
  const start = prefix && terms.length > 0 ? foldWord(terms[terms.length - 1]!) : undefined;
  return (word) => {
    const key = foldWord(word);
    return exact.has(key) || (start !== undefined && key.startsWith(start));
  };
}

/** Whether any word of the text matches. */
export function containsMatch(text: string, matches: WordMatcher): boolean {
  for (const found of text.matchAll(WORD)) if (matches(found[0])) return true;
  return false;
}

/**
 * Plain text around the first matching word of a section body, at most SNIPPET_MAX_LENGTH characters,
 * cut at spaces, with `…` where text was left out; the start of the body when no word of it matches (the
 * section matched by its titles).
 */
export function makeSnippet(body: string, matches: WordMatcher, maxLength = SNIPPET_MAX_LENGTH): string {
  const text = body.replace(/\s+/g, ' ').trim();
  if (text.length <= maxLength) return text;
  let hit = 0;
  for (const found of text.matchAll(WORD)) {
    if (matches(found[0])) {
      hit = found.index;
      break;
    }
  }
  const ellipsis = '…';
  // About a fifth of the room goes to the text before the match, so that the match reads in context.
  let start = Math.max(0, hit - Math.floor(maxLength / 5));
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space >= 0 && space < hit ? space + 1 : start;
  }
  const prefix = start > 0 ? ellipsis : '';
  const room = maxLength - prefix.length;
  if (text.length - start <= room) return prefix + safeSlice(text, start, text.length);
  // Leave room for the closing ellipsis; cut at the last space that fits, unless that would drop most of it.
  let end = start + room - ellipsis.length;
  const space = text.lastIndexOf(' ', end);
  if (space > start + room / 2) end = space;
  return `${prefix}${safeSlice(text, start, end).trimEnd()}${ellipsis}`;
}

/** A slice that never splits a surrogate pair (which would not be valid text). */
function safeSlice(text: string, start: number, end: number): string {
  const isLow = (index: number): boolean => index > 0 && index < text.length && /[\udc00-\udfff]/.test(text[index]!) && /[\ud800-\udbff]/.test(text[index - 1]!);
  const from = isLow(start) ? start + 1 : start;
  const to = isLow(end) ? end - 1 : end;
  return text.slice(from, to);
}
