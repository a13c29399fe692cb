import type { ServerResponse } from 'node:http';
import type { ReaderAddress } from '../http/address.js';
import { setCommonHeaders } from '../http/headers.js';
import { redirect } from '../http/respond.js';
import { JWT_COOKIE, SHARE_COOKIE, secretCookie } from '../site/cookies.js';
import type { Lookup } from '../site/types.js';

/**
 * Remembers the share key or JWT brought in the address for this site only, then shows the address without it
 * (so it is not shared, bookmarked or sent as a referrer).
 */
export function rememberSecrets(res: ServerResponse, lookup: Lookup, address: ReaderAddress): void {
  const setCookies: string[] = [];
  if (address.newShareKey) setCookies.push(secretCookie(SHARE_COOKIE, address.newShareKey, lookup.siteBasePath, address.secure));
  if (address.newJwt) setCookies.push(secretCookie(JWT_COOKIE, address.newJwt, lookup.siteBasePath, address.secure));
  setCommonHeaders(res, lookup.visibility);
  res.setHeader('Set-Cookie', setCookies);
  res.setHeader('Cache-Control', 'no-store');
  redirect(res, 303, address.cleanPath);
}
