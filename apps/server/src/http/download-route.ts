import { pipeline } from 'node:stream/promises';
import { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { ApiError, BadRequestError, MethodNotAllowedError } from '../errors.js';
import type { BlobStorage } from '../storage/blob-storage.js';
import type { UrlSigner } from '../storage/signed-urls.js';

/*
 * `GET /downloads/:hash/:filename`: serves stored bytes to whoever holds a signed URL. It lives outside the
 * API base path and takes no bearer token: the signature is the authorization, so the URL can be put in an
 * <img> tag, a browser tab or a curl command.
 */

export interface DownloadRouteOptions {
  storage: BlobStorage;
  signer: UrlSigner;
  /** The clock, in milliseconds (for Cache-Control); tests pass a fixed one. */
  now?: () => number;
}

/** Shown by browsers in place (images, PDFs); everything else is saved as a file. */
export function isInlineType(contentType: string): boolean {
  const essence = mediaTypeEssence(contentType);
  return essence.startsWith('image/') || essence === 'application/pdf';
}

/**
 * Types a browser would run scripts in if opened from our origin. They get a CSP that forbids scripts,
 * plugins and network access and sandboxes the document into an opaque origin.
 */
export function isActiveType(contentType: string): boolean {
  const essence = mediaTypeEssence(contentType);
  return essence === 'image/svg+xml' || essence === 'text/html' || essence === 'application/xhtml+xml'
    || essence === 'text/xml' || essence === 'application/xml' || essence.endsWith('+xml');
}

export const ACTIVE_CONTENT_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox";

function mediaTypeEssence(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * `Content-Disposition` per RFC 6266: an ASCII `filename` for old clients (anything else replaced by `_`)
 * and the exact name as UTF-8 in `filename*` (RFC 8187).
 */
export function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

function refused(status: 403 | 404, message: string): ApiError {
  // A refused download must not be cached by a browser or a proxy in front of us either.
  return new ApiError(status, message, { 'Cache-Control': 'no-store' });
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

export function downloadRouter(options: DownloadRouteOptions): Router {
  const now = options.now ?? Date.now;
  const router = Router();

  router.get('/downloads/:hash/:filename', async (req: Request, res: Response) => {
    const { hash, filename } = req.params as { hash: string; filename: string };
    const query = req.query as Record<string, unknown>;
    const verified = options.signer.verify({ hash, filename, expires: query.expires, sig: query.sig, type: query.type });
    if (!verified.ok) {
      if (verified.reason === 'expired') throw refused(403, 'This download link has expired; ask the API for a new one');
      throw refused(403, 'This download link is not valid');
    }

    const blob = await options.storage.get(verified.hash);
    if (!blob) throw refused(404, 'The file of this download link no longer exists');

    const etag = `"${verified.hash}"`;
    const maxAge = Math.max(0, verified.expires - Math.ceil(now() / 1000));
    res.setHeader('Cache-Control', `private, max-age=${maxAge}`);
    res.setHeader('ETag', etag);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (isActiveType(verified.contentType)) res.setHeader('Content-Security-Policy', ACTIVE_CONTENT_POLICY);

    if (etagMatches(req.headers['if-none-match'], etag)) {
      blob.stream.destroy();
      res.statusCode = 304;
      res.end();
      return;
    }

    res.statusCode = 200;
    res.setHeader('Content-Type', verified.contentType);
    res.setHeader('Content-Length', String(blob.size));
    res.setHeader('Content-Disposition', contentDisposition(isInlineType(verified.contentType) ? 'inline' : 'attachment', verified.filename));
    if (req.method === 'HEAD') {
      blob.stream.destroy();
      res.end();
      return;
    }
    try {
      await pipeline(blob.stream, res);
    } catch (error) {
      // Once bytes are out no error answer can follow; pipeline has already cut the connection. A client
      // that hung up early lands here too, and is no error of ours.
      if (!res.headersSent) throw error;
    }
  });

  // The router decodes path parameters before any handler runs and fails with a bare URIError on bad
  // percent-encoding; that is the caller's mistake, answered as a 400 in the API's error shape.
  const badEncoding: ErrorRequestHandler = (error, _req, _res, next) => {
    next(error instanceof URIError ? new BadRequestError('The path is not valid percent-encoded text') : error);
  };
  router.use('/downloads', badEncoding);
  router.all('/downloads/:hash/:filename', (req) => {
    throw new MethodNotAllowedError(req.method, ['GET', 'HEAD']);
  });

  return router;
}
