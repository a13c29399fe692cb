import { nowIso } from '../ids.js';
import { UnauthorizedError } from '../errors.js';
import { findTokenWithUser, touchToken } from '../stores/token-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';

/** `last_used_at` is a hint for people auditing tokens; writing it on every request would make every read a write. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Resolves a bearer token, given as its SHA-256 (undefined when the request has none), to its user. The
 * token is looked up on every request (nothing is cached) so that a deleted token stops working at once.
 */
export async function authenticate(context: ServiceContext, tokenHash: string | undefined): Promise<Caller> {
  if (tokenHash === undefined) throw new UnauthorizedError('A valid bearer token is required');
  const found = await findTokenWithUser(context.db, tokenHash);
  if (!found) throw new UnauthorizedError('The bearer token is unknown or revoked');
  if (found.token.expires_at !== null && Date.parse(found.token.expires_at) <= Date.now()) {
    throw new UnauthorizedError('The session has expired: sign in again');
  }
  const lastUsed = found.token.last_used_at ? Date.parse(found.token.last_used_at) : 0;
  if (Date.now() - lastUsed > TOUCH_INTERVAL_MS) {
    // Best effort: a failed touch must not fail the request it accompanies.
    touchToken(context.db, found.token.id, nowIso()).catch((error: unknown) => {
      context.logger.warn({ err: error, tokenId: found.token.id }, 'could not record token use');
    });
  }
  return {
    user: found.user,
    tokenId: found.token.id,
    ...(found.token.organization_id !== null ? { organizationId: found.token.organization_id } : {}),
  };
}
