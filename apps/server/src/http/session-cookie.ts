import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PresentContext } from './presenters/context.js';

/*
 * The browser session's cookie (issue 24): `quire_session`, holding the session's secret. HttpOnly (no script
 * reads it), SameSite=Lax (other sites' pages do not send it with their requests, only top-level navigations
 * back to Quire, which the command line's hand-over needs), Path=/ (the API, the reader and the SSO routes),
 * Secure when Quire is served over HTTPS (a local install runs on plain HTTP).
 */

export const SESSION_COOKIE = 'quire_session';
/** Longest cookie value taken: a secret is `qs_` and 43 characters; anything much longer is not ours. */
const MAX_SECRET_LENGTH = 128;

/** The session secret of the request's cookie, if it sends one. */
export function readSessionCookie(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at === -1 || part.slice(0, at).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(at + 1).trim();
    if (value === '' || value.length > MAX_SECRET_LENGTH) return undefined;
    return value;
  }
  return undefined;
}

function attributes(present: PresentContext, maxAgeSeconds: number): string {
  const secure = present.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Lax${secure}`;
}

/** Gives the browser its session: the cookie lasts until the session's absolute expiry. */
export function setSessionCookie(res: ServerResponse, present: PresentContext, secret: string, expiresAt: string): void {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${secret}; ${attributes(present, maxAge)}`);
  res.setHeader('Cache-Control', 'no-store');
}

export function clearSessionCookie(res: ServerResponse, present: PresentContext): void {
  res.setHeader('Set-Cookie', `${SESSION_COOKIE}=; ${attributes(present, 0)}`);
}
