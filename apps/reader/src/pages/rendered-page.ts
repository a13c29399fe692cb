import { createHash } from 'node:crypto';
import { csp } from '../http/headers.js';
import type { HeaderList } from '../http/respond.js';
import { renderLayout, type LayoutContext, type PageBody } from '../site/layout.js';

/** A page of a site as served: its bytes, strong ETag and policy, kept in the page cache. */
export interface RenderedPage {
  body: Buffer;
  etag: string;
  csp: string;
  status: number;
  /** Response headers by visibility, made on first use: those of a 304, and those of the full answer. */
  headers: Map<string, { notModified: HeaderList; full: HeaderList }>;
}

/** The body inside the site's layout, with the ETag of its bytes and the policy allowing its inline style. */
export function renderedPage(ctx: LayoutContext, body: PageBody, status: number): RenderedPage {
  const { html, styleHash } = renderLayout(ctx, body);
  const bytes = Buffer.from(html);
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { body: bytes, etag, csp: csp(styleHash), status, headers: new Map() };
}
