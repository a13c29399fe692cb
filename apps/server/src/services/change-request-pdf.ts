import { readMarkdown, WorkingTree, type PageNode } from '../content/index.js';
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '../errors.js';
import type { PdfTaskPage } from '../pdf/pdf-worker.js';
import { readBlob } from '../storage/blob-storage.js';
import type { Caller } from './caller.js';
import { requireChangeRequest } from './change-request-service.js';
import { MAX_PDF_MARKDOWN_LENGTH, PdfTimeoutError } from '../pdf/pdf-pool.js';
import type { ServiceContext } from './context.js';
import { contentReader, revisionRoot } from './revision-content.js';

/** The pages the PDF holds, parents before children: every page, or one page with (or without) its descendants. */
function pdfPages(tree: WorkingTree, query: { page?: string; only?: boolean }): PageNode[] {
  if (query.only && query.page === undefined) throw new BadRequestError('query.only needs query.page: the page to make the PDF of');
  if (query.page === undefined) return [...tree.walk()];
  const start = tree.getPage(query.page);
  if (!start) throw new NotFoundError('No page of this change request matches query.page');
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
 * Renders the request's content (or one page, see `pdfPages`) to a PDF in the blob storage and answers a
 * signed URL to it. Pages that hold no document (links, groups) give no sheet of their own. Nothing here
 * runs in a transaction: reading immutable objects needs none, and rendering is slow.
 */
export async function getChangeRequestPDF(
  context: ServiceContext,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  query: { page?: string; only?: boolean },
): Promise<{ url: string }> {
  const { blobStorage, urlSigner } = context;
  if (!blobStorage || !urlSigner) throw new Error('PDFs need the blob storage and the URL signer in the service context');
  const { space, changeRequest } = await requireChangeRequest(context, caller, spaceId, idOrNumber);
  const reader = contentReader(context.db);
  const tree = await WorkingTree.load(reader, await revisionRoot(context.db, space.id, changeRequest.revision_id));
  const pages: PdfTaskPage[] = [];
  let length = 0;
  for (const node of pdfPages(tree, query)) {
    if (node.fields.type !== 'document' && node.content === null) continue;
    const markdown = await readMarkdown(reader, node.content);
    length += markdown.length;
    if (length > MAX_PDF_MARKDOWN_LENGTH) {
      throw new BadRequestError(`The PDF would hold more than ${MAX_PDF_MARKDOWN_LENGTH} characters of markdown, its limit; ask for part of the content with query.page`);
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
  const subject = changeRequest.subject.trim();
  // The PDF renderer (pdfkit and its fonts) is loaded on first use: it is a quarter of the server's start-up.
  const { publishPdfOffThread } = await import('../pdf/publish.js');
  try {
    const published = await publishPdfOffThread(
      {
        title: subject === '' ? `Change request #${changeRequest.number}` : `Change request #${changeRequest.number}: ${subject}`,
        subtitle: space.title === '' ? 'Untitled space' : space.title,
        pages,
        files,
        // The same content at the same moment renders the same bytes, which the storage keeps once.
        createdAt: new Date(changeRequest.updated_at).toISOString(),
      },
      { storage: blobStorage, signer: urlSigner },
    );
    return { url: published.url };
  } catch (error) {
    if (error instanceof PdfTimeoutError) throw new ServiceUnavailableError(error.message);
    throw error;
  }
}
