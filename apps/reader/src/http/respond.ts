import type { IncomingMessage, ServerResponse } from 'node:http';
import { bareDocument, type BareAnswer } from '../pages/bare-page.js';
import type { RenderedPage } from '../pages/rendered-page.js';
import type { AssetPaths } from '../site/layout.js';
import { commonHeaders, csp, setCommonHeaders } from './headers.js';

export const TEXT = 'text/plain; charset=utf-8';

export function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', bytes.length);
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

export function sendNotFoundText(res: ServerResponse, req: IncomingMessage): void {
  send(res, req, 404, TEXT, 'Not found\n');
}

/** Ends the answer with a redirect; the caller has set the other headers. */
export function redirect(res: ServerResponse, status: number, location: string): void {
  res.statusCode = status;
  res.setHeader('Location', location);
  res.end();
}

/** A bare page (outside any site's layout), with the common headers of no site. */
export function sendBarePage(res: ServerResponse, req: IncomingMessage, assets: AssetPaths, answer: BareAnswer): void {
  setCommonHeaders(res);
  send(res, req, answer.status, 'text/html; charset=utf-8', bareDocument(assets, answer.title, answer.message), { 'Content-Security-Policy': csp() });
}

/**
 * Headers as `writeHead` takes them at once: name, value, name, value... Given to a response that has no header
 * set yet, Node writes them as they are (checking each once); after a `setHeader` it would merge them into the
 * set ones, one `setHeader` each, and that merge was the largest part of a cached page's own work.
 */
export type HeaderList = string[];

/**
 * Cached pages are the hot path: their headers are made once per page and visibility and written at once, after
 * `firstHeaders` (the server's own for this answer, its request id) when given, which nothing has set before.
 */
export function sendPage(req: IncomingMessage, res: ServerResponse, page: RenderedPage, visibility: string, firstHeaders?: HeaderList): void {
  let headers = page.headers.get(visibility);
  if (!headers) {
    const notModified = headerList({ ...commonHeaders(visibility), 'Content-Security-Policy': page.csp, ETag: page.etag });
    headers = { notModified, full: [...notModified, 'Content-Type', 'text/html; charset=utf-8', 'Content-Length', String(page.body.length)] };
    page.headers.set(visibility, headers);
  }
  const match = req.headers['if-none-match'];
  const notModified = page.status === 200 && typeof match === 'string' && match.split(',').some((tag) => tag.trim() === page.etag);
  const list = notModified ? headers.notModified : headers.full;
  res.writeHead(notModified ? 304 : page.status, firstHeaders ? firstHeaders.concat(list) : list);
  res.end(notModified || req.method === 'HEAD' ? undefined : page.body);
}

function headerList(headers: Record<string, string>): HeaderList {
  return Object.entries(headers).flat();
}

/** Sets `headers` (a HeaderList) on the response, in their order. */
export function setHeaderList(res: ServerResponse, headers: HeaderList | undefined): void {
  if (headers) for (let at = 0; at < headers.length; at += 2) res.setHeader(headers[at]!, headers[at + 1]!);
}
