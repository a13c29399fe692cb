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

/** The references an image may have in the public document format: a file of the space, or a URL. */
export type ImageRef = { kind: 'file'; file: string } | { kind: 'url'; url: string };

// Type aliases rather than interfaces: those are what the contract's open `data` objects accept.
export type ImageData = {
  src: string;
  ref: ImageRef;
  alt?: string;
  title?: string;
};

export type FootnoteData = {
  identifier: string;
  label?: string;
};

/** `data` that holds nothing: the public schema requires the object on some nodes (dividers, code lines...). */
export type NoData = Record<string, never>;

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

/**
 * Content that belongs to a void block without being its child (the public format's fragments): the cells
 * of a table, the caption of an image. `fragment` is the id the block's `data` refers to it by.
 */
export interface DocFragment {
  object: 'fragment';
  key?: string;
  fragment: string;
  nodes: DocParagraph[];
}

export type HeadingLevel = 1 | 2 | 3 | 4 | 5 | 6;
/** The public format has three heading levels; markdown's fourth to sixth are `heading-3` with `data.level`. */
export type HeadingType = 'heading-1' | 'heading-2' | 'heading-3';

export type DocParagraph = BlockOf<'paragraph', DocInlineContent>;
export interface DocHeading extends BlockOf<HeadingType, DocInlineContent> {
  data: { level?: 4 | 5 | 6 };
}
export interface DocDivider extends BlockOf<'divider', never> {
  isVoid: true;
  data: NoData;
}
export type DocBlockquote = BlockOf<'blockquote', DocBlock>;
export interface DocHint extends BlockOf<'hint', DocBlock> {
  /** `alert` is the GitHub alert marker (`NOTE`, `WARNING`...) when the hint was written as one. */
  data: { style: string; alert?: string };
}
/** One tab of a tabs block; its title is the tab's label. */
export interface DocTabsItem extends BlockOf<'tabs-item', DocBlock> {
  data: { title: string };
}
/** Tabs (GitBook's `{% tabs %}`): one or more tabs, of which a reader shows one at a time. */
export type DocTabs = BlockOf<'tabs', DocTabsItem>;
export interface DocListItem extends BlockOf<'list-item', DocBlock> {
  /** `checked` on task items; `spread` on the items of a loose list (blank lines between its items). */
  data?: { checked?: boolean; spread?: boolean };
}
export type ListType = 'list-ordered' | 'list-unordered' | 'list-tasks';
/** A numbered list; numbered task lists are numbered lists whose items are `checked` or not. */
export interface DocListOrdered extends BlockOf<'list-ordered', DocListItem> {
  /** `start` when not 1. */
  data: { start?: number };
}
export type DocListUnordered = BlockOf<'list-unordered', DocListItem>;
export type DocListTasks = BlockOf<'list-tasks', DocListItem>;
export type DocList = DocListOrdered | DocListUnordered | DocListTasks;
export interface DocCodeLine extends BlockOf<'code-line', DocText> {
  data: NoData;
}
export interface DocCode extends BlockOf<'code', DocCodeLine> {
  data: { syntax?: string; meta?: string };
}
export interface DocHtml extends BlockOf<'html', never> {
  isVoid: true;
  data: { html: string };
}
export interface DocImage extends BlockOf<'image', never> {
  isVoid: true;
  data: ImageData;
  fragments: DocFragment[];
}
export interface DocImages extends BlockOf<'images', DocImage> {
  isVoid: false;
  data: NoData;
}
export type TableAlign = 'left' | 'right' | 'center';
/** A column of a table (the public format's text column definition). */
export type TableColumn = { id: string; title: string; type: 'text'; textAlignment: TableAlign };
/** A row of a table: each column's value is the id of the fragment holding the cell's content. */
export type TableRecord = { orderIndex: string; values: Record<string, string> };
export type TableData = {
  view: { type: 'grid'; columns: string[]; hideHeader: boolean };
  records: Record<string, TableRecord>;
  definition: Record<string, TableColumn>;
};
/**
 * A table, as the public format has it: a void block whose `data` holds its columns (`definition`, in the
 * order `view.columns` gives) and rows (`records`, by `orderIndex`), each cell's content in a fragment. The
 * header row is the columns' titles; a header cell with formatting also has a fragment, `header:<column>`.
 */
export interface DocTable extends BlockOf<'table', never> {
  isVoid: true;
  data: TableData;
  fragments: DocFragment[];
}
export interface DocFootnote extends BlockOf<'footnote', DocBlock> {
  data: FootnoteData;
}

/** A reusable content of the revision, inserted where the block stands (`ref.reusableContent` is its id). */
export interface DocReusableContent extends BlockOf<'reusable-content', never> {
  isVoid: true;
  data: { ref: { kind: 'reusable-content'; reusableContent: string } };
}

export type DocBlock =
  | DocReusableContent
  | DocParagraph
  | DocHeading
  | DocDivider
  | DocBlockquote
  | DocHint
  | DocTabs
  | DocTabsItem
  | DocList
  | DocListItem
  | DocCode
  | DocCodeLine
  | DocHtml
  | DocImages
  | DocImage
  | DocTable
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

/** The level of a heading block (1 to 6), or undefined for any other block. */
export function headingLevel(node: DocBlock): HeadingLevel | undefined {
  if (node.type !== 'heading-1' && node.type !== 'heading-2' && node.type !== 'heading-3') return undefined;
  return node.data.level ?? (Number(node.type.slice('heading-'.length)) as HeadingLevel);
}

/** The header prefix of the fragment that holds a formatted header cell of a table. */
export const TABLE_HEADER_FRAGMENT = 'header:';

/** The id of the fragment holding a table cell. */
export function tableCellFragment(record: string, column: string): string {
  return `${record}:${column}`;
}

/**
 * A table as a grid: its column alignments, and its rows (the header first), each cell a paragraph of its
 * content. For readers that lay tables out (the PDF renderer).
 */
export function tableGrid(table: DocTable): { aligns: TableAlign[]; hideHeader: boolean; rows: DocParagraph[][] } {
  const fragments = new Map(table.fragments.map((fragment) => [fragment.fragment, fragment]));
  const cell = (fragmentId: string | undefined, fallback: string): DocParagraph => {
    const fragment = fragmentId === undefined ? undefined : fragments.get(fragmentId);
    if (fragment) return { object: 'block', type: 'paragraph', nodes: fragment.nodes.flatMap((paragraph) => paragraph.nodes) };
    return { object: 'block', type: 'paragraph', nodes: fallback ? [{ object: 'text', leaves: [{ object: 'leaf', text: fallback, marks: [] }] }] : [] };
  };
  const columns = table.data.view.columns.filter((id) => table.data.definition[id]);
  const records = Object.entries(table.data.records).sort(([, a], [, b]) => (a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0));
  return {
    aligns: columns.map((id) => table.data.definition[id]!.textAlignment),
    hideHeader: table.data.view.hideHeader,
    rows: [
      columns.map((id) => cell(`${TABLE_HEADER_FRAGMENT}${id}`, table.data.definition[id]!.title)),
      ...records.map(([, record]) => columns.map((id) => cell(record.values[id], ''))),
    ],
  };
}

/** The text of a document node (fragments included), without formatting; a hard line break is a new line. */
export function plainText(node: DocNode): string {
  if (node.object === 'text') return node.leaves.map((item) => item.text).join('');
  if (node.object === 'inline' && node.type === 'break') return '\n';
  if (node.object === 'block' && node.type === 'table') {
    return tableGrid(node).rows.map((row) => row.map(plainText).join(' ')).join('\n');
  }
  return (node.nodes as DocNode[]).map(plainText).join('');
}
