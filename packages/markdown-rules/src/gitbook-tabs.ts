/*
 * GitBook's tabs, written as template tags that CommonMark reads as paragraph text:
 *
 *   {% tabs %}
 *   {% tab title="npm" %}
 *   npm install quire
 *   {% endtab %}
 *   {% endtabs %}
 *
 * Without blank lines between them the tags share paragraphs with each other and with the tabs' text, so
 * the paragraphs of a tabs block are cut at every line that is one tag, and the pieces read as a sequence of
 * tags and blocks. A block starts with a paragraph whose first line is `{% tabs %}` and holds one or more
 * tabs, each `{% tab title="..." %}` ... `{% endtab %}`, with nothing between them. Anything else (a tag
 * never closed, text between two tabs, tabs in tabs) leaves every paragraph as the text it is, as GitBook's
 * own content has no such thing. Tabs are top-level blocks, as in GitBook.
 *
 * The server's content model (the `tabs` blocks of documents) and the reader's rendering both read tabs
 * with this, so that a page has the same tabs in the API as on the site. It works on any Markdown syntax
 * tree of mdast's shape (only paragraphs and their text are looked into, and the last paragraph of a list
 * or quote for lazy lines), typed structurally since this package has no dependencies.
 *
 * Cost: each paragraph is cut at most once per block it may belong to, and a failed block stops at the next
 * `{% tabs %}`, where the next attempt starts, so the whole pass is linear in the number of blocks.
 */

/** A block of the syntax tree (mdast's `RootContent`, as far as this module looks into it). */
export interface BlockLike {
  type: string;
}
interface InlineLike {
  type: string;
  value?: string;
}
interface ParagraphLike {
  type: 'paragraph';
  children: InlineLike[];
}

/** One tab of a tabs block: its title and its blocks. */
export interface TabGroup<C> {
  type: 'quireTab';
  title: string;
  children: C[];
}

/** A GitBook tabs block found among the top-level blocks. */
export interface TabsGroup<C> {
  type: 'quireTabs';
  children: TabGroup<C>[];
}

type Tag = { tag: 'tabs' } | { tag: 'endtabs' } | { tag: 'tab'; title: string } | { tag: 'endtab' };

const TABS_OPEN = /^\{%\s*tabs\s*%\}$/;
const TABS_CLOSE = /^\{%\s*endtabs\s*%\}$/;
// Greedy: a title holding a quote ends at the last quote before the tag's end.
const TAB_OPEN = /^\{%\s*tab\s+title\s*=\s*"(.*)"\s*%\}$/;
const TAB_CLOSE = /^\{%\s*endtab\s*%\}$/;

function tagOf(line: string): Tag | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{%')) return undefined;
  if (TABS_OPEN.test(trimmed)) return { tag: 'tabs' };
  if (TABS_CLOSE.test(trimmed)) return { tag: 'endtabs' };
  if (TAB_CLOSE.test(trimmed)) return { tag: 'endtab' };
  const open = TAB_OPEN.exec(trimmed);
  return open ? { tag: 'tab', title: open[1]! } : undefined;
}

/** Whether a block opens a tabs block: a paragraph whose first line is `{% tabs %}`. */
function opensTabs(block: BlockLike): boolean {
  if (block.type !== 'paragraph') return false;
  const node = block as ParagraphLike;
  const first = node.children[0];
  if (first?.type !== 'text' || typeof first.value !== 'string') return false;
  const end = first.value.indexOf('\n');
  // The first line is all tag only if the text runs to its end (no inline node shares the line).
  if (end < 0 && node.children.length > 1) return false;
  return tagOf(end < 0 ? first.value : first.value.slice(0, end))?.tag === 'tabs';
}

/**
 * A paragraph cut at the lines that are one tag each: tags, and paragraphs of the lines between them. A
 * line is a tag only when it is all text (a tag with formatting in it is text, as it is to GitBook).
 */
function cutAtTags(paragraph: ParagraphLike): (Tag | ParagraphLike)[] {
  if (!paragraph.children.some((child) => child.type === 'text' && child.value?.includes('{%'))) return [paragraph];
  const lines: InlineLike[][] = [[]];
  for (const child of paragraph.children) {
    if (child.type !== 'text' || typeof child.value !== 'string') {
      lines[lines.length - 1]!.push(child);
      continue;
    }
    child.value.split('\n').forEach((part, index) => {
      if (index > 0) lines.push([]);
      if (part !== '') lines[lines.length - 1]!.push({ type: 'text', value: part });
    });
  }
  const out: (Tag | ParagraphLike)[] = [];
  let pending: InlineLike[][] = [];
  const flush = (): void => {
    if (pending.length > 0) out.push({ type: 'paragraph', children: joinLines(pending) });
    pending = [];
  };
  for (const line of lines) {
    const only = line.length === 1 ? line[0] : undefined;
    const tag = only?.type === 'text' && typeof only.value === 'string' ? tagOf(only.value) : undefined;
    if (tag) {
      flush();
      out.push(tag);
    } else if (line.length > 0) {
      pending.push(line);
    }
  }
  flush();
  return out;
}

/** Lines back into one paragraph's inlines, joined by the soft line breaks they were cut at. */
function joinLines(lines: InlineLike[][]): InlineLike[] {
  const out: InlineLike[] = [];
  lines.forEach((line, index) => {
    const items = index > 0 ? [{ type: 'text', value: '\n' }, ...line] : line;
    for (const item of items) {
      const previous = out[out.length - 1];
      if (item.type === 'text' && previous?.type === 'text') out[out.length - 1] = { type: 'text', value: (previous.value ?? '') + (item.value ?? '') };
      else out.push(item);
    }
  });
  return out;
}

interface ContainerLike {
  type: string;
  children: BlockLike[];
}

/**
 * A list or quote ending a tab without a blank line takes the tags after it in as lazy continuation lines
 * of its last paragraph (`- item` then `{% endtab %}` on the next line), as CommonMark reads them. Those
 * trailing tag lines are taken back out: the block (a copy, its last paragraph without them) and the tags.
 */
function withoutLazyTags(block: BlockLike): (Tag | BlockLike)[] {
  const path: ContainerLike[] = [];
  let last: BlockLike | undefined = block;
  while (last && (last.type === 'list' || last.type === 'listItem' || last.type === 'blockquote')) {
    const container = last as ContainerLike;
    path.push(container);
    last = container.children[container.children.length - 1];
  }
  if (path.length === 0 || last?.type !== 'paragraph') return [block];
  const pieces = cutAtTags(last as ParagraphLike);
  let firstTag = pieces.length;
  while (firstTag > 0 && isTag(pieces[firstTag - 1]!)) firstTag--;
  // Only tags after all of the paragraph's text are lazy lines; a tag amid the text leaves the block as is.
  if (firstTag === pieces.length || pieces.slice(0, firstTag).some((piece) => isTag(piece))) return [block];
  const kept = pieces.slice(0, firstTag) as BlockLike[];
  // Copies along the path, each with its last child replaced (the paragraph by what is left of it).
  let replacement: BlockLike[] = kept;
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const container = path[depth]!;
    replacement = [{ ...container, children: [...container.children.slice(0, -1), ...replacement] } as ContainerLike];
  }
  return [...replacement, ...(pieces.slice(firstTag) as Tag[])];
}

function isTag(item: Tag | BlockLike): item is Tag {
  return 'tag' in item;
}

/**
 * The tabs block starting at `children[start]`: the group, what follows its closing tag in the closing
 * paragraph, and the index of that paragraph; or undefined when the tags do not make a tabs block.
 */
function readTabs<B extends BlockLike>(children: readonly B[], start: number): { group: TabsGroup<B>; rest: B[]; end: number } | undefined {
  const tabs: TabGroup<B>[] = [];
  let current: TabGroup<B> | undefined;
  let opened = false;
  for (let index = start; index < children.length; index++) {
    const node = children[index]!;
    // Pieces cut from a paragraph are paragraphs of the same tree (mdast's shape, without positions).
    const items = (node.type === 'paragraph' ? cutAtTags(node as unknown as ParagraphLike) : withoutLazyTags(node)) as (Tag | B)[];
    for (let at = 0; at < items.length; at++) {
      const item = items[at]!;
      if (!isTag(item)) {
        // Blocks belong in a tab; between tabs only nothing may stand.
        if (!current) return undefined;
        current.children.push(item);
        continue;
      }
      if (!opened) {
        if (item.tag !== 'tabs') return undefined;
        opened = true;
      } else if (item.tag === 'tab' && !current) {
        current = { type: 'quireTab', title: item.title, children: [] };
      } else if (item.tag === 'endtab' && current) {
        tabs.push(current);
        current = undefined;
      } else if (item.tag === 'endtabs' && !current && tabs.length > 0) {
        return { group: { type: 'quireTabs', children: tabs }, rest: items.slice(at + 1) as B[], end: index };
      } else {
        // A tag out of place (tabs in tabs, a tab in a tab, a close with nothing open): not a tabs block.
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * The top-level blocks with every GitBook tabs block grouped; an unclosed or malformed block stays the
 * paragraphs of text it was.
 */
export function groupGitBookTabs<B extends BlockLike>(children: readonly B[]): (B | TabsGroup<B>)[] {
  const out: (B | TabsGroup<B>)[] = [];
  for (let index = 0; index < children.length; index++) {
    const node = children[index]!;
    const found = opensTabs(node) ? readTabs(children, index) : undefined;
    if (!found) {
      out.push(node);
      continue;
    }
    out.push(found.group, ...found.rest);
    index = found.end;
  }
  return out;
}

/** The tag that opens a tab titled `title`, escaped so that the title reads back as the same text. */
export function tabOpenTag(title: string): string {
  // Markdown punctuation is escaped (a `*` would become emphasis and the tag no tag); a title is one line.
  const escaped = title.replace(/[\r\n]+/g, ' ').replace(/[\\`*_[\]<>&!~{}%|#]/g, (char) => `\\${char}`);
  return `{% tab title="${escaped}" %}`;
}
export const TABS_OPEN_TAG = '{% tabs %}';
export const TABS_CLOSE_TAG = '{% endtabs %}';
export const TAB_CLOSE_TAG = '{% endtab %}';
