import { unwrap } from '@quire/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../src/ids.js';
import { describeEachDialect } from './dialects.js';
import { expectError, useTestServer } from './helpers.js';
import { startOidcProvider, type OidcTestAccount, type OidcTestProvider } from './oidc-fixtures.js';
import { makeIdpCredentials } from './saml-fixtures.js';
import { startTestServer, type TestServer } from './server.js';
import { storedOidcRows } from './storage-facts.js';
import { disableMembership, expireOidcPendingLogins } from './storage-setup.js';

/*
 * Sign-in through the installation's OpenID Connect provider, against a real provider (oidc-provider) on a
 * loopback port. A browser is played by `Browser`: it keeps each site's cookies and follows redirects, so the
 * test goes where a person's browser would, from Quire to the provider and back.
 */

/** Where Quire's answers point: the test server's public URL is the default, `http://localhost:<PORT=0>`. */
const PUBLIC_URL = 'http://localhost:0';

class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  constructor(private readonly quireUrl: string) {}

  /** Quire's public URL is not where the test server listens: such addresses go to the server. */
  private resolve(url: string): URL {
    return new URL(url.startsWith(PUBLIC_URL) ? this.quireUrl + url.slice(PUBLIC_URL.length) : url);
  }

  cookie(url: string, name: string): string | undefined {
    return this.jars.get(this.resolve(url).host)?.get(name);
  }

  setCookie(url: string, name: string, value: string): void {
    const host = this.resolve(url).host;
    if (!this.jars.has(host)) this.jars.set(host, new Map());
    this.jars.get(host)!.set(name, value);
  }

  async get(url: string): Promise<Response> {
    const target = this.resolve(url);
    const jar = this.jars.get(target.host) ?? new Map<string, string>();
    this.jars.set(target.host, jar);
    const response = await fetch(target, { redirect: 'manual', headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const gone = attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute));
      if (gone) jar.delete(name);
      else jar.set(name, pair!.slice(at + 1).trim());
    }
    return response;
  }

  /** Follows redirects from `url` until one leads to `stopAt` (not followed), and answers that address. */
  async followUntil(url: string, stopAt: string): Promise<string> {
    let next = url;
    for (let hop = 0; hop < 10; hop++) {
      const response = await this.get(next);
      const location = response.headers.get('location');
      if (!location) throw new Error(`${next} answered ${response.status} without a redirect: ${await response.text()}`);
      next = new URL(location, this.resolve(next)).href;
      if (next.startsWith(stopAt)) return next;
    }
    throw new Error('too many redirects');
  }
}

describeEachDialect('OpenID Connect sign-in', (dialect) => {
  let idp: OidcTestProvider;
  let server: TestServer;
  let organizationId: string;
  let admin: ReturnType<TestServer['client']>;

  beforeAll(async () => {
    idp = await startOidcProvider({ redirectUri: `${PUBLIC_URL}/auth/oidc/callback` });
    server = await startTestServer({
      dialect,
      env: { QUIRE_OIDC_ISSUER: idp.issuer, QUIRE_OIDC_CLIENT_ID: idp.clientId, QUIRE_OIDC_CLIENT_SECRET: idp.clientSecret, QUIRE_OIDC_NAME: 'Test IdP', QUIRE_OIDC_DEFAULT_ROLE: 'edit' },
    });
    const owner = await server.bootstrap('OIDC org');
    organizationId = owner.organizationId;
    admin = server.client(owner.token);
  });
  afterAll(async () => {
    await server?.close();
    await idp?.close();
  });

  /*
   * The organization exists only once the server runs, so it is set where the server reads its configuration
   * (what QUIRE_OIDC_ORGANIZATION gives a real installation); each test starts from the same settings.
   */
  beforeEach(() => {
    const oidc = server.running.services.oidc!;
    server.running.services.oidc = { ...oidc, organizationId, allowedDomains: [] };
    idp.tamperIdToken = undefined;
  });

  function newAccount(overrides: Partial<OidcTestAccount> = {}): OidcTestAccount {
    const key = newId(8).toLowerCase();
    const account = { sub: `sub-${key}`, email: `person-${key}@example.com`, email_verified: true, name: `Person ${key}`, ...overrides };
    idp.addAccount(account);
    return account;
  }

  /** Starts a sign-in in `browser` and goes through the provider as `account`: answers the callback address. */
  async function throughProvider(browser: Browser, account: OidcTestAccount, returnPath?: string): Promise<string> {
    idp.nextAccount = account.sub;
    const start = `${server.url}/auth/oidc/start${returnPath !== undefined ? `?return=${encodeURIComponent(returnPath)}` : ''}`;
    return browser.followUntil(start, `${PUBLIC_URL}/auth/oidc/callback`);
  }

  async function signIn(account: OidcTestAccount, returnPath?: string) {
    const browser = new Browser(server.url);
    const callback = await throughProvider(browser, account, returnPath);
    const response = await browser.get(callback);
    return { response, browser, callback };
  }

  const sessionOf = (response: Response) => /quire_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  /** The caller a browser with this session cookie is (a GET needs no CSRF token). */
  const userOf = async (response: Response) => {
    const answer = await fetch(`${server.url}/v1/user`, { headers: { cookie: `quire_session=${sessionOf(response)}` } });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { id: string; email: string; displayName: string };
  };
  const members = async () => (await unwrap(admin.GET('/orgs/{organizationId}/members', { params: { path: { organizationId }, query: { limit: 1000 } } }))).items;

  /** A refused callback: its status, the error shape, and nothing added (no member, identity or session cookie). */
  async function expectRefused(response: Response, status: number, message: RegExp, before: { members: number; identities: number }) {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    const body = JSON.parse(text) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(status);
    expect(body.error.message).toMatch(message);
    expect(sessionOf(response)).toBeUndefined();
    expect((await members()).length).toBe(before.members);
    expect((await storedOidcRows(server)).identities).toBe(before.identities);
  }

  const snapshot = async () => ({ members: (await members()).length, identities: (await storedOidcRows(server)).identities });

  describe('start', () => {
    it('sends the browser to the provider with PKCE (S256), state and nonce, and binds the sign-in to the browser', async () => {
      const browser = new Browser(server.url);
      const response = await browser.get(`${server.url}/auth/oidc/start?return=/app/spaces`);
      expect(response.status).toBe(302);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const location = new URL(response.headers.get('location')!);
      expect(location.origin).toBe(idp.issuer);
      const query = location.searchParams;
      expect(query.get('client_id')).toBe(idp.clientId);
      expect(query.get('redirect_uri')).toBe(`${PUBLIC_URL}/auth/oidc/callback`);
      expect(query.get('response_type')).toBe('code');
      expect(query.get('scope')).toBe('openid email profile');
      expect(query.get('code_challenge_method')).toBe('S256');
      expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(query.get('state')!.length).toBeGreaterThanOrEqual(32);
      expect(query.get('nonce')!.length).toBeGreaterThanOrEqual(32);
      // The code verifier stays in this browser, for the callback's path only.
      expect(response.headers.get('set-cookie')).toMatch(/^quire_oidc=[A-Za-z0-9_-]{43,}; Max-Age=600; Path=\/auth\/oidc; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
      expect(location.href).not.toContain(browser.cookie(server.url, 'quire_oidc')!);
    });

    it('answers 404 where no provider is configured', async () => {
      delete server.running.services.oidc!.organizationId;
      const saved = server.running.services.oidc;
      delete server.running.services.oidc;
      try {
        const response = await fetch(`${server.url}/auth/oidc/start`, { redirect: 'manual' });
        expect(response.status).toBe(404);
        expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/not configured/);
      } finally {
        server.running.services.oidc = saved;
      }
    });
  });

  describe('callback', () => {
    it('signs a new person in: user, identity and membership with the configured role, a session, then the return path', async () => {
      const account = newAccount({ name: 'New Person' });
      const { response } = await signIn(account, '/app/welcome');
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/app/welcome');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('set-cookie')).toMatch(/quire_session=qs_[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax/);
      // The binding cookie is cleared: it served its one sign-in.
      expect(response.headers.get('set-cookie')).toMatch(/quire_oidc=; Path=\/auth\/oidc; Expires=Thu, 01 Jan 1970/);
      const me = await userOf(response);
      expect(me).toMatchObject({ email: account.email, displayName: 'New Person' });
      const member = (await members()).find((item) => item.user.id === me.id);
      expect(member).toMatchObject({ role: 'edit', sso: true });
    });

    it('finds the same person on a second sign-in by the provider\'s subject, even under a new address', async () => {
      const account = newAccount();
      const first = await signIn(account);
      expect(first.response.status).toBe(200);
      expect(await first.response.text()).toContain(`Signed in as ${account.email}`);
      const userId = (await userOf(first.response)).id;
      const before = await snapshot();

      idp.addAccount({ ...account, email: `renamed-${account.email}` });
      const second = await signIn(account);
      expect(second.response.status).toBe(200);
      expect((await userOf(second.response)).id).toBe(userId);
      expect(await snapshot()).toEqual(before);
    });

    it('links an existing account with the same verified address, without joining it to the organization', async () => {
      const other = await server.bootstrap('Other org');
      const existing = await server.addMember(other.organizationId, `known-${newId(6).toLowerCase()}@example.com`, 'read');
      const email = (await unwrap(server.client(existing.token).GET('/user'))).email!;
      const { response } = await signIn(newAccount({ email: email.toUpperCase() }));
      expect(response.status).toBe(200);
      expect((await userOf(response)).id).toBe(existing.userId);
      expect((await members()).some((item) => item.user.id === existing.userId)).toBe(false);
    });

    it('refuses a forged state, and the real one still works afterwards', async () => {
      const before = await snapshot();
      const browser = new Browser(server.url);
      const callback = new URL(await throughProvider(browser, newAccount()));
      const forged = new URL(callback);
      forged.searchParams.set('state', 'forged-state-value-forged-state-value');
      const binding = browser.cookie(server.url, 'quire_oidc')!;
      await expectRefused(await browser.get(forged.href), 400, /unknown or was already completed/, before);
      // Any callback clears the binding cookie; the forged state matched no pending sign-in, so the real one
      // is still there and completes with the binding the browser had.
      expect(browser.cookie(server.url, 'quire_oidc')).toBeUndefined();
      browser.setCookie(server.url, 'quire_oidc', binding);
      expect((await browser.get(callback.href)).status).toBe(200);
    });

    it('refuses a callback carried into another browser (login CSRF), and a callback without a state', async () => {
      const before = await snapshot();
      const victim = new Browser(server.url);
      const attacker = new Browser(server.url);
      const callback = await throughProvider(attacker, newAccount());
      await expectRefused(await victim.get(callback), 400, /not started in this browser/, before);
      // A browser with a binding of its own, from another sign-in, is refused as well.
      await throughProvider(victim, newAccount());
      const stolen = await throughProvider(attacker, newAccount());
      await expectRefused(await victim.get(stolen), 400, /not started in this browser/, before);
      const noState = new URL(stolen);
      noState.searchParams.delete('state');
      await expectRefused(await victim.get(noState.href), 400, /no state/, before);
    });

    it('refuses an ID token meant for another client (wrong audience)', async () => {
      const before = await snapshot();
      idp.tamperIdToken = { aud: 'another-client' };
      const { response } = await signIn(newAccount());
      await expectRefused(response, 401, /"aud" \(audience\)/, before);
    });

    it('refuses an expired ID token', async () => {
      const before = await snapshot();
      const past = Math.floor(Date.now() / 1000) - 3600;
      idp.tamperIdToken = { iat: past - 60, exp: past };
      const { response } = await signIn(newAccount());
      await expectRefused(response, 401, /"exp" \(expiration time\) claim value, expiration is past/, before);
    });

    it('refuses a replayed callback: a sign-in completes once', async () => {
      const { response, browser, callback } = await signIn(newAccount());
      expect(response.status).toBe(200);
      const before = await snapshot();
      // The same address with the binding cookie put back, as an attacker holding both would send it.
      const binding = /quire_oidc=([^;]+)/.exec((await fetch(`${server.url}/auth/oidc/start`, { redirect: 'manual' })).headers.get('set-cookie') ?? '')?.[1];
      browser.setCookie(server.url, 'quire_oidc', binding!);
      await expectRefused(await browser.get(callback), 400, /unknown or was already completed/, before);
    });

    it('refuses a callback after the pending sign-in expired', async () => {
      const before = await snapshot();
      const browser = new Browser(server.url);
      const callback = await throughProvider(browser, newAccount());
      await expireOidcPendingLogins(server);
      const pending = (await storedOidcRows(server)).pending;
      await expectRefused(await browser.get(callback), 400, /expired/, before);
      // The expired sign-in is gone: a second try answers as for any used one.
      expect((await storedOidcRows(server)).pending).toBe(pending - 1);
    });

    it('refuses an address the provider has not verified', async () => {
      const before = await snapshot();
      const { response } = await signIn(newAccount({ email_verified: false }));
      await expectRefused(response, 403, /not verified/, before);
    });

    it('refuses addresses outside the allowed domains', async () => {
      const oidc = server.running.services.oidc!;
      server.running.services.oidc = { ...oidc, allowedDomains: ['docs.example.org'] };
      const before = await snapshot();
      const { response } = await signIn(newAccount());
      await expectRefused(response, 403, /Addresses at example\.com may not sign in/, before);
      const allowed = await signIn(newAccount({ email: `someone-${newId(6).toLowerCase()}@docs.example.org` }));
      expect(allowed.response.status).toBe(200);
    });

    it('refuses a member who was removed or disabled', async () => {
      const removed = newAccount();
      const removedId = (await userOf((await signIn(removed)).response)).id;
      expect((await admin.DELETE('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId, userId: removedId } } })).response.ok).toBe(true);
      let before = await snapshot();
      await expectRefused((await signIn(removed)).response, 403, /not an active member/, before);

      const disabled = newAccount();
      const disabledId = (await userOf((await signIn(disabled)).response)).id;
      await disableMembership(server, organizationId, disabledId);
      before = await snapshot();
      await expectRefused((await signIn(disabled)).response, 403, /not an active member/, before);
    });

    it('refuses a person new to Quire when no organization takes new people', async () => {
      delete server.running.services.oidc!.organizationId;
      const before = await snapshot();
      const { response } = await signIn(newAccount());
      await expectRefused(response, 403, /ask an administrator for an invitation/, before);
    });

    it('puts no code, token, nonce or client secret in any answer', async () => {
      const browser = new Browser(server.url);
      const start = await browser.get(`${server.url}/auth/oidc/start`);
      const nonce = new URL(start.headers.get('location')!).searchParams.get('nonce')!;
      idp.nextAccount = newAccount({ email_verified: false }).sub;
      const callback = await browser.followUntil(start.headers.get('location')!, `${PUBLIC_URL}/auth/oidc/callback`);
      const code = new URL(callback).searchParams.get('code')!;
      const refused = await browser.get(callback);
      const headers: string[] = [];
      refused.headers.forEach((value, name) => headers.push(`${name}: ${value}`));
      const text = `${headers.join('\n')}\n${await refused.text()}`;
      for (const secret of [code, nonce, idp.clientSecret]) expect(text).not.toContain(secret);
      expect(refused.headers.get('referrer-policy')).toBe('no-referrer');
    });
  });

  describe('listSignInProviders', () => {
    it('answers the password option, the provider with its start URL, and the SAML providers of an address\'s domain', async () => {
      const providers = await unwrap(server.client().GET('/auth/providers'));
      expect(providers).toEqual({ object: 'sign-in-providers', password: true, oidc: { name: 'Test IdP', startURL: `${PUBLIC_URL}/auth/oidc/start` }, saml: [] });

      const domain = `${newId(8).toLowerCase()}.example.net`;
      await unwrap(admin.PATCH('/orgs/{organizationId}', { params: { path: { organizationId } }, body: { emailDomains: [domain] } }));
      const idpCredentials = await makeIdpCredentials();
      const saml = await unwrap(admin.POST('/orgs/{organizationId}/saml', {
        params: { path: { organizationId } },
        body: { label: 'Corporate', entityID: 'https://idp.example.test/metadata', ssoURL: 'https://idp.example.test/sso', certificate: idpCredentials.certificate },
      }));
      // A provider whose identity-provider side is not complete is not offered.
      await unwrap(admin.POST('/orgs/{organizationId}/saml', { params: { path: { organizationId } }, body: { label: 'Pending', ssoURL: 'https://idp.example.test/pending-sso' } }));
      const forDomain = await unwrap(server.client().GET('/auth/providers', { params: { query: { email: `someone@${domain.toUpperCase()}` } } }));
      expect(forDomain.saml).toEqual([{ id: saml.id, label: 'Corporate', startURL: saml.service.startURL }]);
      const otherDomain = await unwrap(server.client().GET('/auth/providers', { params: { query: { email: 'someone@elsewhere.example' } } }));
      expect(otherDomain.saml).toEqual([]);
    });

    it('refuses an e-mail that is not an address', async () => {
      for (const email of ['not-an-address', 'a@b', 'x@%.example.com', 'x@_.example.com']) {
        expectError(await server.client().GET('/auth/providers', { params: { query: { email } } }), 400);
      }
    });
  });
});

describeEachDialect('listSignInProviders without OpenID Connect', (dialect) => {
  const server = useTestServer({ dialect });
  it('answers oidc null and the password option', async () => {
    expect(await unwrap(server.client().GET('/auth/providers'))).toEqual({ object: 'sign-in-providers', password: true, oidc: null, saml: [] });
  });
});
