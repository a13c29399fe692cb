import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../errors.js';
import { hashToken, newId } from '../ids.js';
import { pageRequest } from '../pagination.js';
import {
  deleteBrowserSession, deleteBrowserSessionsOfUser, deleteExpiredBrowserSessions, findBrowserSessionWithUser, insertBrowserSession,
  listOpenBrowserSessions, SESSION_ORDER_KEY_LENGTH, touchBrowserSession, type BrowserSessionRow,
} from '../stores/browser-session-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { UserRow } from '../stores/user-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext, SessionSettings } from './context.js';

/*
 * Browser sessions (issue 24): opened by a sign-in (password, SAML, OpenID Connect), named by a random secret
 * that only the browser's HttpOnly cookie holds; the database keeps its SHA-256, so a copy of the table opens
 * nothing. A session ends when unused for the idle time, and in any case at its absolute expiry. Its CSRF
 * token is derived from the secret (an HMAC keyed by it), so it is never stored, is the same for the whole
 * session, and reveals nothing of the secret.
 */

export type SignInMethod = 'password' | 'saml' | 'oidc';

export const DEFAULT_SESSION_SETTINGS: SessionSettings = { idleMinutes: 1440, maxHours: 168 };
/** `last_used_at` moves the idle expiry; writing it on every request would make every read a write. */
const TOUCH_INTERVAL_MS = 60_000;
const CSRF_LABEL = 'quire csrf token v1';

function settingsOf(context: ServiceContext): SessionSettings {
  return context.sessions ?? DEFAULT_SESSION_SETTINGS;
}

function idleMs(context: ServiceContext): number {
  return settingsOf(context).idleMinutes * 60_000;
}

/** The CSRF token of the session whose secret this is. */
export function csrfTokenOf(secret: string): string {
  return createHmac('sha256', secret).update(CSRF_LABEL).digest('base64url');
}

/** Whether `given` is the CSRF token of the session `secret` names (in constant time). */
export function isCsrfTokenOf(secret: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const expected = Buffer.from(csrfTokenOf(secret), 'utf8');
  const actual = Buffer.from(given, 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** When a session ends unless used again: the earlier of its idle and its absolute expiry. */
export function sessionEndsAt(context: ServiceContext, session: Pick<BrowserSessionRow, 'last_used_at' | 'expires_at'>): string {
  const idleEnd = Date.parse(session.last_used_at) + idleMs(context);
  return new Date(Math.min(idleEnd, Date.parse(session.expires_at))).toISOString();
}

export function sessionIsOpen(context: ServiceContext, session: Pick<BrowserSessionRow, 'last_used_at' | 'expires_at'>, now = Date.now()): boolean {
  return Date.parse(sessionEndsAt(context, session)) > now;
}

export interface OpenedBrowserSession {
  session: BrowserSessionRow;
  /** The cookie's value, given to the browser this once. */
  secret: string;
  csrfToken: string;
}

/**
 * Opens a session for a user who has just signed in. `organizationId` scopes a session opened through an
 * organization's SSO to that organization. Pass the transaction's context when the sign-in writes more.
 */
export async function openBrowserSession(
  context: ServiceContext,
  input: { userId: string; method: SignInMethod; userAgent?: string | undefined; address?: string | undefined; organizationId?: string },
): Promise<OpenedBrowserSession> {
  const secret = `qs_${randomBytes(32).toString('base64url')}`;
  const now = new Date();
  const session: BrowserSessionRow = {
    id: newId(),
    user_id: input.userId,
    secret_hash: hashToken(secret),
    method: input.method,
    organization_id: input.organizationId ?? null,
    created_at: now.toISOString(),
    last_used_at: now.toISOString(),
    expires_at: new Date(now.getTime() + settingsOf(context).maxHours * 3_600_000).toISOString(),
    user_agent: input.userAgent ? input.userAgent.slice(0, 512) : null,
    address: input.address ? input.address.slice(0, 64) : null,
  };
  // Sessions that can never be used again go when new ones come, so the table does not grow without end.
  await deleteExpiredBrowserSessions(context.db, now.toISOString(), new Date(now.getTime() - idleMs(context)).toISOString());
  await insertBrowserSession(context.db, session);
  return { session, secret, csrfToken: csrfTokenOf(secret) };
}

export interface AuthenticatedSession {
  caller: Caller;
  session: BrowserSessionRow;
}

/**
 * Resolves a session cookie's secret to its user, looked up on every request (nothing cached) so that an
 * ended session stops working at once; 401 when unknown, ended or expired.
 */
export async function authenticateSession(context: ServiceContext, secret: string): Promise<AuthenticatedSession> {
  const found = await findBrowserSessionWithUser(context.db, hashToken(secret));
  if (!found) throw new UnauthorizedError('The session is unknown or has ended: sign in again');
  const now = Date.now();
  if (!sessionIsOpen(context, found.session, now)) throw new UnauthorizedError('The session has expired: sign in again');
  if (now - Date.parse(found.session.last_used_at) > TOUCH_INTERVAL_MS) {
    const at = new Date(now).toISOString();
    found.session.last_used_at = at;
    // Best effort: a failed touch must not fail the request it accompanies.
    touchBrowserSession(context.db, found.session.id, at).catch((error: unknown) => {
      context.logger.warn({ err: error, sessionId: found.session.id }, 'could not record session use');
    });
  }
  return {
    session: found.session,
    caller: {
      user: found.user,
      sessionId: found.session.id,
      ...(found.session.organization_id !== null ? { organizationId: found.session.organization_id } : {}),
    },
  };
}

/** The session of the request (its cookie's secret) with its user and CSRF token; 401 without one. */
export async function getCurrentSession(context: ServiceContext, secret: string | undefined): Promise<{ session: BrowserSessionRow; user: UserRow; csrfToken: string }> {
  if (secret === undefined) throw new UnauthorizedError('This request has no browser session: sign in');
  const { session, caller } = await authenticateSession(context, secret);
  return { session, user: caller.user, csrfToken: csrfTokenOf(secret) };
}

/** Ends the session of the request, if it has one (a request made with a bearer token has none). */
export async function signOut(context: ServiceContext, caller: Caller): Promise<void> {
  if (caller.sessionId !== undefined) await deleteBrowserSession(context.db, caller.user.id, caller.sessionId);
}

export async function listUserSessions(context: ServiceContext, caller: Caller, query: { page?: string; limit?: number }): Promise<KeysetPage<BrowserSessionRow>> {
  const page = pageRequest(query, SESSION_ORDER_KEY_LENGTH);
  const now = Date.now();
  return listOpenBrowserSessions(context.db, caller.user.id, {
    now: new Date(now).toISOString(),
    idleSince: new Date(now - idleMs(context)).toISOString(),
  }, page.after, page.limit);
}

/** Ends one of the caller's sessions; another person's id, or one already ended, changes nothing. */
export async function deleteUserSession(context: ServiceContext, caller: Caller, sessionId: string): Promise<void> {
  await deleteBrowserSession(context.db, caller.user.id, sessionId);
}

/** Ends every session of the caller but the request's own. */
export async function deleteUserSessions(context: ServiceContext, caller: Caller): Promise<void> {
  await deleteBrowserSessionsOfUser(context.db, caller.user.id, caller.sessionId);
}
