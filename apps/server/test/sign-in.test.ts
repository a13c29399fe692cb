import { unwrap, type QuireClient } from '@quire/client';
import type { AuthSession } from '@quire/api-types';
import { TOTP, Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { newId } from '../src/ids.js';
import { setUserPasswordByEmail } from '../src/services/sign-in-service.js';
import { describeEachDialect } from './dialects.js';
import { expectError, newOrg, useTestServer } from './helpers.js';
import type { TestServer } from './server.js';
import { backdateBrowserSession } from './storage-setup.js';

/*
 * Signing in with a password (issue 24): sessions held in the `quire_session` cookie, their list, their end
 * (sign-out, one, all, password change, member removal, idle and absolute expiry), the CSRF defence of
 * requests made with the cookie, and the TOTP second factor. Everything goes through the API as a browser
 * sends it, but for the account's first password, which the operator's reset sets (`admin set-password`).
 */

const PASSWORD = 'correct horse battery staple 42';
const WRONG_CREDENTIALS = 'The email, password or code is not right';

interface Person {
  email: string;
  userId: string;
  organizationId: string;
  /** The organization's admin (a bearer token). */
  admin: QuireClient;
}

/** A member of a new organization with `PASSWORD` as password. */
async function personWithPassword(server: TestServer, role: 'read' | 'admin' = 'read'): Promise<Person> {
  const org = await newOrg(server, 'Sign-in org');
  const email = `person-${newId(8).toLowerCase()}@example.com`;
  const { userId } = await server.addMember(org.organizationId, email, role);
  await setUserPasswordByEmail(server.running.services, email, PASSWORD);
  return { email, userId, organizationId: org.organizationId, admin: org.client };
}

function signInRequest(server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

interface SignedIn {
  secret: string;
  answer: AuthSession;
  cookie: string;
  client: QuireClient;
}

/** Signs in and answers the cookie's secret, the answer and a client acting as that browser. */
async function signIn(server: TestServer, email: string, password = PASSWORD, extra: Record<string, unknown> = {}): Promise<SignedIn> {
  const response = await signInRequest(server, { email, password, ...extra }, { 'user-agent': 'Sign-in test browser' });
  expect(response.status).toBe(200);
  const cookie = response.headers.get('set-cookie') ?? '';
  const secret = /^quire_session=([^;]+)/.exec(cookie)?.[1];
  expect(secret).toBeDefined();
  const answer = (await response.json()) as AuthSession;
  return { secret: secret!, answer, cookie, client: server.sessionClient(secret!, answer.csrfToken) };
}

function currentCode(secret: string, offsetSeconds = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetSeconds * 1000 });
}

describeEachDialect('sign-in', (dialect) => {
  const server = useTestServer({ dialect });

  describe('signIn', () => {
    it('refuses a bearer token that is nobody\'s, even on the operations that need none, and signs in with a good one', async () => {
      const person = await personWithPassword(server);
      const bad = await signInRequest(server, { email: person.email, password: PASSWORD }, { authorization: 'Bearer qk_not-a-token-of-anyone' });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('set-cookie')).toBeNull();
      const providers = await fetch(`${server.url}/v1/auth/providers`, { headers: { authorization: 'Bearer qk_not-a-token-of-anyone' } });
      expect(providers.status).toBe(401);
      const org = await newOrg(server, 'Token holders');
      const good = await signInRequest(server, { email: person.email, password: PASSWORD }, { authorization: `Bearer ${org.token}` });
      expect(good.status).toBe(200);
    });

    it('opens a session: the cookie (HttpOnly, SameSite=Lax, Path=/), the session, its user and CSRF token; the cookie is the caller', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email.toUpperCase());
      expect(signedIn.cookie).toMatch(/^quire_session=qs_[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);
      expect(signedIn.answer).toMatchObject({
        object: 'auth-session',
        user: { id: person.userId, email: person.email },
        session: { object: 'session', method: 'password', userAgent: 'Sign-in test browser', current: true },
      });
      expect(signedIn.answer.csrfToken.length).toBeGreaterThan(20);
      expect(JSON.stringify(signedIn.answer)).not.toContain(signedIn.secret);
      expect((await unwrap(signedIn.client.GET('/user'))).id).toBe(person.userId);
      expect((await unwrap(signedIn.client.GET('/orgs'))).items.map((item) => item.id)).toEqual([person.organizationId]);
    });

    it('answers a wrong password and an unknown email alike: 401, the same message, no cookie', async () => {
      const person = await personWithPassword(server);
      for (const body of [{ email: person.email, password: `${PASSWORD}!` }, { email: `nobody-${newId(6)}@example.com`, password: PASSWORD }]) {
        const response = await signInRequest(server, body);
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ error: { code: 401, message: WRONG_CREDENTIALS } });
        expect(response.headers.get('set-cookie')).toBeNull();
      }
      // An account with no password (it signs in only through an identity provider) is refused alike.
      const org = await newOrg(server, 'No password org');
      const email = `sso-only-${newId(6).toLowerCase()}@example.com`;
      await server.addMember(org.organizationId, email, 'read');
      const response = await signInRequest(server, { email, password: PASSWORD });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { code: 401, message: WRONG_CREDENTIALS } });
    });

    it('refuses a sign-in another site\'s page sends (login CSRF), and bad input, with 4xx and no session', async () => {
      const person = await personWithPassword(server);
      for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Array<Record<string, string>>) {
        const response = await signInRequest(server, { email: person.email, password: PASSWORD }, headers);
        expect(response.status).toBe(403);
        expect(response.headers.get('set-cookie')).toBeNull();
      }
      expectError(await server.client().POST('/auth/sign-in', { body: { email: person.email } as never }), 400);
      expectError(await server.client().POST('/auth/sign-in', { body: { email: person.email, password: PASSWORD, code: '12' } }), 400);
    });
  });

  describe('getCurrentSession', () => {
    it('answers the session of the cookie with the same CSRF token; 401 without a session, with a bearer token or a forged cookie', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      const current = await unwrap(signedIn.client.GET('/auth/session'));
      expect(current).toEqual(signedIn.answer);
      expectError(await server.client().GET('/auth/session'), 401);
      expectError(await person.admin.GET('/auth/session'), 401);
      expectError(await server.sessionClient('qs_forged-or-ended').GET('/auth/session'), 401);
    });
  });

  describe('signOut', () => {
    it('ends the session and clears the cookie: the cookie no longer works', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      const { response } = await signedIn.client.POST('/auth/sign-out');
      expect(response.status).toBe(204);
      expect(response.headers.get('set-cookie')).toBe('quire_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
      expectError(await signedIn.client.GET('/user'), 401);
      // With a bearer token there is no session to end.
      expect((await person.admin.POST('/auth/sign-out')).response.status).toBe(204);
      expect((await unwrap(person.admin.GET('/user'))).object).toBe('user');
    });
  });

  describe('listUserSessions', () => {
    it('lists the caller\'s open sessions, newest first, marking the current one, with no secret', async () => {
      const person = await personWithPassword(server);
      const first = await signIn(server, person.email);
      const second = await signIn(server, person.email);
      const other = await personWithPassword(server);
      await signIn(server, other.email);
      const list = await unwrap(second.client.GET('/user/sessions'));
      expect(list.count).toBe(2);
      expect(list.items.map((item) => [item.id, item.current])).toEqual([[second.answer.session.id, true], [first.answer.session.id, false]]);
      expect(JSON.stringify(list)).not.toContain(first.secret);
      const page = await unwrap(second.client.GET('/user/sessions', { params: { query: { limit: 1 } } }));
      expect(page.items.map((item) => item.id)).toEqual([second.answer.session.id]);
      const next = await unwrap(second.client.GET('/user/sessions', { params: { query: { limit: 1, page: page.next!.page } } }));
      expect(next.items.map((item) => item.id)).toEqual([first.answer.session.id]);
    });
  });

  describe('deleteUserSession', () => {
    it('ends one session of the caller at once; another person\'s session id changes nothing', async () => {
      const person = await personWithPassword(server);
      const first = await signIn(server, person.email);
      const second = await signIn(server, person.email);
      const other = await personWithPassword(server);
      const theirs = await signIn(server, other.email);
      expect((await second.client.DELETE('/user/sessions/{sessionId}', { params: { path: { sessionId: theirs.answer.session.id } } })).response.status).toBe(204);
      expect((await unwrap(theirs.client.GET('/user'))).id).toBe(other.userId);
      expect((await second.client.DELETE('/user/sessions/{sessionId}', { params: { path: { sessionId: first.answer.session.id } } })).response.status).toBe(204);
      expectError(await first.client.GET('/user'), 401);
      expect((await unwrap(second.client.GET('/user/sessions'))).items.map((item) => item.id)).toEqual([second.answer.session.id]);
    });
  });

  describe('deleteUserSessions', () => {
    it('ends every session of the caller but the current one', async () => {
      const person = await personWithPassword(server);
      const first = await signIn(server, person.email);
      const second = await signIn(server, person.email);
      const third = await signIn(server, person.email);
      expect((await third.client.DELETE('/user/sessions')).response.status).toBe(204);
      expectError(await first.client.GET('/user'), 401);
      expectError(await second.client.GET('/user'), 401);
      expect((await unwrap(third.client.GET('/user/sessions'))).items.map((item) => item.id)).toEqual([third.answer.session.id]);
    });
  });

  describe('session expiry', () => {
    it('ends a session unused for the idle time, and one past its absolute expiry however used', async () => {
      const person = await personWithPassword(server);
      const idle = await signIn(server, person.email);
      const old = await signIn(server, person.email);
      const fresh = await signIn(server, person.email);
      // Time travel: the default idle time is a day, the absolute lifetime a week.
      await backdateBrowserSession(server, idle.answer.session.id, { lastUsedAt: new Date(Date.now() - 24 * 3_600_000 - 1000) });
      await backdateBrowserSession(server, old.answer.session.id, { expiresAt: new Date(Date.now() - 1000) });
      expectError(await idle.client.GET('/user'), 401, 'The session has expired: sign in again');
      expectError(await old.client.GET('/user'), 401, 'The session has expired: sign in again');
      expect((await unwrap(fresh.client.GET('/user/sessions'))).items.map((item) => item.id)).toEqual([fresh.answer.session.id]);
      // Used a little within the idle time, a session lives on: its idle expiry moves with each use.
      await backdateBrowserSession(server, fresh.answer.session.id, { lastUsedAt: new Date(Date.now() - 23 * 3_600_000) });
      expect((await unwrap(fresh.client.GET('/user'))).id).toBe(person.userId);
      const [listed] = (await unwrap(fresh.client.GET('/user/sessions'))).items;
      expect(Date.parse(listed!.expiresAt)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    });
  });

  describe('updateUserPassword', () => {
    it('checks the current password and the rules, then ends the user\'s other sessions at once', async () => {
      const person = await personWithPassword(server);
      const other = await signIn(server, person.email);
      const current = await signIn(server, person.email);
      const newPassword = 'a brand new passphrase 2026';
      expectError(await current.client.PUT('/user/password', { body: { currentPassword: 'not the password at all', newPassword } }), 403);
      expectError(await current.client.PUT('/user/password', { body: { currentPassword: PASSWORD, newPassword: 'short' } }), 400, 'newPassword must be at least 12 characters long');
      expectError(await current.client.PUT('/user/password', { body: { currentPassword: PASSWORD, newPassword: 'password1234' } }), 400, /newPassword is one of the most common passwords/);
      expect((await unwrap(other.client.GET('/user'))).id).toBe(person.userId);

      expect((await current.client.PUT('/user/password', { body: { currentPassword: PASSWORD, newPassword } })).response.status).toBe(204);
      expectError(await other.client.GET('/user'), 401);
      expect((await unwrap(current.client.GET('/user'))).id).toBe(person.userId);
      expect((await signInRequest(server, { email: person.email, password: PASSWORD })).status).toBe(401);
      await signIn(server, person.email, newPassword);
    });
  });

  describe('removeMemberFromOrganizationById ends sessions', () => {
    it('ends the removed member\'s sessions at once', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      expect((await unwrap(signedIn.client.GET('/user'))).id).toBe(person.userId);
      expect((await person.admin.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: person.organizationId, userId: person.userId } } })).response.status).toBe(204);
      expectError(await signedIn.client.GET('/user'), 401);
    });
  });

  describe('CSRF defence of the session cookie', () => {
    it('refuses a cross-site form post and cross-site fetches (wrong Origin, Sec-Fetch-Site: cross-site, no token), changing nothing', async () => {
      const person = await personWithPassword(server);
      const victim = await signIn(server, person.email);
      const spare = await signIn(server, person.email);
      const cookie = `quire_session=${victim.secret}`;
      const attempts: Array<{ name: string; init: RequestInit & { headers: Record<string, string> } }> = [
        // What a form of another site posts: the cookie rides along (a top-level POST), no custom header can.
        { name: 'cross-site form post', init: { method: 'POST', headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }, body: 'x=1' } },
        { name: 'fetch with a wrong Origin', init: { method: 'DELETE', headers: { cookie, origin: 'https://evil.example', 'x-csrf-token': victim.answer.csrfToken } } },
        { name: 'fetch with Sec-Fetch-Site: cross-site', init: { method: 'DELETE', headers: { cookie, 'sec-fetch-site': 'cross-site', 'x-csrf-token': victim.answer.csrfToken } } },
        { name: 'fetch without the token', init: { method: 'DELETE', headers: { cookie, origin: server.url, 'sec-fetch-site': 'same-origin' } } },
        { name: 'fetch with another session\'s token', init: { method: 'DELETE', headers: { cookie, origin: server.url, 'x-csrf-token': spare.answer.csrfToken } } },
      ];
      for (const { name, init } of attempts) {
        const path = init.method === 'POST' ? '/v1/auth/sign-out' : '/v1/user/sessions';
        const response = await fetch(`${server.url}${path}`, init);
        expect(response.status, name).toBe(403);
        expect(((await response.json()) as { error: { code: number } }).error.code, name).toBe(403);
      }
      // Nothing changed: both sessions are still open.
      expect((await unwrap(victim.client.GET('/user/sessions'))).count).toBe(2);
      // The same requests from Quire's own page, with the token, pass.
      const same = await fetch(`${server.url}/v1/user/sessions`, { method: 'DELETE', headers: { cookie, origin: server.url, 'sec-fetch-site': 'same-origin', 'x-csrf-token': victim.answer.csrfToken } });
      expect(same.status).toBe(204);
      expectError(await spare.client.GET('/user'), 401);
    });

    it('never mixes a bearer token and the cookie (400); a bearer token needs no CSRF token', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      const org = await newOrg(server, 'Bearer org');
      const mixed = await fetch(`${server.url}/v1/user`, { headers: { cookie: `quire_session=${signedIn.secret}`, authorization: `Bearer ${org.token}` } });
      expect(mixed.status).toBe(400);
      expect(await mixed.json()).toEqual({ error: { code: 400, message: 'Send either a bearer token or the session cookie, not both' } });
      const bearer = await fetch(`${server.url}/v1/orgs/${org.organizationId}/spaces`, {
        method: 'POST', headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json', origin: 'https://elsewhere.example' }, body: JSON.stringify({ title: 'By token' }),
      });
      expect(bearer.status).toBe(201);
    });
  });

  describe('startTotpEnrollment', () => {
    it('answers a secret and its otpauth URL; a second factor already on answers 409', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      const enrollment = await unwrap(signedIn.client.POST('/user/totp'));
      expect(enrollment.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(enrollment.otpauthUrl).toMatch(/^otpauth:\/\/totp\/Quire:.+\?.*secret=[A-Z2-7]{32}/);
      // Not on until confirmed: signing in asks for nothing yet.
      expect((await signIn(server, person.email)).answer.object).toBe('auth-session');
      await unwrap(signedIn.client.POST('/user/totp/confirm', { body: { code: currentCode(enrollment.secret) } }));
      expectError(await signedIn.client.POST('/user/totp'), 409);
    });
  });

  describe('confirmTotpEnrollment', () => {
    it('turns the second factor on with a right code only, answering ten recovery codes once', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      expectError(await signedIn.client.POST('/user/totp/confirm', { body: { code: '123456' } }), 404);
      const { secret } = await unwrap(signedIn.client.POST('/user/totp'));
      const wrong = currentCode(secret, 600);
      expectError(await signedIn.client.POST('/user/totp/confirm', { body: { code: wrong } }), 403);
      const { recoveryCodes } = await unwrap(signedIn.client.POST('/user/totp/confirm', { body: { code: currentCode(secret) } }));
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
      expectError(await signedIn.client.POST('/user/totp/confirm', { body: { code: currentCode(secret) } }), 409);
    });
  });

  describe('signIn with a second factor', () => {
    it('asks for the code, takes each code once (replay refused), and each recovery code once', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      const { secret } = await unwrap(signedIn.client.POST('/user/totp'));
      const { recoveryCodes } = await unwrap(signedIn.client.POST('/user/totp/confirm', { body: { code: currentCode(secret) } }));

      const challenged = await signInRequest(server, { email: person.email, password: PASSWORD });
      expect(challenged.status).toBe(200);
      expect(await challenged.json()).toEqual({ object: 'sign-in-challenge', secondFactor: 'totp' });
      expect(challenged.headers.get('set-cookie')).toBeNull();
      // A wrong password with a code is no better than without one.
      expect((await signInRequest(server, { email: person.email, password: 'not the password at all', code: currentCode(secret, 30) })).status).toBe(401);

      // The code of the step that confirmed the enrolment was used: the next step's code signs in (the window
      // takes one step either side), once; the earlier code is refused too.
      const next = currentCode(secret, 30);
      expect((await signIn(server, person.email, PASSWORD, { code: next })).answer.session.method).toBe('password');
      for (const code of [next, currentCode(secret)]) {
        const replay = await signInRequest(server, { email: person.email, password: PASSWORD, code });
        expect(replay.status).toBe(401);
        expect(await replay.json()).toEqual({ error: { code: 401, message: WRONG_CREDENTIALS } });
      }

      await signIn(server, person.email, PASSWORD, { code: recoveryCodes[0]!.toUpperCase() });
      expect((await signInRequest(server, { email: person.email, password: PASSWORD, code: recoveryCodes[0]! })).status).toBe(401);
    });
  });

  describe('disableTotp', () => {
    it('turns the second factor off with a recovery code or a current code, never with a wrong one', async () => {
      const person = await personWithPassword(server);
      const signedIn = await signIn(server, person.email);
      expectError(await signedIn.client.DELETE('/user/totp', { body: { code: '123456' } }), 404);
      const { secret } = await unwrap(signedIn.client.POST('/user/totp'));
      const { recoveryCodes } = await unwrap(signedIn.client.POST('/user/totp/confirm', { body: { code: currentCode(secret) } }));
      expectError(await signedIn.client.DELETE('/user/totp', { body: { code: 'aaaaa-bbbbb' } }), 403);
      expect((await signedIn.client.DELETE('/user/totp', { body: { code: recoveryCodes[3]! } })).response.status).toBe(204);
      expect((await signIn(server, person.email)).answer.object).toBe('auth-session');
    });
  });
});

describeEachDialect('sign-in throttling', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_SIGNIN_LIMIT_ACCOUNT: '3', QUIRE_SIGNIN_LIMIT_ADDRESS: '8' } });

  describe('signIn throttled', () => {
    it('answers 429 with Retry-After once an account has used its failed attempts, even to the right password; others go on', async () => {
      const person = await personWithPassword(server);
      const other = await personWithPassword(server);
      for (let attempt = 0; attempt < 3; attempt++) expect((await signInRequest(server, { email: person.email, password: 'a wrong password' })).status).toBe(401);
      const refused = await signInRequest(server, { email: person.email, password: PASSWORD });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(429);
      // Another account from the same address still signs in, and a success does not count against the address.
      await signIn(server, other.email);

      // The address: failures across accounts (unknown ones too) add up until every sign-in from it is refused.
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await signInRequest(server, { email: `unknown-${attempt}@example.com`, password: 'a wrong password' })).status).toBe(401);
      }
      expect((await signInRequest(server, { email: other.email, password: PASSWORD })).status).toBe(429);
    });
  });
});
