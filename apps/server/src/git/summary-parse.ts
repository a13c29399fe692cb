import type { List, ListItem, Paragraph, Root, RootContent } from 'mdast';
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

/*
 * Most summaries are nested bullet lists of links and nothing else. A piece made only of such lines (and blank
 * lines) is read without parsing its lists: which item a line belongs to follows from its indentation alone (a
 * line continues each open item whose content column it reaches, and a bullet with content starts an item
 * there, in the list of the same bullet character, or a new list), and the items' texts are parsed together,
 * as paragraphs of one document, in time linear in their length. Anything else in the piece (tabs, carriage
 * returns, an indentation that would make a code block or a lazy line, an empty item, a text that could start
 * a block of its own) sends the piece to the parser.
 */
const SIMPLE_ITEM = /^( *)([*+-])( {1,4})((?:[[!]|\p{L}).*)$/u;

interface OpenItem {
  contentColumn: number;
  item: ListItem;
}

/** The blocks of a piece of the summary read as above, or undefined when the piece needs the parser. */
export function quickPiece(piece: string): RootContent[] | undefined {
  if (/[\t\r]/.test(piece)) return undefined;
  const root: Root = { type: 'root', children: [] };
  // A list's bullet character: another one starts a new list.
  const bullets = new WeakMap<List, string>();
  const open: OpenItem[] = [];
  const items: ListItem[] = [];
  const texts: string[] = [];
  for (const line of piece.split('\n')) {
    if (/^ *$/.test(line)) continue;
    const match = SIMPLE_ITEM.exec(line);
    if (!match) return undefined;
    const [, indent = '', bullet = '', spaces = '', text = ''] = match;
    while (open.length > 0 && indent.length < open[open.length - 1]!.contentColumn) open.pop();
    const parent = open[open.length - 1];
    if (indent.length - (parent?.contentColumn ?? 0) >= 4) return undefined;
    const siblings = parent ? parent.item.children : root.children;
    const last = siblings[siblings.length - 1];
    let list: List;
    if (last?.type === 'list' && bullets.get(last) === bullet) list = last;
    else {
      list = { type: 'list', ordered: false, start: null, spread: false, children: [] };
      bullets.set(list, bullet);
      siblings.push(list);
    }
    const item: ListItem = { type: 'listItem', spread: false, checked: null, children: [] };
    list.children.push(item);
    items.push(item);
    texts.push(text);
    open.push({ contentColumn: indent.length + 1 + spaces.length, item });
  }
  const parsed = texts.map(plainLink);
  const rest = texts.filter((_, index) => parsed[index] === undefined);
  const paragraphs = rest.length > 0 ? parseCommonMark(rest.join('\n\n')).children : [];
  if (paragraphs.length !== rest.length || paragraphs.some((node) => node.type !== 'paragraph')) return undefined;
  let next = 0;
  items.forEach((item, index) => item.children.unshift(parsed[index] ?? (paragraphs[next++] as Paragraph)));
  return root.children;
}

/*
 * An item that is one link whose text and destination hold nothing the parser would read (no brackets,
 * parentheses, emphasis, code, HTML, escapes, character references, spaces at its ends or in its destination)
 * is a paragraph of one link of that text to that destination: it is made so, without parsing. The parse of
 * such links is most of a large summary's reading.
 */
const PLAIN_LINK = /^\[([^\s[\]()\\`*_<>&!\x00-\x1f\x7f](?:[^[\]()\\`*_<>&!\x00-\x1f\x7f]*[^\s[\]()\\`*_<>&!\x00-\x1f\x7f])?)\]\(([^\s()<>\\&\x00-\x1f\x7f]+)\)$/;

function plainLink(text: string): Paragraph | undefined {
  const match = PLAIN_LINK.exec(text);
  if (!match) return undefined;
  const [, label = '', url = ''] = match;
  return { type: 'paragraph', children: [{ type: 'link', title: null, url, children: [{ type: 'text', value: label }] }] };
}

/** The blocks of SUMMARY.md, as `parseCommonMark` reads them (lists cut in two aside), in linear time. */
export function parseSummary(summary: string): Root {
  if (CARRIES_OVER.test(summary)) return parseCommonMark(summary);
  const root: Root = { type: 'root', children: [] };
  let start = 0;
  for (const cut of [...cutPoints(summary), summary.length]) {
    if (cut > start) {
      const piece = summary.slice(start, cut);
      root.children.push(...(quickPiece(piece) ?? parseCommonMark(piece).children));
    }
    start = cut;
  }
  return root;
}
