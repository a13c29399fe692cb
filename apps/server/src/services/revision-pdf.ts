import { readMarkdown, WorkingTree, type PageNode } from '../content/index.js';
import { BadRequestError, NotFoundError, ServiceUnavailableError, UnprocessableContentError } from '../errors.js';
import type { PdfTaskPage } from '../pdf/pdf-worker.js';
import { MAX_PDF_MARKDOWN_LENGTH, PdfTimeoutError } from '../pdf/pdf-pool.js';
import { readBlob } from '../storage/blob-storage.js';
import type { ServiceContext } from './context.js';
import { contentReader, revisionRoot } from './revision-content.js';

/*
 * A PDF of one revision of a space: the path that getChangeRequestPDF (a change request's revision) and
 * getSpacePDF (the space's current revision) share, so both hold the same bound on the work one request
 * may cause (MAX_PDF_MARKDOWN_LENGTH, 422 past it) and choose their pages by the same `page` and `only`.
 */

export interface PdfPageQuery {
  page?: string;
  only?: boolean;
}

export interface RevisionPdfRequest {
  spaceId: string;
  revisionId: string;
  query: PdfPageQuery;
  title: string;
  subtitle: string;
  /** The moment the content stands for: the same content at the same moment renders the same bytes, kept once. */
  createdAt: string;
  /** What the content is called in the 404 of a `page` it lacks ("this change request", "the space"). */
  contentName: string;
}

/** The pages the PDF holds, parents before children: every page, or one page with (or without) its descendants. */
function pdfPages(tree: WorkingTree, query: PdfPageQuery, contentName: string): PageNode[] {
  if (query.only && query.page === undefined) throw new BadRequestError('query.only needs query.page: the page to make the PDF of');
  if (query.page === undefined) return [...tree.walk()];
  const start = tree.getPage(query.page);
  if (!start) throw new NotFoundError(`No page of ${contentName} matches query.page`);
  if (query.only) return [start];
  const pages: PageNode[] = [];
  const stack = [start];
  while (stack.length > 0) {
    const node = stack.pop()!;
    pages.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return pages;
}

/**
 * Renders the revision's content (or one page, see `pdfPages`) to a PDF in the blob storage and answers a
 * signed URL to it. Pages that hold no document (links, groups) give no sheet of their own. The caller has
 * checked access already. Nothing here runs in a transaction: reading immutable objects needs none, and
 * rendering is slow.
 */
export async function publishRevisionPdf(context: ServiceContext, request: RevisionPdfRequest): Promise<{ url: string }> {
  const { blobStorage, urlSigner } = context;
  if (!blobStorage || !urlSigner) throw new Error('PDFs need the blob storage and the URL signer in the service context');
  const reader = contentReader(context.db);
  const tree = await WorkingTree.load(reader, await revisionRoot(context.db, request.spaceId, request.revisionId));
  const pages: PdfTaskPage[] = [];
  let length = 0;
  for (const node of pdfPages(tree, request.query, request.contentName)) {
    if (node.fields.type !== 'document' && node.content === null) continue;
    const markdown = await readMarkdown(reader, node.content);
    length += markdown.length;
    if (length > MAX_PDF_MARKDOWN_LENGTH) {
      throw new UnprocessableContentError(
        `The PDF would hold more than ${MAX_PDF_MARKDOWN_LENGTH.toLocaleString('en-US')} characters of markdown, the limit of one PDF; ask for part of the content with query.page (and query.only for one page)`,
      );
    }
    pages.push({ id: node.id, title: node.fields.title, path: tree.pathOf(node), markdown });
  }
  // The images the pages may show: the space's image files that their markdown names (`/files/<id>`). The
  // bytes are read here, so that the worker thread needs nothing but its task.
  const files: Record<string, Uint8Array> = {};
  for (const page of pages) {
    for (const match of page.markdown.matchAll(/\/files\/([A-Za-z0-9_-]+)/g)) {
      const fileId = match[1]!;
      const file = tree.getFile(fileId);
      if (!file || fileId in files || !file.contentType.startsWith('image/')) continue;
      const bytes = await readBlob(blobStorage, file.blob, 16 * 1024 * 1024);
      if (bytes) files[fileId] = bytes;
    }
  }
  // The PDF renderer (pdfkit and its fonts) is loaded on first use: it is a quarter of the server's start-up.
  const { publishPdfOffThread } = await import('../pdf/publish.js');
  try {
    const published = await publishPdfOffThread(
      { title: request.title, subtitle: request.subtitle, pages, files, createdAt: new Date(request.createdAt).toISOString() },
      { storage: blobStorage, signer: urlSigner },
    );
    return { url: published.url };
  } catch (error) {
    if (error instanceof PdfTimeoutError) throw new ServiceUnavailableError(error.message);
    throw error;
  }
}
