import type { UserRow } from '../stores/user-store.js';

/** Who is making the request: the owner of the bearer token, and which token it was. */
export interface Caller {
  user: UserRow;
  tokenId: string;
  /**
   * Set when the token is a session started by signing in through an organization's SSO: it acts in that
   * organization only, whatever other organizations the user belongs to (their own sign-in rules apply there).
   */
  organizationId?: string;
}
