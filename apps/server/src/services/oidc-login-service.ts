import { hash, timingSafeEqual } from 'node:crypto';
import type { Configuration, IDToken } from 'openid-client';
import type { OidcConfig } from '../config.js';
import { ApiError, BadRequestError, ForbiddenError, NotFoundError, ServiceUnavailableError, UnauthorizedError } from '../errors.js';
import { nowIso } from '../ids.js';
import { lazyModule } from '../lazy-module.js';
import { insertOidcPendingLogin, takeOidcPendingLogin } from '../stores/oidc-store.js';
import { normalizeEmail } from '../stores/user-store.js';
import { openBrowserSession } from './browser-session-service.js';
import type { ServiceContext } from './context.js';
import { resolveOidcAccount } from './oidc-accounts.js';
import { safeReturnPath } from './saml-login-service.js';

/*
 * Signing in through the installation's OpenID Connect provider: authorization code flow with PKCE (S256),
 * `state` and `nonce`, on openid-client, which validates the ID token (signature against the provider's
 * published keys, issuer, audience, expiry, nonce) and the authorization response (state, the `iss`
 * parameter where the provider sends it). This module adds what it leaves to its callers: a pending sign-in
 * kept in the database (any node receives the callback; it works once and expires), the binding of the
 * callback to the browser that started it (the PKCE code verifier lives in that browser's cookie only, so
 * a callback carried into another browser, a login-CSRF, fails), the verified address required, the
 * allowed domains, the account (services/oidc-accounts.ts) and the browser session it opens.
 */

// Loaded by the first sign-in: most installations never use it.
const openid = lazyModule<typeof import('openid-client')>('openid-client', { warm: false });

/** How long a person may take at the provider between the start of a sign-in and its callback. */
export const PENDING_LOGIN_TTL_MS = 10 * 60 * 1000;
/** A provider's discovery document (endpoints, keys' address) is read again after this long. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const SCOPE = 'openid email profile';

/** Where the provider sends the browser back: fixed, and registered at the provider. */
export function oidcCallbackUrl(publicUrl: string): string {
  return `${publicUrl}/auth/oidc/callback`;
}

function configured(context: ServiceContext): OidcConfig {
  if (!context.oidc) throw new NotFoundError('Sign-in with OpenID Connect is not configured on this installation');
  return context.oidc;
}

const discovered = new Map<string, { at: number; configuration: Promise<Configuration> }>();

/** The provider's metadata, read once an hour per process; a failed read is not kept. */
function providerConfiguration(config: OidcConfig): Promise<Configuration> {
  const key = `${config.issuer}\n${config.clientId}`;
  const cached = discovered.get(key);
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.configuration;
  const client = openid();
  const configuration = client.discovery(new URL(config.issuer), config.clientId, undefined, client.ClientSecretBasic(config.clientSecret), {
    ...(config.allowInsecureIssuer ? { execute: [client.allowInsecureRequests] } : {}),
  });
  discovered.set(key, { at: Date.now(), configuration });
  configuration.catch(() => discovered.delete(key));
  return configuration;
}

async function reachProvider<T>(context: ServiceContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // Only the class and code: messages of fetch failures can carry URLs with parameters.
    context.logger.warn({ error: (error as Error).name, code: (error as { code?: unknown }).code }, 'the OpenID Connect provider could not be reached');
    throw new ServiceUnavailableError('The identity provider could not be reached: try again later');
  }
}

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

export interface OidcLoginStart {
  /** The provider's authorization address with this sign-in's parameters. */
  location: string;
  /** The PKCE code verifier, for the starting browser's cookie only. */
  browserBinding: string;
  expiresInMs: number;
}

/** Records a pending sign-in and answers where to send the browser. */
export async function startOidcLogin(context: ServiceContext, publicUrl: string, returnPath: string | undefined): Promise<OidcLoginStart> {
  const config = configured(context);
  const configuration = await reachProvider(context, () => providerConfiguration(config));
  const client = openid();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const now = Date.now();
  await insertOidcPendingLogin(context.db, {
    state_hash: sha256(state),
    binding_hash: sha256(codeVerifier),
    nonce,
    return_path: safeReturnPath(returnPath) ?? null,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + PENDING_LOGIN_TTL_MS).toISOString(),
  }, new Date(now).toISOString());
  const location = client.buildAuthorizationUrl(configuration, {
    redirect_uri: oidcCallbackUrl(publicUrl),
    scope: SCOPE,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { location: location.href, browserBinding: codeVerifier, expiresInMs: PENDING_LOGIN_TTL_MS };
}

export interface OidcCallback {
  /** The callback's query string as received (`?code=...&state=...`). */
  search: string;
  /** The cookie the start set in the browser, if it came back. */
  browserBinding: string | undefined;
  userAgent: string | undefined;
  address: string | undefined;
}

export interface OidcLoginResult {
  /** The browser session's secret, for its cookie only. */
  secret: string;
  expiresAt: string;
  userId: string;
  email: string;
  joined: boolean;
  returnPath: string | undefined;
}

function refused(reason: string): UnauthorizedError {
  return new UnauthorizedError(`The identity provider's answer was refused: ${reason}`);
}

/** Why openid-client refused an answer, in words that carry no code, token or nonce. */
function refusalOf(error: unknown): ApiError | undefined {
  const client = openid();
  if (error instanceof client.AuthorizationResponseError) return refused(`the provider answered ${error.error}`);
  if (error instanceof client.ResponseBodyError) return refused(`the provider's token endpoint answered ${error.error}`);
  if (error instanceof client.ClientError) {
    // openid-client wraps the check that failed, whose message names the claim or parameter (`unexpected JWT
    // "aud" (audience) claim value`), never its value; its own message is only the kind of failure.
    const check = error.cause instanceof Error && error.cause.message ? error.cause.message : error.message;
    return refused(check);
  }
  return undefined;
}

function bindingMatches(expectedHash: string, binding: string): boolean {
  return timingSafeEqual(Buffer.from(expectedHash, 'hex'), Buffer.from(sha256(binding), 'hex'));
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function stringClaim(claims: Record<string, unknown>, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** The address and name, from the ID token or, when it leaves them to the userinfo endpoint, from there. */
async function identityClaims(context: ServiceContext, configuration: Configuration, idToken: IDToken, accessToken: string): Promise<Record<string, unknown>> {
  if (typeof idToken.email === 'string' && idToken.email_verified !== undefined) return idToken;
  const userinfo = await reachProvider(context, async () => {
    try {
      return await openid().fetchUserInfo(configuration, accessToken, idToken.sub);
    } catch (error) {
      throw refusalOf(error) ?? error;
    }
  });
  return { ...userinfo, ...idToken };
}

/**
 * Completes a sign-in from the provider's redirect: takes the pending sign-in (once), checks the browser,
 * exchanges the code and validates the ID token, requires a verified address in an allowed domain, finds or
 * makes the account and opens a session.
 */
export async function completeOidcLogin(context: ServiceContext, publicUrl: string, callback: OidcCallback): Promise<OidcLoginResult> {
  const config = configured(context);
  const params = new URLSearchParams(callback.search);
  const state = params.get('state');
  if (!state) throw new BadRequestError('The callback carries no state: start the sign-in again');
  if (state.length > 512) throw new BadRequestError('The state is too long to be one of this installation\'s');
  if (!callback.browserBinding) throw new BadRequestError('This sign-in was not started in this browser (or its cookie expired): start it again');
  const pending = await takeOidcPendingLogin(context.db, sha256(state));
  if (!pending) throw new BadRequestError('This sign-in is unknown or was already completed: start it again');
  if (pending.expires_at < nowIso()) throw new BadRequestError('This sign-in expired before the provider answered: start it again');
  if (!bindingMatches(pending.binding_hash, callback.browserBinding)) throw new BadRequestError('This sign-in was not started in this browser: start it again');

  const configuration = await reachProvider(context, () => providerConfiguration(config));
  const currentUrl = new URL(oidcCallbackUrl(publicUrl));
  currentUrl.search = params.toString();
  const tokens = await reachProvider(context, async () => {
    try {
      return await openid().authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: callback.browserBinding!, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true,
      });
    } catch (error) {
      throw refusalOf(error) ?? error;
    }
  });
  const idToken = tokens.claims();
  if (!idToken) throw refused('it holds no ID token');
  const claims = await identityClaims(context, configuration, idToken, tokens.access_token);

  const email = stringClaim(claims, 'email');
  if (!email || !EMAIL.test(email) || email.length > 320) throw new ForbiddenError('The identity provider gave no e-mail address for this account');
  if (claims.email_verified !== true) throw new ForbiddenError('The identity provider has not verified this account\'s e-mail address');
  const normalized = normalizeEmail(email);
  const domain = normalized.slice(normalized.lastIndexOf('@') + 1);
  if (config.allowedDomains.length > 0 && !config.allowedDomains.includes(domain)) {
    throw new ForbiddenError(`Addresses at ${domain} may not sign in to this installation`);
  }

  const account = await resolveOidcAccount(context, config, {
    issuer: idToken.iss, subject: idToken.sub, email: normalized, displayName: stringClaim(claims, 'name')?.slice(0, 64),
  });
  // Not scoped to an organization: the installation's provider signs people in to Quire, not to one organization.
  const opened = await openBrowserSession(context, { userId: account.user.id, method: 'oidc', userAgent: callback.userAgent, address: callback.address });
  context.logger.info({ userId: account.user.id, sessionId: opened.session.id, joined: account.joined }, 'signed in with OpenID Connect');
  return { secret: opened.secret, expiresAt: opened.session.expires_at, userId: account.user.id, email: account.user.email, joined: account.joined, returnPath: pending.return_path ?? undefined };
}
