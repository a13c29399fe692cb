import { createHash } from 'node:crypto';
import type * as mdast from 'mdast';
import {
  DOCUMENT_SCHEMA_VERSION,
  type Doc,
  type DocBlock,
  type DocInline,
  type DocInlineContent,
  type DocCodeLine,
  type DocFragment,
  type DocLeaf,
  type DocLink,
  type DocListItem,
  type DocMark,
  type DocNode,
  type DocText,
  type DocumentRef,
  type DocParagraph,
  type DocTable,
  type FootnoteData,
  type ImageData,
  type ImageRef,
  type MarkType,
  type TableAlign,
  type TableColumn,
  type TableRecord,
  TABLE_HEADER_FRAGMENT,
  tableCellFragment,
} from './document.js';
import { parseMarkdownWithinLimits } from './limits.js';
import { classifyUrl } from './links.js';
import { alertOf, collectDefinitions, groupGitBookBlocks, reusableIncludeOf, type GitBookBlock } from './syntax.js';

/*
 * Markdown to Document. Markdown is what Quire stores (it is what clients write, what Git holds and what
 * merges line by line); the rich document of the API is derived from it on read, here.
 */

export interface MarkdownOptions {
  /** Path of the page holding the markdown, to resolve relative links (as a browser would at `/<pagePath>`). */
  pagePath?: string;
  /** Turns a space path into a page id, so that links by path become page references. */
  resolvePagePath?: (path: string) => string | undefined;
  /** Names the markdown in the message of a content limit it passes, e.g. `the page's markdown`. */
  what?: string;
}

/**
 * The document of markdown. Markdown past the content limits (stored before they existed) is refused with
 * ContentError `content_limit` naming the limit: its conversion would overflow the stack.
 */
export function markdownToDocument(markdown: string, options: MarkdownOptions = {}): Doc {
  const tree = parseMarkdownWithinLimits(markdown, options.what);
  const context: ConvertContext = { options, definitions: collectDefinitions(tree) };
  const nodes = convertBlocks(groupGitBookBlocks(tree.children), context);
  assignKeys(nodes, '');
  return { object: 'document', data: { schemaVersion: DOCUMENT_SCHEMA_VERSION }, nodes };
}

interface ConvertContext {
  options: MarkdownOptions;
  definitions: Map<string, mdast.Definition>;
}

function convertBlocks(children: readonly GitBookBlock[], context: ConvertContext): DocBlock[] {
  const out: DocBlock[] = [];
  for (const child of children) {
    const block = convertBlock(child, context);
    if (block) out.push(block);
  }
  return out;
}

/** `data` only when it holds something: the document leaves empty data out. */
function withData<T extends object, D extends object>(node: T, data: D | undefined): T & { data?: D } {
  return data && Object.keys(data).length > 0 ? { ...node, data } : node;
}

function convertBlock(node: GitBookBlock, context: ConvertContext): DocBlock | undefined {
  switch (node.type) {
    case 'paragraph': {
      const images = imagesOnly(node);
      if (images) {
        return {
          object: 'block',
          type: 'images',
          isVoid: false,
          data: {},
          nodes: images.map((image) => ({ object: 'block', type: 'image', isVoid: true, nodes: [], data: imageData(image.url, image.alt, image.title, context), fragments: [] })),
        };
      }
      const reusable = reusableIncludeOf(node);
      if (reusable !== undefined) {
        return { object: 'block', type: 'reusable-content', isVoid: true, nodes: [], data: { ref: { kind: 'reusable-content', reusableContent: reusable } } };
      }
      return { object: 'block', type: 'paragraph', nodes: convertInlines(node.children, context) };
    }
    case 'heading': {
      const nodes = convertInlines(node.children, context);
      if (node.depth <= 3) return { object: 'block', type: `heading-${node.depth as 1 | 2 | 3}`, data: {}, nodes };
      return { object: 'block', type: 'heading-3', data: { level: node.depth as 4 | 5 | 6 }, nodes };
    }
    case 'thematicBreak':
      return { object: 'block', type: 'divider', isVoid: true, data: {}, nodes: [] };
    case 'blockquote': {
      const alert = alertOf(node);
      if (alert) return { object: 'block', type: 'hint', nodes: convertBlocks(alert.children, context), data: { style: alert.style, alert: alert.marker } };
      return { object: 'block', type: 'blockquote', nodes: convertBlocks(node.children, context) };
    }
    case 'quireHint':
      return { object: 'block', type: 'hint', nodes: convertBlocks(node.children, context), data: { style: node.style } };
    case 'quireTabs':
      return {
        object: 'block',
        type: 'tabs',
        nodes: node.children.map((tab) => ({ object: 'block', type: 'tabs-item', data: { title: tab.title }, nodes: convertBlocks(tab.children, context) })),
      };
    case 'list': {
      const tasks = node.children.some((item) => typeof item.checked === 'boolean');
      // Looseness is the list's (blank lines between items), kept on each item: the public format's lists
      // take no data of their own beyond an ordered list's start.
      const spread = node.spread === true || node.children.some((item) => item.spread === true);
      const items = node.children.map((item): DocListItem => {
        const itemData: { checked?: boolean; spread?: boolean } = {};
        if (typeof item.checked === 'boolean') itemData.checked = item.checked;
        if (spread) itemData.spread = true;
        return withData({ object: 'block', type: 'list-item', nodes: convertBlocks(item.children, context) } as const, itemData);
      });
      // A numbered task list is a numbered list whose items are checked or not.
      if (node.ordered) {
        return { object: 'block', type: 'list-ordered', data: typeof node.start === 'number' && node.start !== 1 ? { start: node.start } : {}, nodes: items };
      }
      return { object: 'block', type: tasks ? 'list-tasks' : 'list-unordered', nodes: items };
    }
    case 'code': {
      const data: { syntax?: string; meta?: string } = {};
      if (node.lang) data.syntax = node.lang;
      if (node.meta) data.meta = node.meta;
      const lines = node.value.split('\n').map((line): DocCodeLine => ({ object: 'block', type: 'code-line', data: {}, nodes: [text([leaf(line, [])])] }));
      return { object: 'block', type: 'code', data, nodes: lines };
    }
    case 'html':
      return { object: 'block', type: 'html', isVoid: true, nodes: [], data: { html: node.value } };
    case 'table':
      return convertTable(node, context);
    case 'footnoteDefinition':
      return { object: 'block', type: 'footnote', nodes: convertBlocks(node.children, context), data: footnoteData(node) };
    case 'definition':
      // Link definitions are folded into the links that use them.
      return undefined;
    case 'yaml':
    default:
      return undefined;
  }
}

const ORDER_INDEX_WIDTH = 6;

/** A markdown table as the public format's void table: columns, records, and each cell in a fragment. */
function convertTable(node: mdast.Table, context: ConvertContext): DocTable {
  const [header, ...rows] = node.children;
  const width = Math.max(0, ...node.children.map((row) => row.children.length));
  const columnIds = Array.from({ length: width }, (_, index) => `c${index}`);
  const fragments: DocFragment[] = [];
  const paragraphOf = (cell: mdast.TableCell | undefined): DocParagraph => ({ object: 'block', type: 'paragraph', nodes: cell ? convertInlines(cell.children, context) : [] });
  const definition: Record<string, TableColumn> = {};
  columnIds.forEach((id, index) => {
    const cell = paragraphOf(header?.children[index]);
    const plain = cell.nodes.every((child) => child.object === 'text' && child.leaves.every((item) => item.marks.length === 0));
    const title = cell.nodes.map((child) => (child.object === 'text' ? child.leaves.map((item) => item.text).join('') : '')).join('');
    // Titles are plain text; a header cell with formatting or links also keeps its content in a fragment.
    if (!plain) fragments.push({ object: 'fragment', fragment: `${TABLE_HEADER_FRAGMENT}${id}`, nodes: [cell] });
    const align: TableAlign = node.align?.[index] === 'center' || node.align?.[index] === 'right' ? node.align[index] : 'left';
    definition[id] = { id, title, type: 'text', textAlignment: align };
  });
  const records: Record<string, TableRecord> = {};
  rows.forEach((row, rowIndex) => {
    const recordId = `r${rowIndex}`;
    const values: Record<string, string> = {};
    columnIds.forEach((columnId, index) => {
      const fragment = tableCellFragment(recordId, columnId);
      values[columnId] = fragment;
      fragments.push({ object: 'fragment', fragment, nodes: [paragraphOf(row.children[index])] });
    });
    records[recordId] = { orderIndex: String(rowIndex).padStart(ORDER_INDEX_WIDTH, '0'), values };
  });
  // A header row with nothing in it is a table without a header.
  const hideHeader = width > 0 && Object.values(definition).every((column) => column.title === '') && !fragments.some((fragment) => fragment.fragment.startsWith(TABLE_HEADER_FRAGMENT));
  return {
    object: 'block',
    type: 'table',
    isVoid: true,
    nodes: [],
    data: { view: { type: 'grid', columns: columnIds, hideHeader }, records, definition },
    fragments,
  };
}

function footnoteData(node: { identifier: string; label?: string | null | undefined }): FootnoteData {
  return node.label && node.label !== node.identifier ? { identifier: node.identifier, label: node.label } : { identifier: node.identifier };
}

function imagesOnly(paragraph: mdast.Paragraph): { url: string; alt: string | null | undefined; title: string | null | undefined }[] | undefined {
  const images: { url: string; alt: string | null | undefined; title: string | null | undefined }[] = [];
  for (const child of paragraph.children) {
    if (child.type === 'image') images.push({ url: child.url, alt: child.alt, title: child.title });
    else if (child.type === 'text' && child.value.trim() === '') continue;
    else return undefined;
  }
  return images.length > 0 ? images : undefined;
}

function leaf(textValue: string, marks: readonly MarkType[]): DocLeaf {
  return { object: 'leaf', text: textValue, marks: marks.map((type) => ({ object: 'mark', type })) };
}

function text(leaves: DocLeaf[]): DocText {
  return { object: 'text', leaves };
}

function imageData(url: string, alt: string | null | undefined, title: string | null | undefined, context: ConvertContext): ImageData {
  const data: ImageData = { src: url, ref: imageRef(url, context) };
  if (alt) data.alt = alt;
  if (title) data.title = title;
  return data;
}

/** An image shows a file of the space or a URL (the public format's image references), nothing else. */
function imageRef(url: string, context: ConvertContext): ImageRef {
  const ref = documentRef(url, context);
  return ref.kind === 'file' || ref.kind === 'url' ? ref : { kind: 'url', url };
}

/** The `ref` of a link or image in the document: a page or file of the space when known, else the URL. */
function documentRef(url: string, context: ConvertContext): DocumentRef {
  const target = classifyUrl(url, context.options.pagePath);
  switch (target.kind) {
    case 'page':
      return target.anchor ? { kind: 'page', page: target.page, anchor: target.anchor } : { kind: 'page', page: target.page };
    case 'file':
      return { kind: 'file', file: target.file };
    case 'anchor':
      return { kind: 'anchor', anchor: target.anchor };
    case 'page-path': {
      const page = context.options.resolvePagePath?.(target.path);
      if (page !== undefined) return target.anchor ? { kind: 'page', page, anchor: target.anchor } : { kind: 'page', page };
      return { kind: 'url', url };
    }
    default:
      return { kind: 'url', url };
  }
}

type Run = { leaf: DocLeaf } | { inline: DocInline };

function convertInlines(children: readonly mdast.PhrasingContent[], context: ConvertContext): DocInlineContent[] {
  const runs: Run[] = [];
  collectRuns(children, [], context, runs);
  return groupRuns(runs);
}

function collectRuns(children: readonly mdast.PhrasingContent[], marks: MarkType[], context: ConvertContext, runs: Run[]): void {
  for (const child of children) {
    switch (child.type) {
      case 'text':
        runs.push({ leaf: leaf(child.value, marks) });
        break;
      case 'inlineCode':
        runs.push({ leaf: leaf(child.value, [...marks, 'code']) });
        break;
      case 'emphasis':
        collectRuns(child.children, withMark(marks, 'italic'), context, runs);
        break;
      case 'strong':
        collectRuns(child.children, withMark(marks, 'bold'), context, runs);
        break;
      case 'delete':
        collectRuns(child.children, withMark(marks, 'strikethrough'), context, runs);
        break;
      case 'break':
        runs.push({ inline: { object: 'inline', type: 'break', nodes: [], isVoid: true } });
        break;
      case 'link':
        runs.push({ inline: linkInline(child.url, child.title, child.children, marks, context) });
        break;
      case 'linkReference': {
        const definition = context.definitions.get(child.identifier);
        if (definition) runs.push({ inline: linkInline(definition.url, definition.title, child.children, marks, context) });
        else collectRuns(child.children, marks, context, runs);
        break;
      }
      case 'image':
        runs.push({ inline: { object: 'inline', type: 'inline-image', nodes: [], isVoid: true, data: imageData(child.url, child.alt, child.title, context) } });
        break;
      case 'imageReference': {
        const definition = context.definitions.get(child.identifier);
        if (definition) {
          runs.push({ inline: { object: 'inline', type: 'inline-image', nodes: [], isVoid: true, data: imageData(definition.url, child.alt, definition.title, context) } });
        } else {
          runs.push({ leaf: leaf(child.alt ?? '', marks) });
        }
        break;
      }
      case 'html':
        runs.push({ inline: { object: 'inline', type: 'html', nodes: [], isVoid: true, data: { html: child.value } } });
        break;
      case 'footnoteReference':
        runs.push({ inline: { object: 'inline', type: 'footnote-ref', nodes: [], isVoid: true, data: footnoteData(child) } });
        break;
      default:
        break;
    }
  }
}

function withMark(marks: MarkType[], mark: MarkType): MarkType[] {
  return marks.includes(mark) ? marks : [...marks, mark];
}

function linkInline(
  url: string,
  title: string | null | undefined,
  children: readonly mdast.PhrasingContent[],
  marks: MarkType[],
  context: ConvertContext,
): DocLink {
  const runs: Run[] = [];
  collectRuns(children, marks, context, runs);
  const data: DocLink['data'] = { href: url, ref: documentRef(url, context) };
  if (title) data.title = title;
  return { object: 'inline', type: 'link', nodes: groupRuns(runs), data };
}

/** Consecutive leaves form one text node; neighbouring leaves with the same marks become one leaf. */
function groupRuns(runs: readonly Run[]): DocInlineContent[] {
  const nodes: DocInlineContent[] = [];
  let current: DocText | undefined;
  for (const run of runs) {
    if ('inline' in run) {
      current = undefined;
      nodes.push(run.inline);
      continue;
    }
    if (!current) {
      current = text([]);
      nodes.push(current);
    }
    const previous = current.leaves[current.leaves.length - 1];
    if (previous && sameMarks(previous.marks, run.leaf.marks)) previous.text += run.leaf.text;
    else current.leaves.push({ ...run.leaf, marks: sortMarks(run.leaf.marks) });
  }
  return nodes;
}

const MARK_ORDER: readonly MarkType[] = ['bold', 'italic', 'strikethrough', 'code'];

function sortMarks(marks: readonly DocMark[]): DocMark[] {
  return [...marks].sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
}

function sameMarks(a: readonly DocMark[], b: readonly DocMark[]): boolean {
  return a.length === b.length && a.every((mark) => b.some((other) => other.type === mark.type));
}

const MAX_KEY_LENGTH = 128;

/**
 * Keys are the node's position (indices from the top, joined by dots), so the same markdown always gives
 * the same keys and an edit further down keeps the keys of the nodes above it. Positions so deep that the
 * key would pass the contract's 128 characters are replaced by a digest of the position.
 */
function assignKeys(nodes: readonly DocNode[], prefix: string): void {
  nodes.forEach((node, index) => {
    const position = prefix ? `${prefix}.${index}` : String(index);
    node.key = keyOf(position);
    if (node.object !== 'text') assignKeys(node.nodes, position);
    // Fragments' nodes are positioned after the node's own children: `<position>.f<fragment index>...`.
    if ('fragments' in node) {
      node.fragments.forEach((fragment, index) => {
        const fragmentPosition = `${position}.f${index}`;
        fragment.key = keyOf(fragmentPosition);
        assignKeys(fragment.nodes, fragmentPosition);
      });
    }
  });
}

function keyOf(position: string): string {
  return position.length < MAX_KEY_LENGTH ? position : `h${createHash('sha256').update(position).digest('hex').slice(0, 32)}`;
}
