import { createQuireClient, QuireApiError, type QuireClient } from '@quire/client';

/*
 * The app's one client. The browser sends the HttpOnly session cookie itself (same origin), so the app never
 * holds a credential that script can read. Unsafe methods also need the session's CSRF token, which
 * `getCurrentSession` and `signIn` answer; it lives only in this module's memory and is fetched again after
 * a reload.
 */

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let csrfToken: string | undefined;

export function rememberCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The session's CSRF token, for the one form the app posts itself (the customization preview's). */
export function currentCsrfToken(): string | undefined {
  return csrfToken;
}

// No automatic retries: a throttled sign-in or a busy server is said to the person, who decides to retry.
export const api: QuireClient = createQuireClient({ baseUrl: window.location.origin, retry: false });

api.use({
  onRequest({ request }) {
    if (csrfToken && UNSAFE_METHODS.has(request.method)) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
});

/** What an error says to a person: the API's own message when there is one. */
export function errorMessage(error: unknown): string {
  if (error instanceof QuireApiError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}

export function errorStatus(error: unknown): number | undefined {
  return error instanceof QuireApiError ? error.status : undefined;
}
