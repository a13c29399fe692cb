import type { IncomingMessage } from 'node:http';

/** The reader's cookies: the share key and the visitor JWT of a site, each scoped to the site's path. */
export const SHARE_COOKIE = 'quire_share_key';
export const JWT_COOKIE = 'quire_visitor_jwt';
/**
 * The browser session a sign-in opens (set by the API's `signIn` or `/auth/saml/<id>/acs`, HttpOnly, path /):
 * forwarded to the lookup alone so that members read their organization's restricted sites.
 */
export const SESSION_COOKIE = 'quire_session';

const NO_COOKIES: ReadonlyMap<string, string> = new Map();

export function readCookies(req: IncomingMessage): ReadonlyMap<string, string> {
  const header = req.headers.cookie;
  // Most readers of open sites send none: nothing is allocated for them.
  if (!header) return NO_COOKIES;
  const cookies = new Map<string, string>();
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    // The most specific path comes first (browsers order by path length): the first value wins.
    if (!cookies.has(name)) {
      try {
        cookies.set(name, decodeURIComponent(part.slice(at + 1).trim()));
      } catch {
        // A cookie not of ours, badly encoded: ignored.
      }
    }
  }
  return cookies;
}

/** HttpOnly (never readable by script), SameSite=Lax, only under the site's path, Secure on https. */
export function secretCookie(name: string, value: string, path: string, secure: boolean, maxAgeSeconds?: number): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${path || '/'}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  return parts.join('; ');
}
