import type { Root } from 'mdast';
import { parseCommonMark } from '../content/markdown-libraries.js';

/*
 * SUMMARY.md in time linear in its length. The markdown parser's time grows faster than the length of one
 * long run of nested lists (a summary of 4,000 entries took ten times as long as one of 500), so the summary
 * is cut at the lines that start a new top-level block whatever came before them, and each piece is parsed
 * on its own. The pieces' blocks, in order, are the blocks of the whole parse, except that a list cut in two
 * is two lists of the same items, which the reading of the summary (item by item) does not tell apart.
 *
 * A line starts a new top-level block whatever came before it when it is, at column 0, an ATX heading or a
 * bullet list item with content (both interrupt a paragraph and close every open list item and quote),
 * outside a fenced code block. Ordered items are not cut at (`2.` cannot interrupt a paragraph, so it may be
 * a lazy continuation line), nor empty items. Whatever else could carry over from one piece to the next is
 * not cut at all: link reference definitions (a link in one piece may use a definition of another) and HTML
 * blocks (which run until their own end) send the whole summary to one parse.
 */

const TOP_LEVEL_START = /^(?:#{1,6}(?:[ \t]|\r?$)|[*+-][ \t]+\S)/;
const FENCE_OPEN = /^[ \t]*(`{3,}|~{3,})/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*\r?$/;
/** A definition (`[label]: url`) anywhere, or a line that may open an HTML block: no cutting. */
const CARRIES_OVER = /\]:|^ {0,3}</m;

/** The offsets at which `summary` may be cut (see above), after 0. */
function cutPoints(summary: string): number[] {
  const cuts: number[] = [];
  let fence: string | undefined;
  let lineStart = 0;
  while (lineStart < summary.length) {
    let lineEnd = summary.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = summary.length;
    const line = summary.slice(lineStart, lineEnd);
    if (fence !== undefined) {
      // Only a closing fence that would close a top-level fence ends it; anything else keeps the piece whole.
      const close = FENCE_CLOSE.exec(line)?.[1];
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length) fence = undefined;
    } else {
      const open = FENCE_OPEN.exec(line)?.[1];
      if (open !== undefined) fence = open;
      else if (lineStart > 0 && TOP_LEVEL_START.test(line)) cuts.push(lineStart);
    }
    lineStart = lineEnd + 1;
  }
  return cuts;
}

/** The blocks of SUMMARY.md, as `parseCommonMark` reads them (lists cut in two aside), in linear time. */
export function parseSummary(summary: string): Root {
  if (CARRIES_OVER.test(summary)) return parseCommonMark(summary);
  const root: Root = { type: 'root', children: [] };
  let start = 0;
  for (const cut of [...cutPoints(summary), summary.length]) {
    if (cut > start) root.children.push(...parseCommonMark(summary.slice(start, cut)).children);
    start = cut;
  }
  return root;
}
