import type { JSONDocument } from '@quire/api-types';

/*
 * The Document model: the rich form of a page that the API answers (`format=document`), the PDF renderer
 * draws and the reader will show. It is derived from markdown on read (see `to-document.ts`), so the node
 * types here are exactly the ones that conversion makes, as a union discriminated by `object` and `type`:
 * a consumer switches on `type` and TypeScript tells it what `data` and `nodes` hold.
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

/** Where a link or image of the document points: a page or file of the space when known, else its URL. */
export type DocumentRef =
  | { kind: 'page'; page: string; anchor?: string }
  | { kind: 'file'; file: string }
  | { kind: 'anchor'; anchor: string }
  | { kind: 'url'; url: string };

// Type aliases rather than interfaces: those are what the contract's open `data` objects accept.
export type ImageData = {
  src: string;
  ref: DocumentRef;
  alt?: string;
  title?: string;
};

export type FootnoteData = {
  identifier: string;
  label?: string;
};

interface InlineOf<T extends string, N extends DocNode = never> {
  object: 'inline';
  type: T;
  key?: string;
  nodes: N[];
}
interface VoidInlineOf<T extends string, D> extends InlineOf<T> {
  isVoid: true;
  data: D;
}

export interface DocLink extends InlineOf<'link', DocText | DocInline> {
  data: { href: string; ref: DocumentRef; title?: string };
}
export interface DocBreak extends InlineOf<'break'> {
  isVoid: true;
}
export type DocInlineImage = VoidInlineOf<'inline-image', ImageData>;
export type DocInlineHtml = VoidInlineOf<'html', { html: string }>;
export type DocFootnoteRef = VoidInlineOf<'footnote-ref', FootnoteData>;

export type DocInline = DocLink | DocBreak | DocInlineImage | DocInlineHtml | DocFootnoteRef;
/** What paragraphs, headings and table cells hold. */
export type DocInlineContent = DocText | DocInline;

interface BlockOf<T extends string, N extends DocNode> {
  object: 'block';
  type: T;
  key?: string;
  nodes: N[];
}

export type HeadingLevel = 1 | 2 | 3 | 4 | 5 | 6;
export type HeadingType = `heading-${HeadingLevel}`;

export type DocParagraph = BlockOf<'paragraph', DocInlineContent>;
export type DocHeading = BlockOf<HeadingType, DocInlineContent>;
export interface DocDivider extends BlockOf<'divider', never> {
  isVoid: true;
}
export type DocBlockquote = BlockOf<'blockquote', DocBlock>;
export interface DocHint extends BlockOf<'hint', DocBlock> {
  /** `alert` is the GitHub alert marker (`NOTE`, `WARNING`...) when the hint was written as one. */
  data: { style: string; alert?: string };
}
export interface DocListItem extends BlockOf<'list-item', DocBlock> {
  data?: { checked?: boolean; spread?: boolean };
}
export type ListType = 'list-ordered' | 'list-unordered' | 'list-tasks';
export interface DocList extends BlockOf<ListType, DocListItem> {
  /** `ordered` only on task lists (numbered ones); `start` when not 1. */
  data?: { ordered?: boolean; start?: number; spread?: boolean };
}
export type DocCodeLine = BlockOf<'code-line', DocText>;
export interface DocCode extends BlockOf<'code', DocCodeLine> {
  data?: { syntax?: string; meta?: string };
}
export interface DocHtml extends BlockOf<'html', never> {
  isVoid: true;
  data: { html: string };
}
export interface DocImage extends BlockOf<'image', never> {
  isVoid: true;
  data: ImageData;
}
export type DocImages = BlockOf<'images', DocImage>;
export type TableAlign = 'left' | 'right' | 'center' | null;
export type DocTableCell = BlockOf<'table-cell', DocInlineContent>;
export type DocTableRow = BlockOf<'table-row', DocTableCell>;
export interface DocTable extends BlockOf<'table', DocTableRow> {
  data?: { aligns: TableAlign[] };
}
export interface DocFootnote extends BlockOf<'footnote', DocBlock> {
  data: FootnoteData;
}

export type DocBlock =
  | DocParagraph
  | DocHeading
  | DocDivider
  | DocBlockquote
  | DocHint
  | DocList
  | DocListItem
  | DocCode
  | DocCodeLine
  | DocHtml
  | DocImages
  | DocImage
  | DocTable
  | DocTableRow
  | DocTableCell
  | DocFootnote;

export type DocNode = DocBlock | DocInline | DocText;

export interface Doc {
  object: 'document';
  data: { schemaVersion: number } & Record<string, unknown>;
  nodes: DocBlock[];
}

// Compile-time proof that what this module produces is the contract's JSONDocument.
const asContractDocument = (doc: Doc): JSONDocument => doc;
void asContractDocument;

/** The level of a heading block, or undefined for any other block. */
export function headingLevel(node: DocBlock): HeadingLevel | undefined {
  const match = /^heading-([1-6])$/.exec(node.type);
  return match ? (Number(match[1]) as HeadingLevel) : undefined;
}

/** The text of a document node, without formatting. */
export function plainText(node: DocNode): string {
  if (node.object === 'text') return node.leaves.map((item) => item.text).join('');
  return (node.nodes as DocNode[]).map(plainText).join('');
}
