import type { JSONDocument } from '@quire/api-types';
import type * as mdast from 'mdast';
import type { Options as ToMarkdownOptions } from 'mdast-util-to-markdown';
import { printGfm } from '../markdown-libraries.js';
import { TABLE_HEADER_FRAGMENT } from './document.js';
import { TAB_CLOSE_TAG, TABS_CLOSE_TAG, TABS_OPEN_TAG, tabOpenTag } from '@quire/markdown-rules';
import { ALERT_FOR_STYLE, ALERT_STYLES, reusableIncludeTag } from './syntax.js';

/*
 * Document to markdown: what a document written by a client (a page or comment body in `document` form)
 * is stored as. The input is any contract document, not only what `markdownToDocument` makes, so nodes are
 * read loosely here (unknown types keep their content) rather than as the typed union.
 */

/** A node of a contract document as a client may send it. */
interface LooseNode {
  object: string;
  type?: string;
  /** Absent on text nodes, which hold `leaves`; checked by `object` before use. */
  nodes: LooseNode[];
  leaves?: { text: string; marks?: { type: string }[] }[];
  data?: Record<string, unknown>;
  /** Content of a void block outside its children (table cells), by the id its `data` refers to. */
  fragments?: { fragment?: string; nodes?: LooseNode[] }[];
}

function childrenOf(node: LooseNode): LooseNode[] {
  return Array.isArray(node.nodes) ? node.nodes : [];
}

function looseText(node: LooseNode): string {
  if (node.object === 'text') return (node.leaves ?? []).map((item) => item.text).join('');
  return childrenOf(node).map(looseText).join('');
}


const TO_MARKDOWN_OPTIONS: Omit<ToMarkdownOptions, 'extensions'> = {
  bullet: '-',
  rule: '-',
  fence: '`',
  fences: true,
  listItemIndent: 'one',
  emphasis: '*',
  strong: '*',
};

/** Markdown for a document made by `markdownToDocument` (the parser's round trip). */
export function documentToMarkdown(document: Pick<JSONDocument, 'nodes'>): string {
  const root: mdast.Root = { type: 'root', children: blocksToMdast(document.nodes as LooseNode[], true) };
  return printGfm(root, TO_MARKDOWN_OPTIONS);
}

/** `top`: the blocks are the document's own, where tabs may stand (markdown reads their tags nowhere else). */
function blocksToMdast(nodes: readonly LooseNode[], top = false): mdast.RootContent[] {
  const out: mdast.RootContent[] = [];
  for (const node of nodes) {
    if (node.object === 'block') out.push(...(top && node.type === 'tabs' ? tabsToMdast(node) : blockToMdast(node)));
    else out.push({ type: 'paragraph', children: inlinesToMdast([node]) });
  }
  return out;
}

function stringData(node: LooseNode, name: string): string | undefined {
  const value = node.data?.[name];
  return typeof value === 'string' ? value : undefined;
}

function blockToMdast(node: LooseNode): mdast.RootContent[] {
  const heading = /^heading-([1-6])$/.exec(node.type ?? '');
  if (heading) {
    // Markdown's fourth to sixth levels come as `heading-3` with `data.level` (the public format has three).
    const level = node.data?.level;
    const depth = Number(heading[1]) === 3 && (level === 4 || level === 5 || level === 6) ? level : Number(heading[1]);
    return [{ type: 'heading', depth: depth as 1 | 2 | 3 | 4 | 5 | 6, children: inlinesToMdast(childrenOf(node)) }];
  }
  switch (node.type) {
    case 'paragraph':
      return [{ type: 'paragraph', children: inlinesToMdast(node.nodes) }];
    case 'divider':
      return [{ type: 'thematicBreak' }];
    case 'blockquote':
      return [{ type: 'blockquote', children: blocksToMdast(node.nodes) as mdast.BlockContent[] }];
    case 'hint': {
      const style = stringData(node, 'style') ?? 'info';
      const children = blocksToMdast(node.nodes) as mdast.BlockContent[];
      const alert = stringData(node, 'alert');
      if (alert === undefined) {
        // Written back in GitBook's own syntax, which is where hints without an alert marker come from.
        return [
          { type: 'html', value: `{% hint style="${style.replace(/[^a-z]/g, '')}" %}` },
          ...children,
          { type: 'html', value: '{% endhint %}' },
        ];
      }
      const marker = ALERT_STYLES[alert] ? alert : ALERT_FOR_STYLE[style] ?? 'NOTE';
      const first = children[0];
      // Raw (an html node) because as text the serializer would escape the bracket, and `\[!NOTE]` is no alert.
      const markerNode: mdast.Html = { type: 'html', value: `[!${marker}]` };
      if (first?.type === 'paragraph') {
        const lead: mdast.PhrasingContent[] = first.children.length > 0 ? [{ ...markerNode, value: `[!${marker}]\n` }] : [markerNode];
        return [{ type: 'blockquote', children: [{ ...first, children: [...lead, ...first.children] }, ...children.slice(1)] }];
      }
      return [{ type: 'blockquote', children: [{ type: 'paragraph', children: [markerNode] }, ...children] }];
    }
    case 'list-ordered':
    case 'list-unordered':
    case 'list-tasks': {
      // `ordered` on a task list is what earlier versions wrote for numbered task lists.
      const ordered = node.type === 'list-ordered' || (node.type === 'list-tasks' && node.data?.ordered === true);
      const start = typeof node.data?.start === 'number' ? node.data.start : 1;
      const items: mdast.ListItem[] = childrenOf(node).map((item) => {
        const data = item.object === 'block' ? item.data : undefined;
        const children = item.object === 'block' && item.type === 'list-item' ? blocksToMdast(item.nodes) : blocksToMdast([item]);
        return {
          type: 'listItem',
          spread: data?.spread === true,
          checked: typeof data?.checked === 'boolean' ? data.checked : null,
          children: children as mdast.BlockContent[],
        };
      });
      // A loose list is one whose items are spread (blank lines between them).
      const spread = node.data?.spread === true || items.some((item) => item.spread);
      return [{ type: 'list', ordered, start: ordered ? start : null, spread, children: items }];
    }
    case 'code': {
      const lines = node.nodes.map((line) => looseText(line));
      return [{ type: 'code', lang: stringData(node, 'syntax') ?? null, meta: stringData(node, 'meta') ?? null, value: lines.join('\n') }];
    }
    case 'html':
      return [{ type: 'html', value: stringData(node, 'html') ?? '' }];
    case 'reusable-content': {
      const ref = node.data?.ref as { reusableContent?: unknown } | undefined;
      const tag = typeof ref?.reusableContent === 'string' ? reusableIncludeTag(ref.reusableContent) : undefined;
      return tag === undefined ? [] : [{ type: 'html', value: tag }];
    }
    case 'images':
      return [
        {
          type: 'paragraph',
          children: node.nodes.flatMap((image, index): mdast.PhrasingContent[] => {
            const mdImage = image.object === 'text' ? undefined : imageToMdast(image);
            if (!mdImage) return [];
            return index > 0 ? [{ type: 'text', value: ' ' }, mdImage] : [mdImage];
          }),
        },
      ];
    case 'image': {
      const mdImage = imageToMdast(node);
      return mdImage ? [{ type: 'paragraph', children: [mdImage] }] : [];
    }
    case 'table':
      return [tableToMdast(node)];
    case 'footnote':
      return [
        {
          type: 'footnoteDefinition',
          identifier: stringData(node, 'identifier') ?? '',
          label: stringData(node, 'label') ?? stringData(node, 'identifier') ?? '',
          children: blocksToMdast(node.nodes) as mdast.BlockContent[],
        },
      ];
    default: {
      // Block types this module does not produce: keep their content rather than lose it.
      if (node.nodes.some((child) => child.object === 'block')) return blocksToMdast(node.nodes);
      return node.nodes.length > 0 ? [{ type: 'paragraph', children: inlinesToMdast(node.nodes) }] : [];
    }
  }
}

/**
 * Tabs in GitBook's tags (blank lines between, so that each tag is a paragraph of its own). A tabs block
 * without tabs is written as nothing: its tags alone would read back as text. Children that are not tabs
 * (documents of other producers) become untitled tabs. Tabs nested elsewhere (in a list, a quote, a tab),
 * which markdown cannot hold, keep their content through blockToMdast's default.
 */
function tabsToMdast(node: LooseNode): mdast.RootContent[] {
  const tabs = childrenOf(node);
  if (tabs.length === 0) return [];
  const out: mdast.RootContent[] = [{ type: 'html', value: TABS_OPEN_TAG }];
  for (const tab of tabs) {
    const isItem = tab.object === 'block' && tab.type === 'tabs-item';
    out.push({ type: 'html', value: tabOpenTag(isItem ? stringData(tab, 'title') ?? '' : '') });
    out.push(...(isItem ? blocksToMdast(childrenOf(tab)) : blocksToMdast([tab])));
    out.push({ type: 'html', value: TAB_CLOSE_TAG });
  }
  out.push({ type: 'html', value: TABS_CLOSE_TAG });
  return out;
}

/**
 * A table: the public format's void table (columns in `data.definition` ordered by `data.view.columns`, rows
 * in `data.records` by `orderIndex`, each cell's content in the fragment its value names), or rows of cells
 * as child nodes (`table-row` blocks holding `table-cell` blocks), which earlier versions answered.
 */
function tableToMdast(node: LooseNode): mdast.Table {
  const cellOf = (children: LooseNode[]): mdast.TableCell => ({ type: 'tableCell', children: inlinesOfCell({ object: 'block', nodes: children }) });
  if (childrenOf(node).length > 0) {
    const rawAligns = Array.isArray(node.data?.aligns) ? (node.data.aligns as unknown[]) : [];
    const align = rawAligns.map((value) => (value === 'left' || value === 'right' || value === 'center' ? value : null));
    const rows: mdast.TableRow[] = childrenOf(node).map((row) => ({
      type: 'tableRow',
      children: (row.object === 'text' ? [] : childrenOf(row)).map((cell) => (cell.object === 'text' ? cellOf([cell]) : cellOf(childrenOf(cell)))),
    }));
    return { type: 'table', align, children: rows };
  }
  const data = node.data ?? {};
  const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  const definition = record(data.definition);
  const view = record(data.view);
  const columns = (Array.isArray(view.columns) ? view.columns : Object.keys(definition)).filter((id): id is string => typeof id === 'string');
  const fragments = new Map<string, LooseNode[]>();
  for (const fragment of Array.isArray(node.fragments) ? node.fragments : []) {
    if (typeof fragment?.fragment === 'string' && Array.isArray(fragment.nodes)) fragments.set(fragment.fragment, fragment.nodes);
  }
  const textCell = (value: string): mdast.TableCell => ({ type: 'tableCell', children: value ? [{ type: 'text', value }] : [] });
  const valueCell = (value: unknown): mdast.TableCell => {
    if (typeof value === 'string') return fragments.has(value) ? cellOf(fragments.get(value)!) : textCell(value);
    if (typeof value === 'number' || typeof value === 'boolean') return textCell(String(value));
    return textCell('');
  };
  const header: mdast.TableRow = {
    type: 'tableRow',
    children: columns.map((id) => {
      const formatted = fragments.get(`${TABLE_HEADER_FRAGMENT}${id}`);
      if (formatted) return cellOf(formatted);
      const title = record(definition[id]).title;
      return textCell(view.hideHeader === true || typeof title !== 'string' ? '' : title);
    }),
  };
  const orderOf = (value: unknown): string => {
    const orderIndex = record(value).orderIndex;
    return typeof orderIndex === 'string' ? orderIndex : '';
  };
  const rows = Object.values(record(data.records))
    .sort((a, b) => (orderOf(a) < orderOf(b) ? -1 : orderOf(a) > orderOf(b) ? 1 : 0))
    .map((row): mdast.TableRow => ({ type: 'tableRow', children: columns.map((id) => valueCell(record(record(row).values)[id])) }));
  // Left is how an unaligned column shows, so it is written as no alignment.
  const align = columns.map((id) => {
    const value = record(definition[id]).textAlignment;
    return value === 'right' || value === 'center' ? value : null;
  });
  return { type: 'table', align, children: [header, ...rows] };
}

/** A table cell holds inlines; a cell made elsewhere may wrap them in paragraphs, which GFM cannot hold. */
function inlinesOfCell(cell: LooseNode): mdast.PhrasingContent[] {
  const children = childrenOf(cell);
  if (!children.some((child) => child.object === 'block')) return inlinesToMdast(children);
  const parts: mdast.PhrasingContent[] = [];
  for (const child of children) {
    if (parts.length > 0) parts.push({ type: 'text', value: ' ' });
    parts.push(...(child.object === 'block' ? inlinesToMdast(childrenOf(child)) : inlinesToMdast([child])));
  }
  return parts;
}

function imageToMdast(node: LooseNode): mdast.Image | undefined {
  const url = stringData(node, 'src') ?? refToUrl(node.data?.ref);
  if (url === undefined) return undefined;
  return { type: 'image', url, alt: stringData(node, 'alt') ?? null, title: stringData(node, 'title') ?? null };
}

/** The markdown URL for a document `ref` that carries no original URL (documents made by other producers). */
function refToUrl(ref: unknown): string | undefined {
  if (typeof ref !== 'object' || ref === null) return undefined;
  const value = ref as Record<string, unknown>;
  const anchor = typeof value.anchor === 'string' ? `#${value.anchor}` : '';
  if (value.kind === 'url' && typeof value.url === 'string') return value.url;
  if (value.kind === 'page' && typeof value.page === 'string') return `/pages/${value.page}${anchor}`;
  if (value.kind === 'file' && typeof value.file === 'string') return `/files/${value.file}`;
  if (value.kind === 'anchor' && typeof value.anchor === 'string') return anchor;
  return undefined;
}

function inlinesToMdast(nodes: readonly LooseNode[]): mdast.PhrasingContent[] {
  const out: mdast.PhrasingContent[] = [];
  for (const node of nodes) {
    if (node.object === 'text') {
      out.push(...leavesToMdast((node.leaves ?? []).map((item) => ({ text: item.text, marks: (item.marks ?? []).map((mark) => mark.type) }))));
      continue;
    }
    switch (node.type) {
      case 'link': {
        const url = stringData(node, 'href') ?? refToUrl(node.data?.ref) ?? '';
        out.push({ type: 'link', url, title: stringData(node, 'title') ?? null, children: inlinesToMdast(node.nodes) });
        break;
      }
      case 'inline-image': {
        const image = imageToMdast(node);
        if (image) out.push(image);
        break;
      }
      case 'break':
        out.push({ type: 'break' });
        break;
      case 'html':
        out.push({ type: 'html', value: stringData(node, 'html') ?? '' });
        break;
      case 'footnote-ref': {
        const identifier = stringData(node, 'identifier') ?? '';
        out.push({ type: 'footnoteReference', identifier, label: stringData(node, 'label') ?? identifier });
        break;
      }
      default:
        out.push(...inlinesToMdast(node.nodes));
    }
  }
  return out;
}

interface PlainLeaf {
  text: string;
  marks: string[];
}

/**
 * Rebuilds nested emphasis from flat leaves: at each step the mark of the first leaf that runs longest is
 * opened around its whole run, so `**a *b***` (leaves a:bold, b:bold+italic) comes back as written instead
 * of as `**a*****b***`. Code is innermost because markdown code spans cannot hold other formatting.
 */
function leavesToMdast(leaves: readonly PlainLeaf[]): mdast.PhrasingContent[] {
  const out: mdast.PhrasingContent[] = [];
  let i = 0;
  while (i < leaves.length) {
    const first = leaves[i]!;
    const wrappers = first.marks.filter((mark) => mark !== 'code');
    if (wrappers.length === 0) {
      if (first.marks.includes('code')) out.push({ type: 'inlineCode', value: first.text });
      else if (first.text) out.push({ type: 'text', value: first.text });
      i++;
      continue;
    }
    let best = wrappers[0]!;
    let bestEnd = i + 1;
    for (const mark of wrappers) {
      let end = i + 1;
      while (end < leaves.length && leaves[end]!.marks.includes(mark)) end++;
      if (end > bestEnd) {
        best = mark;
        bestEnd = end;
      }
    }
    const inner = leavesToMdast(
      leaves.slice(i, bestEnd).map((item) => ({ text: item.text, marks: item.marks.filter((mark) => mark !== best) })),
    );
    if (best === 'bold') out.push({ type: 'strong', children: inner });
    else if (best === 'italic') out.push({ type: 'emphasis', children: inner });
    else if (best === 'strikethrough') out.push({ type: 'delete', children: inner });
    else out.push(...inner);
    i = bestEnd;
  }
  return out;
}

