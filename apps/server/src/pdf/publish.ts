import type { BlobStorage } from '../storage/blob-storage.js';
import { safeFilename, type UrlSigner } from '../storage/signed-urls.js';
import { renderPdfOffThread } from './pdf-pool.js';
import type { PdfTask } from './pdf-worker.js';
import { renderPdf, type ImageLoader, type RenderPdfInput } from './render.js';

/*
 * The last step of `getChangeRequestPDF`: render, store the bytes, answer a signed URL. Rendering happens
 * outside any transaction (it is slow and writes to disk). The stored PDF is keyed by its bytes, and the
 * same content and `createdAt` render the same bytes, so asking twice stores one file.
 */

export interface PublishPdfOptions {
  storage: BlobStorage;
  signer: UrlSigner;
  /** How long the URL works; the signer's default (one hour) when absent. */
  ttlSeconds?: number;
}

export interface PublishedPdf {
  url: string;
  hash: string;
  size: number;
}

/** `Getting started.pdf` from a title: safe in a URL and a header, never empty. */
export function pdfFilename(title: string): string {
  const base = safeFilename(title.replace(/[<>:"|?*]/g, '').replace(/\s+/g, ' ').trim()).replace(/\.pdf$/i, '');
  return `${[...base].slice(0, 120).join('')}.pdf`;
}

export async function publishPdf(input: RenderPdfInput, options: PublishPdfOptions): Promise<PublishedPdf> {
  return storePdf(await renderPdf(input), input.title, options);
}

/** Renders the pages' markdown in the PDF worker thread (see pdf-pool.ts), then stores it as `publishPdf` does. */
export async function publishPdfOffThread(task: PdfTask, options: PublishPdfOptions): Promise<PublishedPdf> {
  return storePdf(await renderPdfOffThread(task), task.title, options);
}

async function storePdf(pdf: Buffer, title: string, options: PublishPdfOptions): Promise<PublishedPdf> {
  const { hash, size } = await options.storage.put(pdf);
  const url = options.signer.sign({
    hash,
    filename: pdfFilename(title),
    contentType: 'application/pdf',
    ...(options.ttlSeconds !== undefined ? { ttlSeconds: options.ttlSeconds } : {}),
  });
  return { url, hash, size };
}

/**
 * Images for the PDF from the space's own files: `ref.kind = file` is looked up with `loadFile` (the
 * service maps the file id to its blob and reads it). URLs elsewhere on the web are not fetched: that
 * would need the SSRF guard and a time budget; those images appear as placeholders.
 */
export function fileImageLoader(loadFile: (fileId: string) => Promise<Uint8Array | undefined> | Uint8Array | undefined): ImageLoader {
  return (ref) => (ref.kind === 'file' ? loadFile(ref.file) : undefined);
}
