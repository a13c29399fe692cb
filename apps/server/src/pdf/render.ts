import PDFDocument from 'pdfkit';
import {
  headingLevel,
  plainText,
  tableGrid,
  type Doc,
  type DocBlock,
  type DocBlockquote,
  type DocFootnote,
  type DocHint,
  type DocTabsItem,
  type DocImage,
  type DocInlineContent,
  type DocList,
  type DocNode,
  type DocTable,
  type DocParagraph,
  type ImageData,
  type ImageRef,
} from '../content/markdown/index.js';
import { embeddableImage, type EmbeddableImage } from './images.js';
import { toWinAnsi } from './win-ansi.js';

/*
 * A PDF of documentation pages: a title page, then each page of content starting on a new sheet under its
 * title, with bookmarks (nested as the pages are) and page numbers. Only pdfkit's standard fonts are used,
 * so nothing has to be installed; their WinAnsi character set is why all text goes through `toWinAnsi`.
 */

export interface PdfPageInput {
  /** Page id; links of other pages to this one (`ref.kind = page`) become links inside the PDF. */
  id?: string;
  title: string;
  /** Path of the page in its space (`guides/install`); the bookmarks nest by it. */
  path: string;
  document: Doc;
}

/** The bytes of an image by its `ref` and `src`, or undefined when they are not available (a placeholder is shown then). */
export type ImageLoader = (ref: ImageRef, src: string) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

export interface RenderPdfInput {
  title: string;
  /** A second line on the title page, e.g. the space and the change request. */
  subtitle?: string;
  pages: PdfPageInput[];
  images?: ImageLoader;
  /** Written in the PDF's metadata and on the title page; the same input and date give the same bytes. */
  createdAt?: Date;
  author?: string;
  /** Compress content streams (default true); tests turn it off to read the text. */
  compress?: boolean;
  size?: 'A4' | 'LETTER';
}

interface Segment {
  text: string;
  bold: boolean;
  italic: boolean;
  strike: boolean;
  code: boolean;
  link?: string;
  goTo?: string;
  color?: string;
}

interface Box {
  x: number;
  width: number;
  color: string;
  /** Smaller gaps between blocks (tight list items). */
  tight: boolean;
  listDepth: number;
}

interface Mark {
  page: number;
  y: number;
}

const MARGIN = 56;
const BODY_SIZE = 10.5;
/** Helvetica's ascender (all four styles), in units of the font size. */
const HELVETICA_ASCENDER = 0.718;
const HEADING_SIZES = [0, 19, 16, 13.5, 12, 11, 10.5] as const;
const TEXT_COLOR = '#1f2328';
const MUTED_COLOR = '#59636e';
const LINK_COLOR = '#0b5cd5';
const RULE_COLOR = '#d1d9e0';
const CODE_BACKGROUND = '#f2f4f6';
const HINT_COLORS: Record<string, string> = { info: '#2563eb', success: '#15803d', warning: '#b45309', danger: '#b91c1c' };
const HINT_LABELS: Record<string, string> = { info: 'Note', success: 'Tip', warning: 'Warning', danger: 'Danger' };
const BULLETS = ['\u2022', '\u2013', '\u00b7'] as const;

const FONTS = {
  sans: ['Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique'],
  mono: ['Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique'],
} as const;

function fontFor(segment: Pick<Segment, 'bold' | 'italic' | 'code'>): string {
  const family = segment.code ? FONTS.mono : FONTS.sans;
  return family[(segment.bold ? 1 : 0) + (segment.italic ? 2 : 0)]!;
}

function imageKey(data: ImageData): string {
  return JSON.stringify([data.ref, data.src]);
}

function collectImages(nodes: readonly DocNode[], into: Map<string, ImageData>): void {
  for (const node of nodes) {
    if (node.object === 'block' && node.type === 'image') into.set(imageKey(node.data), node.data);
    if (node.object !== 'text') collectImages(node.nodes, into);
  }
}

async function loadImages(input: RenderPdfInput): Promise<Map<string, EmbeddableImage>> {
  const loaded = new Map<string, EmbeddableImage>();
  if (!input.images) return loaded;
  const wanted = new Map<string, ImageData>();
  for (const page of input.pages) collectImages(page.document.nodes, wanted);
  for (const [key, data] of wanted) {
    try {
      const bytes = await input.images(data.ref, data.src);
      const image = bytes ? embeddableImage(bytes) : undefined;
      if (image) loaded.set(key, image);
    } catch {
      // An image that cannot be fetched is shown as a placeholder; the PDF is still worth having.
    }
  }
  return loaded;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Renders the pages to a PDF. Rendering is synchronous work, so the event loop gets a turn between pages:
 * a large space slows its own request down, not every other one.
 */
export async function renderPdf(input: RenderPdfInput): Promise<Buffer> {
  const images = await loadImages(input);
  const createdAt = input.createdAt ?? new Date();
  const doc = new PDFDocument({
    size: input.size ?? 'A4',
    margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
    bufferPages: true,
    autoFirstPage: false,
    compress: input.compress ?? true,
    displayTitle: true,
    lang: 'en',
    info: {
      Title: input.title,
      ...(input.subtitle ? { Subject: input.subtitle } : {}),
      ...(input.author ? { Author: input.author } : {}),
      Creator: 'Quire',
      Producer: 'Quire (PDFKit)',
      CreationDate: createdAt,
      ModDate: createdAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  const renderer = new Renderer(doc, images, input.pages);
  renderer.titlePage(input, createdAt);
  for (const page of input.pages) {
    renderer.page(page);
    await yieldToEventLoop();
  }
  renderer.pageNumbers();
  doc.end();
  await finished;
  return Buffer.concat(chunks);
}

class Renderer {
  private readonly destinations = new Map<string, string>();
  private readonly outline: { path: string; item: PDFKit.PDFOutline }[] = [];
  /** The gap added after the last block, so decorations can end at the text rather than below the gap. */
  private lastGap = 0;

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly images: Map<string, EmbeddableImage>,
    pages: readonly PdfPageInput[],
  ) {
    pages.forEach((page, index) => {
      if (page.id !== undefined) this.destinations.set(page.id, `page-${index + 1}`);
    });
  }

  private get top(): number {
    return this.doc.page.margins.top;
  }

  private get bottom(): number {
    return this.doc.page.height - this.doc.page.margins.bottom;
  }

  private get contentBox(): Box {
    const { page } = this.doc;
    return { x: page.margins.left, width: page.width - page.margins.left - page.margins.right, color: TEXT_COLOR, tight: false, listDepth: 0 };
  }

  /** Index of the page being written (always the last one: earlier pages are only visited to decorate). */
  private pageIndex(): number {
    const range = this.doc.bufferedPageRange();
    return range.start + range.count - 1;
  }

  private mark(): Mark {
    return { page: this.pageIndex(), y: this.doc.y };
  }

  private gap(points: number): void {
    this.doc.y += points;
    this.lastGap = points;
  }

  private ensureSpace(height: number): void {
    if (this.doc.y + height > this.bottom && this.doc.y > this.top) this.doc.addPage();
  }

  // ----- title page, pages, page numbers -----

  titlePage(input: RenderPdfInput, createdAt: Date): void {
    const { doc } = this;
    doc.addPage();
    const box = this.contentBox;
    doc.y = doc.page.height * 0.32;
    doc.font(FONTS.sans[1]).fontSize(28).fillColor(TEXT_COLOR).text(toWinAnsi(input.title), box.x, doc.y, { width: box.width, align: 'left' });
    doc.moveDown(0.4);
    doc.moveTo(box.x, doc.y).lineTo(box.x + 80, doc.y).lineWidth(2).strokeColor(LINK_COLOR).stroke();
    doc.moveDown(0.8);
    if (input.subtitle) {
      doc.font(FONTS.sans[0]).fontSize(14).fillColor(MUTED_COLOR).text(toWinAnsi(input.subtitle), box.x, doc.y, { width: box.width });
      doc.moveDown(0.6);
    }
    const count = input.pages.length;
    doc.font(FONTS.sans[0]).fontSize(10).fillColor(MUTED_COLOR)
      .text(`${count} ${count === 1 ? 'page' : 'pages'} \u2022 ${createdAt.toISOString().slice(0, 10)}`, box.x, doc.y, { width: box.width });
  }

  page(page: PdfPageInput): void {
    const { doc } = this;
    doc.addPage();
    const box = this.contentBox;
    if (page.id !== undefined) doc.addNamedDestination(this.destinations.get(page.id)!);

    // Bookmarks nest as the pages do: under the nearest earlier page whose path is a prefix of this one.
    while (this.outline.length > 0 && !page.path.startsWith(`${this.outline[this.outline.length - 1]!.path}/`)) this.outline.pop();
    const parent = this.outline[this.outline.length - 1]?.item ?? doc.outline;
    // `fit` (show the whole page) also avoids pdfkit's default destination, which scrolls to the right edge.
    const item = parent.addItem(page.title, { expanded: this.outline.length === 0, fit: true } as { expanded: boolean });
    this.outline.push({ path: page.path, item });

    doc.font(FONTS.sans[1]).fontSize(22).fillColor(TEXT_COLOR).text(toWinAnsi(page.title), box.x, doc.y, { width: box.width });
    doc.moveDown(0.25);
    doc.moveTo(box.x, doc.y).lineTo(box.x + box.width, doc.y).lineWidth(0.75).strokeColor(RULE_COLOR).stroke();
    this.gap(14);
    this.blocks(page.document.nodes, box);
  }

  /** `n / total` in the footer of every page but the title page. */
  pageNumbers(): void {
    const { doc } = this;
    const range = doc.bufferedPageRange();
    const total = range.count;
    for (let index = range.start + 1; index < range.start + range.count; index++) {
      doc.switchToPage(index);
      const box = this.contentBox;
      // Text below the bottom margin would make pdfkit start a new page; lift the margin while writing.
      const bottomMargin = doc.page.margins.bottom;
      doc.page.margins.bottom = 0;
      doc.font(FONTS.sans[0]).fontSize(8.5).fillColor(MUTED_COLOR)
        .text(`${index + 1} / ${total}`, box.x, doc.page.height - bottomMargin + 22, { width: box.width, align: 'center', lineBreak: false });
      doc.page.margins.bottom = bottomMargin;
    }
  }

  // ----- blocks -----

  private blocks(nodes: readonly DocBlock[], box: Box): void {
    for (const node of nodes) this.block(node, box);
  }

  private block(node: DocBlock, box: Box): void {
    switch (node.type) {
      case 'paragraph':
        this.paragraph(node.nodes, box);
        return;
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        this.heading(headingLevel(node)!, node.nodes, box);
        return;
      case 'list-ordered':
      case 'list-unordered':
      case 'list-tasks':
        this.list(node, box);
        return;
      case 'list-item':
        this.blocks(node.nodes, box);
        return;
      case 'blockquote':
        this.blockquote(node, box);
        return;
      case 'hint':
        this.hint(node, box);
        return;
      case 'tabs':
        // Paper shows every tab: each one's title, then its content.
        for (const tab of node.nodes) this.tab(tab, box);
        return;
      case 'tabs-item':
        this.tab(node, box);
        return;
      case 'code':
        this.code(node.nodes.map(plainText), box);
        return;
      case 'code-line':
        this.code([plainText(node)], box);
        return;
      case 'html':
        this.code(node.data.html.split('\n'), box);
        return;
      case 'divider':
        this.divider(box);
        return;
      case 'images':
        for (const image of node.nodes) this.image(image, box);
        return;
      case 'image':
        this.image(node, box);
        return;
      case 'table':
        this.table(node, box);
        return;
      case 'footnote':
        this.footnote(node, box);
        return;
      case 'reusable-content':
        // The PDF lays out one page's own markdown; an inserted block is named where it stands.
        this.code([`{% include "/reusable-contents/${node.data.ref.reusableContent}" %}`], box);
        return;
      default: {
        const unknown: never = node;
        void unknown;
      }
    }
  }

  private paragraph(inlines: readonly DocInlineContent[], box: Box): void {
    if (this.write(this.segments(inlines), box, { size: BODY_SIZE })) this.gap(box.tight ? 3 : 8);
  }

  private heading(level: number, inlines: readonly DocInlineContent[], box: Box): void {
    const size = HEADING_SIZES[level] ?? BODY_SIZE;
    if (this.doc.y > this.top + 1) this.doc.y += level <= 2 ? 8 : 4;
    // Keep a heading with at least two lines of what follows it.
    this.ensureSpace(size * 1.4 + BODY_SIZE * 3);
    const segments = this.segments(inlines).map((segment) => ({ ...segment, bold: true }));
    if (this.write(segments, box, { size, color: level >= 6 ? MUTED_COLOR : TEXT_COLOR })) this.gap(level <= 2 ? 6 : 4);
  }

  private list(node: DocList, box: Box): void {
    const { doc } = this;
    const items = node.nodes;
    // Numbered task lists are numbered lists whose items are checked or not.
    const tasks = node.type === 'list-tasks' || items.some((item) => typeof item.data?.checked === 'boolean');
    const ordered = node.type === 'list-ordered';
    const start = node.type === 'list-ordered' && typeof node.data.start === 'number' ? node.data.start : 1;
    doc.font(FONTS.sans[0]).fontSize(BODY_SIZE);
    const numberWidth = ordered ? doc.widthOfString(`${start + items.length - 1}.`) : 0;
    const indent = tasks ? 18 + numberWidth : ordered ? Math.max(18, numberWidth + 8) : 14;
    const inner: Box = { ...box, x: box.x + indent, width: box.width - indent, tight: !items.some((item) => item.data?.spread === true), listDepth: box.listDepth + 1 };
    items.forEach((item, index) => {
      this.ensureSpace(BODY_SIZE * 1.6);
      const y = doc.y;
      const lineHeight = doc.font(FONTS.sans[0]).fontSize(BODY_SIZE).currentLineHeight(true);
      let markerX = box.x;
      if (ordered) {
        doc.fillColor(box.color).text(`${start + index}.`, box.x, y, { width: numberWidth, align: 'right', lineBreak: false });
        markerX = box.x + numberWidth + 6;
      } else if (!tasks) {
        doc.fillColor(box.color).text(BULLETS[box.listDepth % BULLETS.length]!, box.x + 2, y, { lineBreak: false });
      }
      if (tasks) this.checkbox(markerX, y + (lineHeight - 8) / 2 - 0.5, item.data?.checked === true);
      doc.y = y;
      this.blocks(item.nodes, inner);
    });
    this.gap(inner.tight ? 5 : 2);
  }

  private checkbox(x: number, y: number, checked: boolean): void {
    const { doc } = this;
    doc.save();
    doc.lineWidth(0.8).strokeColor(MUTED_COLOR).rect(x, y, 8, 8).stroke();
    if (checked) {
      doc.lineWidth(1.3).strokeColor(TEXT_COLOR).moveTo(x + 1.6, y + 4.2).lineTo(x + 3.4, y + 6.2).lineTo(x + 6.6, y + 1.6).stroke();
    }
    doc.restore();
  }

  private blockquote(node: DocBlockquote, box: Box): void {
    const start = this.mark();
    this.blocks(node.nodes, { ...box, x: box.x + 14, width: box.width - 14, color: MUTED_COLOR });
    const end = { page: this.pageIndex(), y: this.doc.y - this.lastGap };
    this.alongside(start, end, (y0, y1) => this.doc.rect(box.x + 2, y0, 3, y1 - y0).fill(RULE_COLOR));
    this.gap(6);
  }

  private tab(node: DocTabsItem, box: Box): void {
    this.ensureSpace(BODY_SIZE * 3);
    this.write([{ text: node.data.title, bold: true, italic: false, strike: false, code: false, color: TEXT_COLOR }], box, { size: 9.5 });
    this.doc.y += 2;
    this.blocks(node.nodes, { ...box, x: box.x + 10, width: box.width - 10 });
    this.gap(6);
  }

  private hint(node: DocHint, box: Box): void {
    const style = HINT_COLORS[node.data.style] ? node.data.style : 'info';
    const color = HINT_COLORS[style]!;
    const inner: Box = { ...box, x: box.x + 14, width: box.width - 24 };
    this.ensureSpace(BODY_SIZE * 4);
    const start = this.mark();
    this.doc.y += 7;
    this.write([{ text: HINT_LABELS[style]!, bold: true, italic: false, strike: false, code: false, color }], inner, { size: 9.5 });
    this.doc.y += 2;
    this.blocks(node.nodes, inner);
    const end = { page: this.pageIndex(), y: this.doc.y - this.lastGap + 5 };
    // Outlines rather than a filled background: a fill drawn now would cover the text already written.
    this.alongside(start, end, (y0, y1) => {
      this.doc.save();
      this.doc.lineWidth(0.6).strokeColor(color).rect(box.x, y0, box.width, y1 - y0).stroke();
      this.doc.rect(box.x, y0, 3.5, y1 - y0).fill(color);
      this.doc.restore();
    });
    this.doc.y = end.y;
    this.gap(10);
  }

  /**
   * Draws beside content already written from `start` to `end`, one piece per page it spans (pages are
   * buffered, so earlier ones can still be drawn on).
   */
  private alongside(start: Mark, end: Mark, draw: (y0: number, y1: number) => void): void {
    const { doc } = this;
    const y = doc.y;
    for (let page = start.page; page <= end.page; page++) {
      doc.switchToPage(page);
      const y0 = page === start.page ? start.y : this.top;
      const y1 = page === end.page ? end.y : this.bottom;
      if (y1 > y0) draw(y0, y1);
    }
    doc.switchToPage(end.page);
    doc.y = y;
  }

  private code(lines: readonly string[], box: Box): void {
    const { doc } = this;
    const padding = 7;
    const size = 8.8;
    const lineGap = 1.5;
    const width = box.width - 2 * padding;
    doc.font(FONTS.mono[0]).fontSize(size);
    const lineHeight = doc.currentLineHeight(true) + lineGap;
    while (lines.length > 1 && lines[lines.length - 1] === '') lines = lines.slice(0, -1);
    this.doc.y += 2;
    this.ensureSpace(padding + lineHeight * Math.min(lines.length, 3));
    let y = doc.y;
    doc.rect(box.x, y, box.width, padding + 0.5).fill(CODE_BACKGROUND);
    y += padding;
    for (const line of lines) {
      doc.font(FONTS.mono[0]).fontSize(size);
      const text = this.fitWords(toWinAnsi(line) || ' ', width);
      const height = Math.max(lineHeight, doc.heightOfString(text, { width, lineGap }));
      if (y + height > this.bottom) {
        doc.addPage();
        y = this.top;
      }
      // Each line brings its own slice of background, so the grey follows the code across page breaks.
      doc.rect(box.x, y, box.width, height + 0.5).fill(CODE_BACKGROUND);
      doc.font(FONTS.mono[0]).fontSize(size).fillColor(TEXT_COLOR).text(text, box.x + padding, y, { width, lineGap });
      y += height;
    }
    if (y + padding <= this.bottom) {
      doc.rect(box.x, y, box.width, padding).fill(CODE_BACKGROUND);
      y += padding;
    }
    doc.x = box.x;
    doc.y = y;
    this.gap(box.tight ? 5 : 10);
  }

  private divider(box: Box): void {
    const { doc } = this;
    this.ensureSpace(16);
    doc.y += 5;
    doc.save();
    doc.moveTo(box.x, doc.y).lineTo(box.x + box.width, doc.y).lineWidth(0.75).strokeColor(RULE_COLOR).stroke();
    doc.restore();
    this.gap(11);
  }

  private image(node: DocImage, box: Box): void {
    const { doc } = this;
    const data: ImageData & { caption?: unknown } = node.data;
    const image = this.images.get(imageKey(data));
    const alt = typeof data.alt === 'string' ? data.alt : '';
    const caption = typeof data.caption === 'string' ? data.caption : typeof data.title === 'string' ? data.title : '';
    if (image) {
      // Pixels at 96 per inch, as a browser shows them, shrunk to fit the column and most of a page.
      const scale = Math.min(0.75, box.width / image.width, ((this.bottom - this.top) * 0.65) / image.height);
      const width = image.width * scale;
      const height = image.height * scale;
      this.ensureSpace(height + 4);
      const y = doc.y;
      try {
        doc.image(image.bytes, box.x, y, { width, height });
        doc.y = y + height + 4;
        if (caption) this.write([{ text: caption, bold: false, italic: true, strike: false, code: false, color: MUTED_COLOR }], box, { size: 9 });
        this.gap(8);
        return;
      } catch {
        doc.y = y;
      }
    }
    const label = alt || caption || data.src || 'image';
    this.write([{ text: `[Image: ${label}]`, bold: false, italic: true, strike: false, code: false, color: MUTED_COLOR }], box, { size: 9.5 });
    this.gap(8);
  }

  private footnote(node: DocFootnote, box: Box): void {
    const label = node.data.label ?? node.data.identifier;
    const labelBox: Box = { ...box, width: 24 };
    const y = this.doc.y;
    this.write([{ text: `[${label}]`, bold: false, italic: false, strike: false, code: false, color: MUTED_COLOR }], labelBox, { size: 9 });
    this.doc.y = y;
    this.blocks(node.nodes, { ...box, x: box.x + 24, width: box.width - 24, color: MUTED_COLOR, tight: true });
  }

  private table(node: DocTable, box: Box): void {
    const { doc } = this;
    const grid = tableGrid(node);
    // A table without a header (all its titles empty) is drawn without the header row.
    const rows = grid.hideHeader ? grid.rows.slice(1) : grid.rows;
    const columns = Math.max(0, ...rows.map((row) => row.length));
    if (columns === 0 || rows.length === 0) return;
    const aligns = grid.aligns;
    const size = 9;
    const padding = 4;
    const maxRowHeight = this.bottom - this.top - 2 * padding;

    // Columns get their natural width (widest cell) when everything fits, else shares of the width in
    // proportion to it, never less than a readable minimum.
    const natural = Array.from({ length: columns }, (_, column) =>
      Math.max(...rows.map((row, index) => {
        const cell = row[column];
        if (!cell) return 0;
        doc.font(index === 0 && !grid.hideHeader ? FONTS.sans[1] : FONTS.sans[0]).fontSize(size);
        return doc.widthOfString(toWinAnsi(plainText(cell))) + 2 * padding + 1;
      })));
    const minimum = Math.min(48, box.width / columns);
    let widths = natural.map((width) => Math.max(width, minimum));
    const total = widths.reduce((sum, width) => sum + width, 0);
    if (total > box.width) {
      const flexible = widths.map((width) => width - minimum);
      const spare = box.width - minimum * columns;
      const flexibleTotal = flexible.reduce((sum, width) => sum + width, 0);
      widths = flexible.map((width) => minimum + (flexibleTotal > 0 ? (width / flexibleTotal) * spare : spare / columns));
    }
    const tableWidth = widths.reduce((sum, width) => sum + width, 0);

    const rowHeight = (row: readonly DocParagraph[], header: boolean): number => {
      let height = 0;
      row.forEach((cell, column) => {
        doc.font(header ? FONTS.sans[1] : FONTS.sans[0]).fontSize(size);
        const text = this.fitWords(toWinAnsi(plainText(cell)) || ' ', widths[column]! - 2 * padding);
        height = Math.max(height, doc.heightOfString(text, { width: widths[column]! - 2 * padding, lineGap: 1 }));
      });
      return Math.min(Math.max(height, doc.currentLineHeight(true)) + 2 * padding + 1, maxRowHeight);
    };

    const drawRow = (row: readonly DocParagraph[], header: boolean, y: number, height: number): void => {
      let x = box.x;
      if (header) doc.rect(box.x, y, tableWidth, height).fill(CODE_BACKGROUND);
      for (let column = 0; column < columns; column++) {
        const width = widths[column]!;
        const cell = row[column];
        if (cell) {
          const requested = aligns[column];
          const align = requested === 'center' || requested === 'right' ? requested : 'left';
          const segments = this.segments(cell.nodes).map((segment) => (header ? { ...segment, bold: true } : segment));
          doc.y = y + padding;
          this.write(segments, { ...box, x: x + padding, width: width - 2 * padding }, { size, align, height: height - 2 * padding, lineGap: 1, noBreak: true });
        }
        doc.save();
        doc.lineWidth(0.5).strokeColor(RULE_COLOR).rect(x, y, width, height).stroke();
        doc.restore();
        x += width;
      }
    };

    const header = grid.hideHeader ? undefined : rows[0]!;
    const headerHeight = header ? rowHeight(header, true) : 0;
    const firstBody = rows[header ? 1 : 0];
    this.ensureSpace(headerHeight + (firstBody ? rowHeight(firstBody, false) : 0));
    let y = doc.y;
    rows.forEach((row, index) => {
      const isHeader = header !== undefined && index === 0;
      const height = isHeader ? headerHeight : rowHeight(row, false);
      if (y + height > this.bottom) {
        doc.addPage();
        y = this.top;
        // The header row again on each page the table continues on.
        if (header && !isHeader) {
          drawRow(header, true, y, headerHeight);
          y += headerHeight;
        }
      }
      drawRow(row, isHeader, y, height);
      y += height;
    });
    doc.x = box.x;
    doc.y = y;
    this.gap(10);
  }

  /**
   * The text with every word wider than `width` cut into pieces that fit, one per line, in the current font.
   * pdfkit breaks such a word itself by measuring ever longer prefixes of it, which takes time in the square
   * of the word's length (a word of 100,000 characters held the server for 12.8 seconds); measured here one
   * character at a time, it takes time in proportion to the length, and the lines come out the same.
   */
  private fitWords(text: string, width: number): string {
    const { doc } = this;
    // A word of fewer characters fits any column this renderer lays out; pdfkit's own breaking is cheap for it.
    return text.replace(/\S{24,}/g, (word) => {
      if (doc.widthOfString(word) <= width) return word;
      const widths = new Map<string, number>();
      const pieces: string[] = [];
      let start = 0;
      let used = 0;
      for (let i = 0; i < word.length; i++) {
        const char = word[i]!;
        let charWidth = widths.get(char);
        if (charWidth === undefined) {
          charWidth = doc.widthOfString(char);
          widths.set(char, charWidth);
        }
        if (used + charWidth > width && i > start) {
          pieces.push(word.slice(start, i));
          start = i;
          used = 0;
        }
        used += charWidth;
      }
      pieces.push(word.slice(start));
      return pieces.join('\n');
    });
  }

  // ----- inline text -----

  private segments(nodes: readonly DocInlineContent[], inherited: Partial<Segment> = {}): Segment[] {
    const out: Segment[] = [];
    const base: Segment = { text: '', bold: false, italic: false, strike: false, code: false, ...inherited };
    for (const node of nodes) {
      if (node.object === 'text') {
        for (const leaf of node.leaves) {
          const marks = new Set(leaf.marks.map((mark) => mark.type));
          out.push({
            ...base,
            text: leaf.text,
            bold: base.bold || marks.has('bold'),
            italic: base.italic || marks.has('italic'),
            strike: base.strike || marks.has('strikethrough'),
            code: base.code || marks.has('code'),
          });
        }
        continue;
      }
      switch (node.type) {
        case 'link': {
          const target: Partial<Segment> = {};
          const { href, ref } = node.data;
          const destination = ref.kind === 'page' ? this.destinations.get(ref.page) : undefined;
          if (destination) target.goTo = destination;
          else if (/^(https?:|mailto:)/i.test(href)) target.link = href;
          out.push(...this.segments(node.nodes, { ...inherited, ...target }));
          break;
        }
        case 'break':
          out.push({ ...base, text: '\n' });
          break;
        case 'inline-image':
          out.push({ ...base, text: `[${node.data.alt || 'image'}]`, italic: true });
          break;
        case 'footnote-ref':
          out.push({ ...base, text: `[${node.data.label ?? node.data.identifier}]`, color: MUTED_COLOR });
          break;
        case 'html':
          // Inline HTML is markup around text that is already here; only a line break means something.
          if (/^<br\s*\/?>$/i.test(node.data.html.trim())) out.push({ ...base, text: '\n' });
          break;
        default: {
          const unknown: never = node;
          void unknown;
        }
      }
    }
    return out;
  }

  /**
   * Writes styled runs as one flowing paragraph (pdfkit's `continued` text). Returns whether anything was
   * written. Every option is given on every run, because pdfkit carries unspecified ones over from the
   * previous run (a link would otherwise spill onto the text after it).
   */
  private write(
    segments: readonly Segment[],
    box: Box,
    style: { size: number; color?: string; align?: string; height?: number; lineGap?: number; noBreak?: boolean },
  ): boolean {
    const { doc } = this;
    const runs: Segment[] = [];
    for (const segment of segments) {
      const text = toWinAnsi(segment.text);
      if (text === '') continue;
      const previous = runs[runs.length - 1];
      if (previous && previous.bold === segment.bold && previous.italic === segment.italic && previous.strike === segment.strike
        && previous.code === segment.code && previous.link === segment.link && previous.goTo === segment.goTo && previous.color === segment.color) {
        previous.text += text;
      } else {
        runs.push({ ...segment, text });
      }
    }
    // Trailing line breaks would leave an empty line; leading ones an empty line above.
    while (runs.length > 0) {
      const last = runs[runs.length - 1]!;
      last.text = last.text.replace(/\n+$/, '');
      if (last.text !== '') break;
      runs.pop();
    }
    if (runs.length === 0 || runs.every((run) => run.text.trim() === '')) return false;

    const lineGap = style.lineGap ?? 2;
    if (!style.noBreak) this.ensureSpace(style.size * 1.3);
    doc.x = box.x;
    runs.forEach((run, index) => {
      const linked = run.link !== undefined || run.goTo !== undefined;
      doc.font(fontFor(run)).fontSize(run.code ? style.size * 0.92 : style.size)
        .fillColor(linked ? LINK_COLOR : run.color ?? style.color ?? box.color);
      const options = {
        width: box.width,
        continued: index < runs.length - 1,
        lineGap,
        align: style.align ?? 'left',
        link: run.link ?? null,
        goTo: run.goTo ?? null,
        underline: linked,
        strike: run.strike,
        // One baseline for the whole line: pdfkit places each run by its own font's ascender, which would
        // lift Courier (code) runs above the Helvetica around them.
        baseline: -HELVETICA_ASCENDER * style.size,
        ...(style.height !== undefined ? { height: style.height, ellipsis: true } : {}),
      } as unknown as PDFKit.Mixins.TextOptions;
      const text = this.fitWords(run.text, box.width);
      if (index === 0) doc.text(text, box.x, doc.y, options);
      else doc.text(text, options);
    });
    doc.x = box.x;
    return true;
  }
}
