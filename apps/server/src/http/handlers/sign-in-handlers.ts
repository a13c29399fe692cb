import { listAnswer } from '../../pagination.js';
import {
  deleteUserSession, deleteUserSessions, getCurrentSession, listUserSessions, sessionEndsAt, signOut,
} from '../../services/browser-session-service.js';
import { signIn, updateUserPassword } from '../../services/sign-in-service.js';
import { confirmTotpEnrollment, disableTotp, startTotpEnrollment } from '../../services/totp-service.js';
import { assertSameOrigin } from '../csrf.js';
import { presentAuthSession, presentSession } from '../presenters/session-presenter.js';
import type { Handlers } from '../registry.js';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from '../session-cookie.js';
import type { HandlerDeps } from './deps.js';

function userAgentOf(req: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const value = req.headers['user-agent'];
  return typeof value === 'string' ? value : undefined;
}

/** Signing in with a password, the browser's sessions, the password and the second factor (issue 24). */
export function signInHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    signIn: async ({ body, req, res }) => {
      // Another site's page must not sign a browser in to an account of its choosing (login CSRF).
      assertSameOrigin(req, present.publicUrl);
      const result = await signIn(services, { ...body, address: req.socket.remoteAddress, userAgent: userAgentOf(req) });
      if (result.kind === 'challenge') return { status: 200, body: { object: 'sign-in-challenge', secondFactor: 'totp' } };
      const { session, secret, csrfToken } = result.opened;
      setSessionCookie(res, present, secret, session.expires_at);
      return { status: 200, body: presentAuthSession(present, session, result.user, { endsAt: sessionEndsAt(services, session), csrfToken }) };
    },
    signOut: async ({ caller, res }) => {
      await signOut(services, caller);
      if (caller.sessionId !== undefined) clearSessionCookie(res, present);
      return { status: 204 };
    },
    getCurrentSession: async ({ req, res }) => {
      const { session, user, csrfToken } = await getCurrentSession(services, readSessionCookie(req));
      res.setHeader('Cache-Control', 'no-store');
      return { status: 200, body: presentAuthSession(present, session, user, { endsAt: sessionEndsAt(services, session), csrfToken }) };
    },
    listUserSessions: async ({ caller, query }) => {
      const page = await listUserSessions(services, caller, query);
      return { status: 200, body: listAnswer(page, (row) => presentSession(row, { endsAt: sessionEndsAt(services, row), current: row.id === caller.sessionId })) };
    },
    deleteUserSession: async ({ caller, params }) => {
      await deleteUserSession(services, caller, params.sessionId);
      return { status: 204 };
    },
    deleteUserSessions: async ({ caller }) => {
      await deleteUserSessions(services, caller);
      return { status: 204 };
    },
    updateUserPassword: async ({ caller, body, req }) => {
      await updateUserPassword(services, caller, body, req.socket.remoteAddress);
      return { status: 204 };
    },
    startTotpEnrollment: async ({ caller, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      return { status: 200, body: await startTotpEnrollment(services, caller) };
    },
    confirmTotpEnrollment: async ({ caller, body, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      return { status: 200, body: { recoveryCodes: await confirmTotpEnrollment(services, caller, body.code) } };
    },
    disableTotp: async ({ caller, body }) => {
      await disableTotp(services, caller, body.code);
      return { status: 204 };
    },
  };
}
