/*
 * How much of a page's Markdown the parser can take on the event loop. The server (writes, documents, links,
 * search) and the reader (rendering published pages) parse the same Markdown with the same parser
 * (micromark), so they share one measure and one set of thresholds: a page the server parses in its worker
 * is rendered in the reader's worker too, and what the server stores the reader can render.
 */

/** Markdown at least this long is parsed (and, in the reader, rendered) in a worker thread. */
export const OFF_THREAD_MARKDOWN_LENGTH = 20_000;

/**
 * Inline delimiter characters (see `inlineDelimiterCount`) in one paragraph past which markdown is refused
 * when it is written. micromark resolves emphasis, strikethrough and link delimiters in time that grows with
 * the square of their number in one paragraph (4,000 `*` of `*a*b` repeated: 0.8 s, 16,000: 14 s on the
 * 2-core build machine), so past this a parse could hold a worker for minutes.
 */
export const MAX_INLINE_DELIMITERS = 5_000;

/**
 * Markdown with more inline delimiters than this in one paragraph is parsed in a worker thread, like long
 * markdown. On the 2-core machine under load, the worst arrangement of 200 delimiters (`*a*b` repeated)
 * parses in 4-50 ms, 500 in 20-190 ms, and a write parses its page about three times (check, links, link
 * index). A thread hop costs a few ms; ordinary paragraphs have far fewer delimiters (a table with a link
 * in each of 50 rows has 100).
 */
export const ON_THREAD_INLINE_DELIMITERS = 200;

const INLINE_DELIMITERS = new Set(['*', '_', '[', ']', '`', '~', '<']);

/**
 * The largest number of inline delimiter characters (`*`, `_`, `[`, `]`, backtick, `~`, `<`) between two
 * blank lines, in one linear pass. Inline content never spans a blank line, so this bounds the delimiters of
 * every paragraph, heading and table cell; code blocks are counted too (telling them apart needs a parse).
 */
export function inlineDelimiterCount(markdown: string): number {
  let most = 0;
  let count = 0;
  let blankSoFar = true;
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown[i]!;
    if (c === '\n') {
      if (blankSoFar) {
        if (count > most) most = count;
        count = 0;
      }
      blankSoFar = true;
    } else if (c !== ' ' && c !== '\t' && c !== '\r') {
      blankSoFar = false;
      if (INLINE_DELIMITERS.has(c)) count++;
    }
  }
  return Math.max(most, count);
}

/**
 * Whether markdown is parsed in a worker thread rather than on the event loop: long, or with enough inline
 * delimiters in one paragraph that its parse may take longer than a request should hold the event loop
 * (see ON_THREAD_INLINE_DELIMITERS).
 */
export function parsesOffThread(markdown: string): boolean {
  return markdown.length >= OFF_THREAD_MARKDOWN_LENGTH || inlineDelimiterCount(markdown) > ON_THREAD_INLINE_DELIMITERS;
}
