import { createHash } from 'node:crypto';
import type { JSONDocument } from '@quire/api-types';
import type * as mdast from 'mdast';
import type { Options as ToMarkdownOptions } from 'mdast-util-to-markdown';
import { parseGfm, printGfm } from './markdown-libraries.js';

/*
 * Markdown is what Quire stores (it is what clients write, what Git holds and what merges line by line);
 * the rich document of the API is derived from it on read. This module converts between the two, and reads
 * the links and sections out of markdown for the links/backlinks and search features.
 */

/** Version of the document tree this module produces, carried in `data.schemaVersion`. */
export const DOCUMENT_SCHEMA_VERSION = 1;

export type MarkType = 'bold' | 'italic' | 'strikethrough' | 'code';

export interface DocMark {
  object: 'mark';
  type: MarkType;
}
export interface DocLeaf {
  object: 'leaf';
  text: string;
  marks: DocMark[];
}
export interface DocText {
  object: 'text';
  key?: string;
  leaves: DocLeaf[];
}
export interface DocInline {
  object: 'inline';
  type: string;
  key?: string;
  nodes: DocNode[];
  isVoid?: boolean;
  data?: Record<string, unknown>;
}
export interface DocBlock {
  object: 'block';
  type: string;
  key?: string;
  nodes: DocNode[];
  isVoid?: boolean;
  data?: Record<string, unknown>;
}
export type DocNode = DocBlock | DocInline | DocText;
export interface Doc {
  object: 'document';
  data: { schemaVersion: number } & Record<string, unknown>;
  nodes: DocBlock[];
}

// Compile-time proof that what this module produces is the contract's JSONDocument.
const asContractDocument = (doc: Doc): JSONDocument => doc;
void asContractDocument;

/** Where a link or image points, as far as the markdown alone tells. */
export type ReferenceTarget =
  | { kind: 'url'; url: string }
  | { kind: 'anchor'; anchor: string }
  | { kind: 'page'; page: string; anchor?: string }
  /** A path of a page of the space (slugs joined by `/`), resolved against the linking page's path. */
  | { kind: 'page-path'; path: string; anchor?: string }
  | { kind: 'file'; file: string }
  /** A file by its repository path, e.g. `.gitbook/assets/diagram.png` (Git-synced content). */
  | { kind: 'asset'; path: string }
  /** `ref:<label>`: a page or file created earlier in the same change batch. */
  | { kind: 'ref'; label: string };

export interface MarkdownOptions {
  /** Path of the page holding the markdown, to resolve relative links (as a browser would at `/<pagePath>`). */
  pagePath?: string;
  /** Turns a space path into a page id, so that links by path become page references. */
  resolvePagePath?: (path: string) => string | undefined;
}

// ----- parsing -----

export function parseMarkdown(markdown: string): mdast.Root {
  return parseGfm(markdown);
}

export function markdownToDocument(markdown: string, options: MarkdownOptions = {}): Doc {
  const tree = parseMarkdown(markdown);
  const context: ConvertContext = { options, definitions: collectDefinitions(tree) };
  const nodes = convertBlocks(groupGitBookHints(tree.children), context);
  assignKeys(nodes, '');
  return { object: 'document', data: { schemaVersion: DOCUMENT_SCHEMA_VERSION }, nodes };
}

interface ConvertContext {
  options: MarkdownOptions;
  definitions: Map<string, mdast.Definition>;
}

function collectDefinitions(tree: mdast.Root): Map<string, mdast.Definition> {
  const definitions = new Map<string, mdast.Definition>();
  visit(tree, (node) => {
    // The first definition of a label wins, as in CommonMark.
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node);
  });
  return definitions;
}

function visit(node: mdast.Nodes, fn: (node: mdast.Nodes) => void): void {
  fn(node);
  if ('children' in node) for (const child of node.children as mdast.Nodes[]) visit(child, fn);
}

/** A GitBook hint (`{% hint style="info" %}` ... `{% endhint %}`) found among the top-level blocks. */
interface HintGroup {
  type: 'quireHint';
  style: string;
  children: mdast.BlockContent[];
}

const HINT_OPEN = /^\{%\s*hint\s+style="([a-z]+)"\s*%\}[ \t]*(?:\n|$)/;
const HINT_CLOSE = /(?:^|\n)[ \t]*\{%\s*endhint\s*%\}\s*$/;

/**
 * GitBook writes hints as template tags that CommonMark reads as paragraph text. Repositories synced from
 * GitBook are full of them, so they are recognised here: either within one paragraph (no blank lines) or as
 * an opening paragraph, blocks, and a closing paragraph. Anything unclosed is left as the text it is.
 */
function groupGitBookHints(children: mdast.RootContent[]): (mdast.RootContent | HintGroup)[] {
  const out: (mdast.RootContent | HintGroup)[] = [];
  for (let i = 0; i < children.length; i++) {
    const node = children[i]!;
    const open = node.type === 'paragraph' ? matchHintOpen(node) : undefined;
    if (!open) {
      out.push(node);
      continue;
    }
    const [style, first] = open;
    const collected: mdast.BlockContent[] = [];
    let closedAt = -1;
    if (first) {
      const closed = stripHintClose(first);
      if (closed !== undefined) {
        if (closed) collected.push(closed);
        closedAt = i;
      } else {
        collected.push(first);
      }
    }
    for (let j = i + 1; closedAt < 0 && j < children.length; j++) {
      const next = children[j]!;
      const closed = next.type === 'paragraph' ? stripHintClose(next) : undefined;
      if (closed !== undefined) {
        if (closed) collected.push(closed);
        closedAt = j;
      } else {
        collected.push(next as mdast.BlockContent);
      }
    }
    if (closedAt < 0) {
      out.push(node);
      continue;
    }
    out.push({ type: 'quireHint', style, children: collected });
    i = closedAt;
  }
  return out;
}

/** The hint style and the rest of the paragraph (undefined when nothing is left), if it opens a hint. */
function matchHintOpen(paragraph: mdast.Paragraph): [string, mdast.Paragraph | undefined] | undefined {
  const first = paragraph.children[0];
  if (first?.type !== 'text') return undefined;
  const match = HINT_OPEN.exec(first.value);
  if (!match) return undefined;
  const rest = first.value.slice(match[0].length);
  const children = rest ? [{ ...first, value: rest }, ...paragraph.children.slice(1)] : paragraph.children.slice(1);
  return [match[1]!, children.length > 0 ? { ...paragraph, children } : undefined];
}

/** The paragraph without a trailing `{% endhint %}` (null when nothing is left), or undefined if it has none. */
function stripHintClose(paragraph: mdast.Paragraph): mdast.Paragraph | null | undefined {
  const last = paragraph.children[paragraph.children.length - 1];
  if (last?.type !== 'text') return undefined;
  const match = HINT_CLOSE.exec(last.value);
  if (!match) return undefined;
  const rest = last.value.slice(0, match.index);
  const children = rest ? [...paragraph.children.slice(0, -1), { ...last, value: rest }] : paragraph.children.slice(0, -1);
  return children.length > 0 ? { ...paragraph, children } : null;
}

const ALERT_STYLES: Record<string, string> = {
  NOTE: 'info',
  TIP: 'success',
  IMPORTANT: 'info',
  WARNING: 'warning',
  CAUTION: 'danger',
};
const ALERT_FOR_STYLE: Record<string, string> = { info: 'NOTE', success: 'TIP', warning: 'WARNING', danger: 'CAUTION' };
const ALERT_MARKER = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(?:\n|$)/;

function convertBlocks(children: readonly (mdast.RootContent | HintGroup)[], context: ConvertContext): DocBlock[] {
  const out: DocBlock[] = [];
  for (const child of children) {
    const block = convertBlock(child, context);
    if (block) out.push(block);
  }
  return out;
}

function block(type: string, nodes: DocNode[], data?: Record<string, unknown>, isVoid?: boolean): DocBlock {
  const result: DocBlock = { object: 'block', type, nodes };
  if (isVoid) result.isVoid = true;
  if (data && Object.keys(data).length > 0) result.data = data;
  return result;
}

function convertBlock(node: mdast.RootContent | HintGroup, context: ConvertContext): DocBlock | undefined {
  switch (node.type) {
    case 'paragraph': {
      const images = imagesOnly(node);
      if (images) {
        return block(
          'images',
          images.map((image) => block('image', [], imageData(image.url, image.alt, image.title, context), true)),
        );
      }
      return block('paragraph', convertInlines(node.children, context));
    }
    case 'heading':
      return block(`heading-${node.depth}`, convertInlines(node.children, context));
    case 'thematicBreak':
      return block('divider', [], undefined, true);
    case 'blockquote': {
      const alert = alertOf(node);
      if (alert) return block('hint', convertBlocks(alert.children, context), { style: alert.style, alert: alert.marker });
      return block('blockquote', convertBlocks(node.children, context));
    }
    case 'quireHint':
      return block('hint', convertBlocks(node.children, context), { style: node.style });
    case 'list': {
      const tasks = node.children.some((item) => typeof item.checked === 'boolean');
      const type = tasks ? 'list-tasks' : node.ordered ? 'list-ordered' : 'list-unordered';
      const data: Record<string, unknown> = {};
      if (node.ordered && tasks) data.ordered = true;
      if (node.ordered && typeof node.start === 'number' && node.start !== 1) data.start = node.start;
      if (node.spread) data.spread = true;
      const items = node.children.map((item) => {
        const itemData: Record<string, unknown> = {};
        if (typeof item.checked === 'boolean') itemData.checked = item.checked;
        if (item.spread) itemData.spread = true;
        return block('list-item', convertBlocks(item.children, context), itemData);
      });
      return block(type, items, data);
    }
    case 'code': {
      const data: Record<string, unknown> = {};
      if (node.lang) data.syntax = node.lang;
      if (node.meta) data.meta = node.meta;
      const lines = node.value.split('\n').map((line) => block('code-line', [text([leaf(line, [])])]));
      return block('code', lines, data);
    }
    case 'html':
      return block('html', [], { html: node.value }, true);
    case 'table': {
      const aligns = (node.align ?? []).map((align) => align ?? null);
      const rows = node.children.map((row) =>
        block(
          'table-row',
          row.children.map((cell) => block('table-cell', convertInlines(cell.children, context))),
        ),
      );
      return block('table', rows, aligns.some((align) => align !== null) ? { aligns } : undefined);
    }
    case 'footnoteDefinition':
      return block('footnote', convertBlocks(node.children, context), footnoteData(node));
    case 'definition':
      // Link definitions are folded into the links that use them.
      return undefined;
    case 'yaml':
    default:
      return undefined;
  }
}

function footnoteData(node: { identifier: string; label?: string | null | undefined }): Record<string, unknown> {
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

function alertOf(quote: mdast.Blockquote): { style: string; marker: string; children: mdast.BlockContent[] } | undefined {
  const first = quote.children[0];
  if (first?.type !== 'paragraph') return undefined;
  const head = first.children[0];
  if (head?.type !== 'text') return undefined;
  const match = ALERT_MARKER.exec(head.value);
  if (!match) return undefined;
  const marker = match[1]!;
  const rest = head.value.slice(match[0].length);
  const inlines = rest ? [{ ...head, value: rest }, ...first.children.slice(1)] : first.children.slice(1);
  const children = [...(inlines.length > 0 ? [{ ...first, children: inlines }] : []), ...quote.children.slice(1)];
  return { style: ALERT_STYLES[marker]!, marker, children: children as mdast.BlockContent[] };
}

function leaf(textValue: string, marks: readonly MarkType[]): DocLeaf {
  return { object: 'leaf', text: textValue, marks: marks.map((type) => ({ object: 'mark', type })) };
}

function text(leaves: DocLeaf[]): DocText {
  return { object: 'text', leaves };
}

function imageData(url: string, alt: string | null | undefined, title: string | null | undefined, context: ConvertContext): Record<string, unknown> {
  const data: Record<string, unknown> = { src: url, ref: documentRef(url, context) };
  if (alt) data.alt = alt;
  if (title) data.title = title;
  return data;
}

/** The `ref` of a link or image in the document: a page or file of the space when known, else the URL. */
function documentRef(url: string, context: ConvertContext): Record<string, unknown> {
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

function convertInlines(children: readonly mdast.PhrasingContent[], context: ConvertContext): DocNode[] {
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
        runs.push({ inline: imageInline(child.url, child.alt, child.title, context) });
        break;
      case 'imageReference': {
        const definition = context.definitions.get(child.identifier);
        if (definition) runs.push({ inline: imageInline(definition.url, child.alt, definition.title, context) });
        else runs.push({ leaf: leaf(child.alt ?? '', marks) });
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
): DocInline {
  const runs: Run[] = [];
  collectRuns(children, marks, context, runs);
  const data: Record<string, unknown> = { href: url, ref: documentRef(url, context) };
  if (title) data.title = title;
  return { object: 'inline', type: 'link', nodes: groupRuns(runs), data };
}

function imageInline(url: string, alt: string | null | undefined, title: string | null | undefined, context: ConvertContext): DocInline {
  return { object: 'inline', type: 'inline-image', nodes: [], isVoid: true, data: imageData(url, alt, title, context) };
}

/** Consecutive leaves form one text node; neighbouring leaves with the same marks become one leaf. */
function groupRuns(runs: readonly Run[]): DocNode[] {
  const nodes: DocNode[] = [];
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
function assignKeys(nodes: DocNode[], prefix: string): void {
  nodes.forEach((node, index) => {
    const position = prefix ? `${prefix}.${index}` : String(index);
    node.key =
      position.length < MAX_KEY_LENGTH ? position : `h${createHash('sha256').update(position).digest('hex').slice(0, 32)}`;
    if (node.object !== 'text') assignKeys(node.nodes, position);
  });
}

// ----- back to markdown -----

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
export function documentToMarkdown(document: Pick<Doc, 'nodes'> | JSONDocument): string {
  const root: mdast.Root = { type: 'root', children: blocksToMdast(document.nodes as DocNode[]) };
  return printGfm(root, TO_MARKDOWN_OPTIONS);
}

function blocksToMdast(nodes: readonly DocNode[]): mdast.RootContent[] {
  const out: mdast.RootContent[] = [];
  for (const node of nodes) {
    if (node.object === 'block') out.push(...blockToMdast(node));
    else out.push({ type: 'paragraph', children: inlinesToMdast([node]) });
  }
  return out;
}

function stringData(node: DocBlock | DocInline, name: string): string | undefined {
  const value = node.data?.[name];
  return typeof value === 'string' ? value : undefined;
}

function blockToMdast(node: DocBlock): mdast.RootContent[] {
  const heading = /^heading-([1-6])$/.exec(node.type);
  if (heading) {
    return [{ type: 'heading', depth: Number(heading[1]) as 1 | 2 | 3 | 4 | 5 | 6, children: inlinesToMdast(node.nodes) }];
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
      const ordered = node.type === 'list-ordered' || (node.type === 'list-tasks' && node.data?.ordered === true);
      const start = typeof node.data?.start === 'number' ? node.data.start : 1;
      const items: mdast.ListItem[] = node.nodes.map((item) => {
        const data = item.object === 'block' ? item.data : undefined;
        const children = item.object === 'block' && item.type === 'list-item' ? blocksToMdast(item.nodes) : blocksToMdast([item]);
        return {
          type: 'listItem',
          spread: data?.spread === true,
          checked: typeof data?.checked === 'boolean' ? data.checked : null,
          children: children as mdast.BlockContent[],
        };
      });
      return [{ type: 'list', ordered, start: ordered ? start : null, spread: node.data?.spread === true, children: items }];
    }
    case 'code': {
      const lines = node.nodes.map((line) => plainText(line));
      return [{ type: 'code', lang: stringData(node, 'syntax') ?? null, meta: stringData(node, 'meta') ?? null, value: lines.join('\n') }];
    }
    case 'html':
      return [{ type: 'html', value: stringData(node, 'html') ?? '' }];
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
    case 'table': {
      const rawAligns = Array.isArray(node.data?.aligns) ? (node.data.aligns as unknown[]) : [];
      const align = rawAligns.map((value) => (value === 'left' || value === 'right' || value === 'center' ? value : null));
      const rows: mdast.TableRow[] = node.nodes.map((row) => ({
        type: 'tableRow',
        children: (row.object === 'text' ? [] : row.nodes).map((cell) => ({
          type: 'tableCell',
          children: cell.object === 'text' ? inlinesToMdast([cell]) : inlinesOfCell(cell),
        })),
      }));
      return [{ type: 'table', align, children: rows }];
    }
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

/** A table cell holds inlines; a cell made elsewhere may wrap them in paragraphs, which GFM cannot hold. */
function inlinesOfCell(cell: DocBlock | DocInline): mdast.PhrasingContent[] {
  if (!cell.nodes.some((child) => child.object === 'block')) return inlinesToMdast(cell.nodes);
  const parts: mdast.PhrasingContent[] = [];
  for (const child of cell.nodes) {
    if (parts.length > 0) parts.push({ type: 'text', value: ' ' });
    parts.push(...(child.object === 'block' ? inlinesToMdast(child.nodes) : inlinesToMdast([child])));
  }
  return parts;
}

function imageToMdast(node: DocBlock | DocInline): mdast.Image | undefined {
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

function inlinesToMdast(nodes: readonly DocNode[]): mdast.PhrasingContent[] {
  const out: mdast.PhrasingContent[] = [];
  for (const node of nodes) {
    if (node.object === 'text') {
      out.push(...leavesToMdast(node.leaves.map((item) => ({ text: item.text, marks: item.marks.map((mark) => mark.type) }))));
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

/** The text of a document node, without formatting. */
export function plainText(node: DocNode): string {
  if (node.object === 'text') return node.leaves.map((item) => item.text).join('');
  return node.nodes.map(plainText).join('');
}

// ----- references -----

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * What a link URL points at, judged from the URL alone. `/pages/<id>` and `/files/<id>` are Quire's stable
 * references; `.gitbook/assets/...` is where Git-synced spaces keep files; other scheme-less URLs are paths
 * of pages (with GitBook's `.md` and `README.md` file names reduced to page paths), resolved as a browser
 * would from `/<pagePath>`.
 */
export function classifyUrl(url: string, pagePath = ''): ReferenceTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith('#')) return { kind: 'anchor', anchor: safeDecode(trimmed.slice(1)) };
  if (/^ref:/i.test(trimmed)) return { kind: 'ref', label: trimmed.slice(4) };
  if (SCHEME.test(trimmed) || trimmed.startsWith('//')) return { kind: 'url', url };

  const hashAt = trimmed.indexOf('#');
  const beforeHash = hashAt < 0 ? trimmed : trimmed.slice(0, hashAt);
  const anchor = hashAt < 0 ? undefined : safeDecode(trimmed.slice(hashAt + 1)) || undefined;
  const pathPart = beforeHash.split('?')[0]!;

  const stable = /^\/(pages|files)\/([^/]+)\/?$/.exec(pathPart);
  if (stable) {
    const id = safeDecode(stable[2]!);
    if (stable[1] === 'files') return { kind: 'file', file: id };
    return anchor ? { kind: 'page', page: id, anchor } : { kind: 'page', page: id };
  }
  const resolved = resolvePath(pathPart, pagePath);
  const assetAt = resolved.indexOf('.gitbook/assets/');
  if (assetAt >= 0) return { kind: 'asset', path: resolved.slice(assetAt) };
  const last = resolved.split('/').pop() ?? '';
  const extension = /\.([a-z0-9]+)$/i.exec(last)?.[1]?.toLowerCase();
  if (extension && extension !== 'md' && extension !== 'markdown') return { kind: 'asset', path: resolved };
  const path = resolved
    .replace(/\.(md|markdown)$/i, '')
    .replace(/(^|\/)readme$/i, '')
    .replace(/\/+$/, '');
  return anchor ? { kind: 'page-path', path, anchor } : { kind: 'page-path', path };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `path` resolved against the page at `/<pagePath>`, as a slash-separated path without leading slash. */
function resolvePath(path: string, pagePath: string): string {
  const base = path.startsWith('/') ? [] : pagePath.split('/').filter(Boolean).slice(0, -1);
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') base.pop();
    else base.push(safeDecode(segment));
  }
  return base.join('/');
}

export interface ContentReference {
  /** The URL as the markdown holds it. */
  url: string;
  target: ReferenceTarget;
  /** True for images (embedded), false for links. */
  image: boolean;
}

export interface ExtractedReferences {
  /** Links to pages, anchors, outside URLs, and `ref:` labels. */
  links: ContentReference[];
  /** Links and images pointing at files of the space (by id or by repository path). */
  files: ContentReference[];
}

/** The links and file references of a page's markdown, in reading order, one entry per occurrence. */
export function extractReferences(markdown: string, options: Pick<MarkdownOptions, 'pagePath'> = {}): ExtractedReferences {
  const tree = parseMarkdown(markdown);
  const definitions = collectDefinitions(tree);
  const links: ContentReference[] = [];
  const files: ContentReference[] = [];
  const add = (url: string, image: boolean): void => {
    const target = classifyUrl(url, options.pagePath);
    const reference = { url, target, image };
    (target.kind === 'file' || target.kind === 'asset' ? files : links).push(reference);
  };
  visit(tree, (node) => {
    if (node.type === 'link') add(node.url, false);
    else if (node.type === 'image') add(node.url, true);
    else if (node.type === 'linkReference' || node.type === 'imageReference') {
      const definition = definitions.get(node.identifier);
      if (definition) add(definition.url, node.type === 'imageReference');
    }
  });
  return { links, files };
}

/**
 * Rewrites the destinations of links, images and link definitions in place in the source text, leaving
 * everything else byte for byte as written (so stored markdown stays what the author wrote, and line merges
 * stay small). `replace` answers the new URL, or undefined to keep it.
 */
export function rewriteMarkdownLinks(markdown: string, replace: (url: string) => string | undefined): string {
  const tree = parseMarkdown(markdown);
  const edits: { start: number; end: number; value: string }[] = [];
  visit(tree, (node) => {
    if (node.type !== 'link' && node.type !== 'image' && node.type !== 'definition') return;
    const next = replace(node.url);
    if (next === undefined || next === node.url) return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const source = markdown.slice(start, end);
    // The destination is the occurrence of the URL that follows `](` (or `]:` for a definition): the link
    // text before it and a title after it may contain the same characters but not in that position.
    const candidates = [node.url, encodeURI(node.url)];
    for (const candidate of candidates) {
      const at = findDestination(source, candidate, node.type === 'definition');
      if (at >= 0) {
        const destination = /[\s()<>]/.test(next) ? `<${next.replace(/[<>]/g, encodeURIComponent)}>` : next;
        edits.push({ start: start + at, end: start + at + candidate.length, value: destination });
        return;
      }
    }
    // An autolink (`<ref:x>`) has no separate destination; a path is not a valid autolink, so it becomes an
    // ordinary link showing the text that was written.
    if (node.type === 'link' && source.startsWith('<') && source.endsWith('>')) {
      const destination = /[\s()<>]/.test(next) ? `<${next.replace(/[<>]/g, encodeURIComponent)}>` : next;
      edits.push({ start, end, value: `[${source.slice(1, -1)}](${destination})` });
    }
  });
  if (edits.length === 0) return markdown;
  edits.sort((a, b) => b.start - a.start);
  let result = markdown;
  for (const edit of edits) result = result.slice(0, edit.start) + edit.value + result.slice(edit.end);
  return result;
}

/** Position of `url` as the destination in a link's source: right after `](`, `](<`, `]:` plus spaces. */
function findDestination(source: string, url: string, definition: boolean): number {
  let at = source.lastIndexOf(url);
  while (at >= 0) {
    const before = source.slice(0, at).replace(/<$/, '').trimEnd();
    if (definition ? before.endsWith(':') : before.endsWith('(')) return at;
    at = at > 0 ? source.lastIndexOf(url, at - 1) : -1;
  }
  return -1;
}

// ----- sections (for search) -----

export interface MarkdownSection {
  /** Anchor of the heading the section starts with; empty for the text before the first heading. */
  id: string;
  title: string;
  /** Plain text of the section (without the heading), blocks separated by newlines. */
  body: string;
}

/** The page cut at each heading, as search indexes it; the part before the first heading only when not empty. */
export function extractSections(markdown: string): MarkdownSection[] {
  const tree = parseMarkdown(markdown);
  const sections: MarkdownSection[] = [];
  const anchors = new Map<string, number>();
  let current: { id: string; title: string; parts: string[] } = { id: '', title: '', parts: [] };
  const flush = (): void => {
    const body = current.parts.filter((part) => part.trim() !== '').join('\n');
    if (current.id !== '' || body !== '') sections.push({ id: current.id, title: current.title, body });
  };
  for (const node of groupGitBookHints(tree.children)) {
    if (node.type === 'heading') {
      flush();
      const title = mdastText(node).trim();
      current = { id: headingAnchor(title, anchors), title, parts: [] };
    } else if (node.type === 'quireHint') {
      current.parts.push(...node.children.map(mdastText));
    } else if (node.type !== 'definition' && node.type !== 'html') {
      current.parts.push(mdastText(node));
    }
  }
  flush();
  return sections;
}

/** Plain text of an mdast node: text values, code, image alt text; blocks on separate lines. */
function mdastText(node: mdast.Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
    case 'code':
      return node.value;
    case 'image':
    case 'imageReference':
      return node.alt ?? '';
    case 'break':
      return '\n';
    case 'html':
    case 'definition':
    case 'thematicBreak':
    case 'footnoteReference':
      return '';
    case 'table':
      return node.children.map((row) => row.children.map(mdastText).join(' | ')).join('\n');
    default:
      if (!('children' in node)) return '';
      if (node.type === 'paragraph' || node.type === 'heading' || node.type === 'tableCell' || isPhrasingParent(node)) {
        return (node.children as mdast.Nodes[]).map(mdastText).join('');
      }
      return (node.children as mdast.Nodes[]).map(mdastText).filter((part) => part !== '').join('\n');
  }
}

function isPhrasingParent(node: mdast.Nodes): boolean {
  return ['emphasis', 'strong', 'delete', 'link', 'linkReference'].includes(node.type);
}

/**
 * The anchor of a heading, as GitHub and GitBook make them: lower case, punctuation dropped, spaces turned
 * into hyphens, and `-1`, `-2`... for repeated headings (tracked in `seen`).
 */
export function headingAnchor(title: string, seen: Map<string, number> = new Map()): string {
  const base = title
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
  const count = seen.get(base);
  seen.set(base, (count ?? 0) + 1);
  if (count === undefined) return base;
  let candidate = `${base}-${count}`;
  for (let n = count; seen.has(candidate); n++) candidate = `${base}-${n + 1}`;
  seen.set(candidate, 1);
  return candidate;
}
