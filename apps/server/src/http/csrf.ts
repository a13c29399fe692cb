import type { IncomingMessage } from 'node:http';
import { ForbiddenError } from '../errors.js';
import { isCsrfTokenOf } from '../services/browser-session-service.js';

/*
 * The CSRF defence of requests made with the session cookie (issue 24). Browsers attach the cookie to
 * requests that other sites' pages make (SameSite=Lax stops most, not top-level form posts and not
 * same-site origins), so an unsafe method with the cookie must show it comes from Quire's own pages:
 * - `Sec-Fetch-Site`, which browsers set and pages cannot forge, is `same-origin` (or absent);
 * - `Origin`, when sent, is Quire's own (its public URL's origin, or the origin of the Host asked);
 * - `X-CSRF-Token` is the session's token, which only a page that read `getCurrentSession` or `signIn`
 *   holds: another site cannot read it, and a plain form cannot send a header.
 * Requests with a bearer token need none of this: no browser adds an Authorization header by itself.
 */

export const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function refused(reason: string): ForbiddenError {
  return new ForbiddenError(`Cross-site request refused: ${reason}`);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Whether the request's `Origin` is this Quire's: its public URL's, or that of the Host the request was sent to. */
function isOwnOrigin(req: IncomingMessage, origin: string, publicUrl: string): boolean {
  if (!URL.canParse(origin)) return false;
  const parsed = new URL(origin);
  if (parsed.origin === new URL(publicUrl).origin) return true;
  const host = header(req, 'host');
  return host !== undefined && parsed.host === host.toLowerCase() && (parsed.protocol === 'http:' || parsed.protocol === 'https:');
}

/**
 * Refuses a request a browser made from another site: `Sec-Fetch-Site` other than `same-origin`, or an
 * `Origin` that is not Quire's. Requests that send neither (not browsers, or old ones) pass this check.
 */
export function assertSameOrigin(req: IncomingMessage, publicUrl: string): void {
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') throw refused(`Sec-Fetch-Site is ${site.slice(0, 32)}`);
  const origin = header(req, 'origin');
  if (origin !== undefined && !isOwnOrigin(req, origin, publicUrl)) throw refused('the Origin is not this Quire\'s');
}

/** The whole defence of an unsafe request made with the session `secret`: same origin, and the session's CSRF token. */
export function assertCsrfDefence(req: IncomingMessage, publicUrl: string, secret: string): void {
  assertSameOrigin(req, publicUrl);
  if (!isCsrfTokenOf(secret, header(req, 'x-csrf-token'))) throw refused('X-CSRF-Token is missing or is not this session\'s');
}
