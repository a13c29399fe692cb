import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { sendJson } from './respond.js';

/** Where the text of `/metrics` comes from: this process's registry, or (a cluster's primary) every worker's. */
export type MetricsSource = () => Promise<{ contentType: string; text: string }>;

export interface MetricsRouteOptions {
  source: MetricsSource;
  /** QUIRE_METRICS_TOKEN: when set, only requests with `Authorization: Bearer <token>` are answered. */
  token?: string;
  logger: Logger;
}

/**
 * Answers `GET /metrics` in the Prometheus text format, and refuses anything else with the API's error shape.
 * This listener is mounted on the API's port when a token is configured (app.ts), and is the whole of the
 * separate metrics listener when QUIRE_METRICS_PORT is set (server.ts, or a cluster's primary).
 */
export function metricsRequestListener(options: MetricsRouteOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const expected = options.token === undefined ? undefined : digest(options.token);
  return (req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== '/metrics') return refuse(req, res, 404, 'No route matches ' + `${req.method} ${pathname}`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return refuse(req, res, 405, `${req.method} is not allowed on /metrics`);
    }
    if (expected !== undefined && !carriesToken(req, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return refuse(req, res, 401, 'The metrics need the bearer token of QUIRE_METRICS_TOKEN');
    }
    options.source().then(({ contentType, text }) => {
      res.statusCode = 200;
      res.setHeader('Content-Type', contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(req.method === 'HEAD' ? undefined : text);
    }, (error: unknown) => {
      options.logger.error({ err: error }, 'metrics could not be collected');
      refuse(req, res, 503, 'The metrics could not be collected');
    });
  };
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, message: string): void {
  res.setHeader('Cache-Control', 'no-store');
  sendJson(req, res, status, { error: { code: status, message } });
}

/** Tokens are compared as SHA-256 digests, so the comparison takes the same time whatever the length sent. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function carriesToken(req: IncomingMessage, expected: Buffer): boolean {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}
