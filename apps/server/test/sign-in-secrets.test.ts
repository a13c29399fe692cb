import { Secret, TOTP } from 'otpauth';
import { afterEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { bootstrap } from '../src/services/admin-service.js';
import { setUserPasswordByEmail } from '../src/services/sign-in-service.js';
import { startLoggedServer } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from './dialects.js';

/*
 * The secrets scan of the sign-in addresses (issue 24): the built server at debug level, every new address
 * called, right and wrong; the password, the session secret, the TOTP secret and the recovery codes appear in
 * no log line, and in no answer but the one that hands them out (the CSRF token: signIn and getCurrentSession;
 * the TOTP secret: startTotpEnrollment; the recovery codes: confirmTotpEnrollment). Needs a build.
 */

const PASSWORD = 'never-in-a-log passphrase 7731';
const NEW_PASSWORD = 'another never-logged passphrase 8842';

describeEachDialect('sign-in secrets', (dialect) => {
  let database: TestDatabaseUrl | undefined;
  afterEach(async () => {
    await database?.drop();
  });

  it('never appear in a log line, nor in an answer other than the one that hands them out', async () => {
    database = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(database.url));
    await migrateToLatest(handle);
    const context = { db: handle.db, dialect: handle.dialect, logger: createLogger('silent') };
    const email = `secrets-${Date.now()}@example.com`;
    await bootstrap(context, { organizationTitle: 'Sign-in secrets', email });
    await setUserPasswordByEmail(context, email, PASSWORD);
    await handle.close();
    const server = await startLoggedServer(database.url);
    const { base } = server;
    try {
      const answers: Array<{ label: string; text: string }> = [];
      let cookie = '';
      let csrf = '';
      const call = async (label: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
        const response = await fetch(`${base}/v1${path}`, {
          method,
          headers: { 'content-type': 'application/json', origin: base, ...(cookie ? { cookie, 'x-csrf-token': csrf } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        const text = await response.text();
        answers.push({ label, text: `${response.status} ${response.headers.get('set-cookie') === null ? '' : '[cookie set]'} ${text}` });
        return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      };
      expect((await call('wrong password', 'POST', '/auth/sign-in', { email, password: `${PASSWORD}!` })).status).toBe(401);
      const response = await fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
      const secret = /^quire_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
      csrf = ((await response.json()) as { csrfToken: string }).csrfToken;
      cookie = `quire_session=${secret}`;
      expect((await call('current session', 'GET', '/auth/session')).status).toBe(200);
      expect((await call('sessions', 'GET', '/user/sessions')).status).toBe(200);
      const enrollment = await call('start TOTP', 'POST', '/user/totp');
      const totpSecret = enrollment.json.secret as string;
      const code = new TOTP({ secret: Secret.fromBase32(totpSecret) }).generate();
      expect((await call('wrong TOTP', 'POST', '/user/totp/confirm', { code: code === '000000' ? '111111' : '000000' })).status).toBe(403);
      const confirmed = await call('confirm TOTP', 'POST', '/user/totp/confirm', { code });
      const recoveryCodes = confirmed.json.recoveryCodes as string[];
      expect((await call('challenge', 'POST', '/auth/sign-in', { email, password: PASSWORD })).json.object).toBe('sign-in-challenge');
      expect((await call('replayed code', 'POST', '/auth/sign-in', { email, password: PASSWORD, code })).status).toBe(401);
      expect((await call('recovery code', 'POST', '/auth/sign-in', { email, password: PASSWORD, code: recoveryCodes[0] })).status).toBe(200);
      expect((await call('spent recovery code', 'POST', '/auth/sign-in', { email, password: PASSWORD, code: recoveryCodes[0] })).status).toBe(401);
      expect((await call('wrong current password', 'PUT', '/user/password', { currentPassword: NEW_PASSWORD, newPassword: PASSWORD })).status).toBe(403);
      expect((await call('password change', 'PUT', '/user/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(204);
      expect((await call('disable TOTP', 'DELETE', '/user/totp', { code: recoveryCodes[1] })).status).toBe(204);
      expect((await call('sign out', 'POST', '/auth/sign-out')).status).toBe(204);

      const handedOut: Record<string, string[]> = {
        [csrf]: ['current session'],
        [totpSecret]: ['start TOTP'],
        ...Object.fromEntries(recoveryCodes.map((recovery) => [recovery, ['confirm TOTP']])),
      };
      for (const value of [PASSWORD, NEW_PASSWORD, secret, csrf, totpSecret, ...recoveryCodes]) {
        for (const answer of answers) {
          if ((handedOut[value] ?? []).includes(answer.label)) continue;
          expect(answer.text, `${answer.label} shows a secret`).not.toContain(value);
        }
        expect(server.log(), 'the log shows a secret').not.toContain(value);
      }
      expect(await server.stop()).toBe(0);
      expect(server.log()).toContain('/v1/auth/sign-in');
    } finally {
      server.dispose();
    }
  }, 120_000);
});
