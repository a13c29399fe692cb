import { ContentError } from '../content/errors.js';
import { DOCUMENT_SCHEMA_VERSION, markdownToDocument, type Doc } from '../content/markdown/index.js';
import { renderPdf } from './render.js';

/*
 * The worker-thread side of pdf-pool.ts: the CPU-heavy, pure part of a PDF (reading each page's markdown
 * into a document, and laying the pages out), run where it cannot stall the requests the server is answering.
 * Everything it needs comes in the task: the images are read beforehand, by the file ids the pages use.
 */

export interface PdfTaskPage {
  id?: string;
  title: string;
  path: string;
  markdown: string;
}

export interface PdfTask {
  title: string;
  subtitle?: string;
  /** ISO date: written in the PDF, so the same content and date render the same bytes. */
  createdAt: string;
  pages: PdfTaskPage[];
  /** The bytes of the space's files that pages show as images, by file id. */
  files: Record<string, Uint8Array>;
  compress?: boolean;
}

/**
 * The document of a page. Markdown past the content limits (stored before they existed) cannot be converted
 * (its conversion would overflow the stack): the page shows which limit, then its markdown as written.
 */
function pageDocument(markdown: string): Doc {
  try {
    return markdownToDocument(markdown);
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    const text = (value: string) => ({ object: 'text' as const, leaves: [{ object: 'leaf' as const, text: value, marks: [] }] });
    return {
      object: 'document',
      data: { schemaVersion: DOCUMENT_SCHEMA_VERSION },
      nodes: [
        { object: 'block', type: 'paragraph', nodes: [text(`This page is past the content limits (${error.message}); its markdown follows as written.`)] },
        { object: 'block', type: 'code', data: {}, nodes: markdown.split('\n').map((line) => ({ object: 'block' as const, type: 'code-line' as const, data: {}, nodes: [text(line)] })) },
      ],
    };
  }
}

export default async function runPdfTask(task: PdfTask): Promise<Uint8Array> {
  const pages = task.pages.map((page) => ({
    ...(page.id !== undefined ? { id: page.id } : {}),
    title: page.title,
    path: page.path,
    document: pageDocument(page.markdown),
  }));
  const pdf = await renderPdf({
    title: task.title,
    ...(task.subtitle !== undefined ? { subtitle: task.subtitle } : {}),
    pages,
    images: (ref) => (ref.kind === 'file' ? task.files[ref.file] : undefined),
    createdAt: new Date(task.createdAt),
    ...(task.compress !== undefined ? { compress: task.compress } : {}),
  });
  return new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
}
