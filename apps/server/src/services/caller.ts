import type { UserRow } from '../stores/user-store.js';

/**
 * Who is making the request: the owner of the bearer token or of the browser session, and which token
 * (`tokenId`) or session (`sessionId`) it was; exactly one of the two is set.
 */
export interface Caller {
  user: UserRow;
  tokenId?: string;
  sessionId?: string;
  /**
   * Set when the token is a session started by signing in through an organization's SSO: it acts in that
   * organization only, whatever other organizations the user belongs to (their own sign-in rules apply there).
   */
  organizationId?: string;
}

/**
 * A visitor of a published site, authenticated by the visitor token `getPublishedContentByUrl` issued: not a
 * user (no row, no membership), holding only what `policies/visitor-policy.ts` grants.
 */
export interface VisitorCaller {
  grant: import('../policies/visitor-policy.js').VisitorGrant;
}

/** Who may call the reads of published content: a user's token, or a visitor's. */
export type Principal = Caller | VisitorCaller;

export function isVisitor(principal: Principal): principal is VisitorCaller {
  return 'grant' in principal;
}
