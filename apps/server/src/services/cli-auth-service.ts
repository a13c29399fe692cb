import { randomBytes } from 'node:crypto';
import { BadRequestError, UnauthorizedError } from '../errors.js';
import { hashToken, newApiToken, newId, nowIso } from '../ids.js';
import { isSamlProviderActive } from '../policies/saml-policy.js';
import { deleteExpiredCliAuthCodes, insertCliAuthCode, takeCliAuthCode } from '../stores/cli-code-store.js';
import { findMembership } from '../stores/organization-store.js';
import { findSamlProviderById } from '../stores/saml-store.js';
import { insertToken } from '../stores/token-store.js';
import { findBrowserSessionWithUser } from '../stores/browser-session-store.js';
import { sessionIsOpen } from './browser-session-service.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';

/*
 * Handing a signed-in browser session over to the command line, as `gh auth login` does (RFC 8252's
 * loopback redirect): the command line listens on 127.0.0.1, opens `/auth/cli/start` in the browser with
 * that address and a random `state`; once the browser has a session, it is sent back to the loopback
 * address with a one-time code, which the command line exchanges (`exchangeCliAuthCode`) for a token.
 * The code is short-lived, works once, is bound to the loopback address it was issued for, and is stored
 * only as its hash.
 */

const CODE_TTL_MS = 5 * 60 * 1000;
export const CLI_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const STATE = /^[A-Za-z0-9._~-]{1,256}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Only a loopback address with a port (where the command line listens) may receive a code. */
export function checkedLoopbackRedirect(redirect: string | undefined): URL {
  const url = redirect && URL.canParse(redirect) ? new URL(redirect) : undefined;
  if (!url || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || !url.port || url.username || url.password || url.hash) {
    throw new BadRequestError('redirect must be a loopback address with a port, such as http://127.0.0.1:8765/callback');
  }
  return url;
}

export type CliStart =
  /** The browser has a session for the organization: send it to the loopback address with a code. */
  | { kind: 'code'; location: string }
  /** The browser must sign in through this provider first, then come back. */
  | { kind: 'sign-in'; providerId: string };

/**
 * The next step of a command-line sign-in. `sessionSecret` is the browser's session cookie, if any;
 * `providerId` names the provider to sign in through when there is no session (or one for another
 * organization).
 */
export async function startCliSignIn(
  context: ServiceContext,
  sessionSecret: string | undefined,
  input: { redirect?: string; state?: string; providerId?: string },
): Promise<CliStart> {
  const redirect = checkedLoopbackRedirect(input.redirect);
  if (!input.state || !STATE.test(input.state)) throw new BadRequestError('state is required: 1 to 256 letters, digits or -._~, chosen at random by the command line');
  const provider = input.providerId ? await findSamlProviderById(context.db, input.providerId) : undefined;
  if (input.providerId && (!provider || !isSamlProviderActive(provider))) throw new BadRequestError('provider is not an active SAML provider');

  // The browser's session, when it is one opened through an organization's SSO: the token handed over acts
  // in that organization, as the session does.
  const found = sessionSecret ? await findBrowserSessionWithUser(context.db, hashToken(sessionSecret)) : undefined;
  const session = found && found.session.organization_id !== null && sessionIsOpen(context, found.session) ? found : undefined;
  if (!session || (provider && provider.organization_id !== session.session.organization_id)) {
    if (!provider) throw new UnauthorizedError('Sign in first: give the SAML provider to sign in through as `provider`');
    return { kind: 'sign-in', providerId: provider.id };
  }

  const code = randomBytes(32).toString('base64url');
  const now = new Date();
  await deleteExpiredCliAuthCodes(context.db, now.toISOString());
  await insertCliAuthCode(context.db, {
    code_hash: hashToken(code), user_id: session.user.id, organization_id: session.session.organization_id!, redirect_uri: input.redirect!,
    expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(), created_at: now.toISOString(),
  });
  redirect.searchParams.set('code', code);
  redirect.searchParams.set('state', input.state);
  return { kind: 'code', location: redirect.toString() };
}

export interface CliToken {
  token: string;
  organizationId: string;
  userId: string;
  expiresAt: string;
}

/** Exchanges a one-time code for an API token acting in the organization the person signed in to. */
export async function exchangeCliAuthCode(context: ServiceContext, body: { code: string; redirectURI: string }): Promise<CliToken> {
  const invalid = () => new BadRequestError('The code is unknown, expired, already used or was issued for another redirectURI');
  return inTransaction(context, async (tx) => {
    const row = await takeCliAuthCode(tx.db, hashToken(body.code));
    if (!row || Date.parse(row.expires_at) <= Date.now() || row.redirect_uri !== body.redirectURI) throw invalid();
    // A member suspended or removed since signing in gets no token.
    const membership = await findMembership(tx.db, row.organization_id, row.user_id);
    if (!membership || membership.disabled) throw invalid();
    const token = newApiToken();
    const expiresAt = new Date(Date.now() + CLI_TOKEN_TTL_MS).toISOString();
    await insertToken(tx.db, {
      id: newId(), user_id: row.user_id, token_hash: hashToken(token), label: 'Command line (SSO)', created_at: nowIso(),
      last_used_at: null, organization_id: row.organization_id, expires_at: expiresAt,
    });
    return { token, organizationId: row.organization_id, userId: row.user_id, expiresAt };
  });
}
