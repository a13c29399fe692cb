import { createQuireClient, type QuireClient } from '@quire/client';
import type { ReaderOptions } from '../reader-options.js';
import type { Lookup, LookupRedirect } from '../site/types.js';
import { ApiFailure, data } from './api-failure.js';
import { SESSION_COOKIE } from '../site/cookies.js';

/**
 * The reader's two kinds of client: the anonymous one that looks addresses up (with the visitor's own secrets
 * only), and the visitor's, holding the token a lookup answers.
 */
export class AddressLookup {
  constructor(private readonly options: Pick<ReaderOptions, 'apiUrl' | 'fetch' | 'forwardVisitorAddress'>) {}

  visitorClient(token: string): QuireClient {
    return createQuireClient({ ...this.clientOptions(), token });
  }

  async lookup(url: string, shareKey: string | undefined, jwt: string | undefined, visitorAddress?: string, session?: string): Promise<Lookup | LookupRedirect> {
    const query: { url: string; shareKey?: string; visitorAuthToken?: string; redirectOnError?: boolean } = { url };
    if (shareKey) query.shareKey = shareKey;
    // A visitor whose JWT no longer verifies (expired, key rotated) is sent to sign in again, as one without any.
    if (jwt) Object.assign(query, { visitorAuthToken: jwt, redirectOnError: true });
    // The member's session goes to this one call, per request (never into a shared client, link or log), as
    // the cookie it is: the API takes a browser session only as its cookie (a GET needs no CSRF token).
    const headers = session ? { headers: { Cookie: `${SESSION_COOKIE}=${session}` } } : {};
    return data(this.anonymous(visitorAddress).GET('/urls/published', { params: { query }, ...headers }));
  }

  /** The lookup as the member when a session is brought, else as anyone. */
  lookupWithSession(url: string, shareKey: string | undefined, jwt: string | undefined, visitorAddress: string | undefined, session: string | undefined): Promise<Lookup | LookupRedirect> {
    return this.lookup(url, shareKey, jwt, visitorAddress, session).catch((error: unknown) => {
      // A session revoked or expired is read as none: it must not lock the reader out of what anyone may read.
      if (session && error instanceof ApiFailure && error.status === 401) return this.lookup(url, shareKey, jwt, visitorAddress);
      throw error;
    });
  }

  /**
   * The member's own client for one call that needs their rights (the customization preview): their session
   * as its cookie and the CSRF token their page holds, never kept beyond the request.
   */
  memberClient(session: string, csrfToken: string): QuireClient {
    return createQuireClient({ ...this.clientOptions(), headers: { Cookie: `${SESSION_COOKIE}=${session}`, 'X-CSRF-Token': csrfToken } });
  }

  private clientOptions() {
    const { apiUrl, fetch } = this.options;
    return { baseUrl: typeof apiUrl === 'function' ? apiUrl() : apiUrl, ...(fetch ? { fetch } : {}) };
  }

  private anonymous(visitorAddress: string | undefined): QuireClient {
    const forward = this.options.forwardVisitorAddress;
    return createQuireClient({
      ...this.clientOptions(),
      ...(forward && visitorAddress ? { headers: { 'X-Quire-Reader': forward.key, 'X-Forwarded-For': visitorAddress } } : {}),
    });
  }
}
