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

/** Cached pages are the hot path: their headers are made once per page and visibility and written at once. */
export function sendPage(req: IncomingMessage, res: ServerResponse, page: RenderedPage, visibility: string): void {
  let headers = page.headers.get(visibility);
  if (!headers) {
    const notModified = { ...commonHeaders(visibility), 'Content-Security-Policy': page.csp, ETag: page.etag };
    headers = { notModified, full: { ...notModified, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(page.body.length) } };
    page.headers.set(visibility, headers);
  }
  const match = req.headers['if-none-match'];
  if (page.status === 200 && typeof match === 'string' && match.split(',').some((tag) => tag.trim() === page.etag)) {
    res.writeHead(304, headers.notModified);
    res.end();
    return;
  }
  res.writeHead(page.status, headers.full);
  res.end(req.method === 'HEAD' ? undefined : page.body);
}
