import type { UserRow } from '../stores/user-store.js';

/** Who is making the request: the owner of the bearer token, and which token it was. */
export interface Caller {
  user: UserRow;
  tokenId: string;
}
