import type { IncomingMessage } from 'node:http';
import { JWT_COOKIE, SESSION_COOKIE, SHARE_COOKIE, readCookies } from '../site/cookies.js';

const SECRET_PARAMS = ['shareKey', 'jwt_token'];
const NO_QUERY: Readonly<URLSearchParams> = new URLSearchParams();

/** The request's path and query, split before anything else is read (assets need only the path). */
export interface RequestTarget {
  pathname: string;
  query: URLSearchParams;
  hasQuery: boolean;
}

export function requestTarget(rawUrl: string): RequestTarget {
  const queryAt = rawUrl.indexOf('?');
  if (queryAt < 0) {
    // Most addresses carry no query: none is parsed for them (the shared empty one is only read).
    return { pathname: rawUrl, query: NO_QUERY, hasQuery: false };
  }
  return { pathname: rawUrl.slice(0, queryAt), query: new URLSearchParams(rawUrl.slice(queryAt + 1)), hasQuery: true };
}

/** What a request's address says, read once before anything is asked of the API. */
export interface ReaderAddress {
  query: URLSearchParams;
  /** The path and query without the secrets (share key, JWT) a visitor may have brought in it. */
  cleanPath: string;
  /** The absolute address the lookup is asked for (and the open-address cache's key). */
  url: string;
  origin: string;
  secure: boolean;
  shareKey: string | undefined;
  jwt: string | undefined;
  session: string | undefined;
  /** Whether the visitor brings no secret: what they see is what anyone sees. */
  open: boolean;
  /** Secrets brought in this address's query (remembered in cookies, then the address is shown without them). */
  newShareKey: string | undefined;
  newJwt: string | undefined;
}

/**
 * The address and the visitor's secrets (from the query, else the reader's cookies). The secrets are taken out
 * of `target.query`, which the search page reads afterwards.
 */
export function readAddress(req: IncomingMessage, target: RequestTarget, publicBase: PublicBase | undefined): ReaderAddress {
  const { pathname, query, hasQuery } = target;
  const cookies = readCookies(req);
  const newShareKey = hasQuery ? query.get('shareKey') ?? undefined : undefined;
  const newJwt = hasQuery ? query.get('jwt_token') ?? undefined : undefined;
  let cleanPath = pathname;
  if (hasQuery) {
    for (const name of SECRET_PARAMS) query.delete(name);
    const cleanQuery = query.toString();
    if (cleanQuery) cleanPath += `?${cleanQuery}`;
  }
  const { url, origin, secure } = absoluteUrl(req, cleanPath, publicBase);
  const shareKey = newShareKey ?? cookies.get(SHARE_COOKIE);
  const jwt = newJwt ?? cookies.get(JWT_COOKIE);
  const session = cookies.get(SESSION_COOKIE);
  return { query, cleanPath, url, origin, secure, shareKey, jwt, session, open: !shareKey && !jwt, newShareKey, newJwt };
}

/** What every address needs of the public URL (QUIRE_PUBLIC_URL), taken from it once rather than per request. */
export interface PublicBase {
  /** `https` or `http`. */
  scheme: string;
  origin: string;
}

export function publicBaseOf(publicUrl: string): PublicBase {
  const url = new URL(publicUrl);
  return { scheme: url.protocol.slice(0, -1), origin: url.origin };
}

/** `/sites/...` addresses are at the public URL when one is set; every other one at the request's own Host. */
export function absoluteUrl(req: IncomingMessage, pathAndQuery: string, publicBase: PublicBase | undefined): { url: string; origin: string; secure: boolean } {
  const origin = pathAndQuery.startsWith('/sites/') && publicBase ? publicBase.origin : `${publicBase?.scheme ?? forwardedScheme(req)}://${req.headers.host ?? 'localhost'}`;
  return { url: origin + pathAndQuery, origin, secure: origin.startsWith('https:') };
}

/** The scheme a proxy says the visitor used (its first `X-Forwarded-Proto`), when the reader has no public URL. */
function forwardedScheme(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-proto'];
  return typeof forwarded === 'string' && forwarded.split(',')[0]!.trim() === 'https' ? 'https' : 'http';
}

/** A path segment decoded, or as it is when its escapes are malformed (then it matches nothing, a 404). */
export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
