import type { components } from '@quire/api-types';
import type { BrowserSessionRow } from '../../stores/browser-session-store.js';
import type { UserRow } from '../../stores/user-store.js';
import type { PresentContext } from './context.js';
import { presentUser } from './user-presenter.js';

export type ApiSession = components['schemas']['Session'];
export type ApiAuthSession = components['schemas']['AuthSession'];

/** A session as its owner sees it: never its secret (only the cookie holds it) nor its hash. `endsAt`: when it ends unless used. */
export function presentSession(session: BrowserSessionRow, options: { endsAt: string; current: boolean }): ApiSession {
  return {
    object: 'session',
    id: session.id,
    method: session.method as ApiSession['method'],
    createdAt: session.created_at,
    lastUsedAt: session.last_used_at,
    expiresAt: options.endsAt,
    userAgent: session.user_agent,
    current: options.current,
  };
}

/** The session of a signed-in browser with its user (their own, so with the email) and its CSRF token. */
export function presentAuthSession(context: PresentContext, session: BrowserSessionRow, user: UserRow, options: { endsAt: string; csrfToken: string }): ApiAuthSession {
  return {
    object: 'auth-session',
    session: presentSession(session, { endsAt: options.endsAt, current: true }),
    user: presentUser(context, user, { withEmail: true }),
    csrfToken: options.csrfToken,
  };
}
