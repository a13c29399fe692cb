import type { components } from '@quire/api-types';
import { unwrap } from '@quire/client';
import { api, rememberCsrfToken } from './client.js';

/*
 * Sign-in with the session cookie: `signIn` sets it (HttpOnly, so script never sees the secret) and answers
 * the session's CSRF token, as `getCurrentSession` does after a reload; `signOut` ends it.
 */

export type AuthSession = components['schemas']['AuthSession'];
export type SignInChallenge = components['schemas']['SignInChallenge'];

export async function getCurrentSession(): Promise<AuthSession> {
  const session = await unwrap(api.GET('/auth/session'));
  rememberCsrfToken(session.csrfToken);
  return session;
}

export async function signIn(body: { email: string; password: string; code?: string }): Promise<AuthSession | SignInChallenge> {
  const answer = await unwrap(api.POST('/auth/sign-in', { body }));
  if (answer.object === 'auth-session') rememberCsrfToken(answer.csrfToken);
  return answer;
}

export async function signOut(): Promise<void> {
  await unwrap(api.POST('/auth/sign-out'));
  rememberCsrfToken(undefined);
}
