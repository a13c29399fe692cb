import { spawn } from 'node:child_process';
import { createVerify, X509Certificate } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { unwrap, type QuireClient } from '@quire/client';
import type { SAMLProvider } from '@quire/api-types';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { expectError, organizationWithPeople, useTestServer } from './helpers.js';
import { makeIdpCredentials, signedSamlResponse, type IdpCredentials, type SamlResponseOptions } from './saml-fixtures.js';
import { storedSessionCount, storedText } from './storage-facts.js';

const IDP_ENTITY = 'https://idp.example.test/metadata';
const IDP_SSO = 'https://idp.example.test/sso';

describeEachDialect('SAML sign-in', (dialect) => {
  const server = useTestServer({ dialect });
  let idp: IdpCredentials;
  let impostor: IdpCredentials;
  beforeAll(async () => {
    [idp, impostor] = await Promise.all([makeIdpCredentials(), makeIdpCredentials({ name: 'Impostor' })]);
  });

  const orgPath = (organizationId: string) => ({ path: { organizationId } });

  /** An organization with an active provider (role `edit`, team "SSO joiners") and its admin. */
  async function organizationWithProvider() {
    const org = await organizationWithPeople(server, 'SSO login org');
    const team = await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams', { params: orgPath(org.organizationId), body: { title: 'SSO joiners' } }));
    const provider = await unwrap(org.admin.client.POST('/orgs/{organizationId}/saml', {
      params: orgPath(org.organizationId),
      body: { label: 'Test IdP', entityID: IDP_ENTITY, ssoURL: IDP_SSO, certificate: idp.certificate, defaultTeam: team.id, defaultRole: 'edit' },
    }));
    return { ...org, team, provider };
  }

  const responseFor = (provider: SAMLProvider, email: string, overrides: Partial<SamlResponseOptions> = {}) =>
    signedSamlResponse({ signer: idp, issuer: IDP_ENTITY, audience: provider.service.entityID, acsURL: provider.service.acsURL, email, ...overrides });

  /** Posts to the provider's ACS path as the browser does, on the test server's address. */
  const postAcs = (providerId: string, samlResponse: string, relayState?: string) =>
    fetch(`${server.url}/auth/saml/${providerId}/acs`, {
      method: 'POST',
      body: new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState !== undefined ? { RelayState: relayState } : {}) }),
      redirect: 'manual',
    });

  const sessionToken = (response: Response): string | undefined => /quire_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  const memberCount = async (client: QuireClient, organizationId: string) =>
    (await unwrap(client.GET('/orgs/{organizationId}/members', { params: { ...orgPath(organizationId), query: { limit: 1000 } } }))).count ?? 0;

  /** Asserts that a refused sign-in left the organization as it was: no member and no session added. */
  async function expectNothingCreated(org: { organizationId: string; admin: { client: QuireClient } }, membersBefore: number) {
    expect(await memberCount(org.admin.client, org.organizationId)).toBe(membersBefore);
    // Sessions are tokens, which no operation lists: read from storage.
    expect(await storedSessionCount(server, org.organizationId)).toBe(0);
  }

  describe('start', () => {
    it('redirects to the identity provider with an AuthnRequest for this provider\'s ACS URL', async () => {
      const org = await organizationWithProvider();
      const response = await fetch(`${server.url}/auth/saml/${org.provider.id}/start?return=/auth/cli/start`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(IDP_SSO);
      expect(location.searchParams.get('RelayState')).toBe('/auth/cli/start');
      const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
      expect(request).toContain('<samlp:AuthnRequest');
      expect(request).toContain(`AssertionConsumerServiceURL="${org.provider.service.acsURL}"`);
      expect(request).toContain(`Destination="${IDP_SSO}"`);
      expect(request).toContain(`>${org.provider.service.entityID}</saml:Issuer>`);
    });

    it('signs the AuthnRequest with the provider\'s own key, whose certificate the metadata publishes', async () => {
      const org = await organizationWithProvider();
      const response = await fetch(`${server.url}/auth/saml/${org.provider.id}/start?return=/auth/cli/start`, { redirect: 'manual' });
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
      // HTTP-Redirect binding: the signature covers SAMLRequest, RelayState and SigAlg as they are in the query.
      const raw = new Map(location.search.slice(1).split('&').map((part) => part.split('=') as [string, string]));
      const signed = ['SAMLRequest', 'RelayState', 'SigAlg'].map((name) => `${name}=${raw.get(name)}`).join('&');
      // The identity provider takes the certificate from the metadata at the entity id the provider answers.
      const metadata = await (await fetch(org.provider.service.entityID.replace(/^https?:\/\/[^/]+/, server.url))).text();
      expect(metadata).toContain('AuthnRequestsSigned="true"');
      const published = /<KeyDescriptor use="signing">[\s\S]*?<ds:X509Certificate>([^<]+)<\/ds:X509Certificate>/.exec(metadata)?.[1];
      expect(published).toBeDefined();
      const certificate = new X509Certificate(Buffer.from(published!.replace(/\s+/g, ''), 'base64'));
      const verifies = (text: string) => createVerify('RSA-SHA256').update(text).verify(certificate.publicKey, location.searchParams.get('Signature')!, 'base64');
      expect(verifies(signed)).toBe(true);
      expect(verifies(signed.replace('RelayState=', 'RelayState=x'))).toBe(false);
      // One key per provider, the same on every request; another provider signs with another key.
      const again = await (await fetch(org.provider.service.entityID.replace(/^https?:\/\/[^/]+/, server.url))).text();
      expect(again).toContain(published!);
      const other = await unwrap(org.admin.client.POST('/orgs/{organizationId}/saml', { params: orgPath(org.organizationId), body: { label: 'Second IdP', entityID: IDP_ENTITY, ssoURL: IDP_SSO, certificate: idp.certificate } }));
      expect(await (await fetch(`${server.url}/auth/saml/${other.id}`)).text()).not.toContain(published!);
      // The private key is stored sealed only: no PEM of it in the table.
      const stored = await storedText(server, ['saml_providers']);
      expect(stored).toContain('sp_private_key');
      expect(stored).not.toContain('PRIVATE KEY');
    });

    it('does not follow a return address outside the installation; 404 for unknown and pending providers', async () => {
      const org = await organizationWithProvider();
      const outside = await fetch(`${server.url}/auth/saml/${org.provider.id}/start?return=https://evil.example/`, { redirect: 'manual' });
      expect(new URL(outside.headers.get('location')!).searchParams.get('RelayState')).toBeNull();
      expect((await fetch(`${server.url}/auth/saml/unknownProvider/start`, { redirect: 'manual' })).status).toBe(404);
      const pending = await unwrap(org.admin.client.POST('/orgs/{organizationId}/saml', { params: orgPath(org.organizationId), body: { label: 'Pending', ssoURL: IDP_SSO } }));
      expect((await fetch(`${server.url}/auth/saml/${pending.id}/start`, { redirect: 'manual' })).status).toBe(404);
    });
  });

  describe('acs', () => {
    it('signs a new person in: user and member with the default role and team, marked sso, and a session', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      const response = await postAcs(org.provider.id, await responseFor(org.provider, 'New.Person@Example.com', { displayName: 'New Person' }));
      expect(response.status).toBe(200);
      // The same browser session a password sign-in opens (issue 24), for the configured absolute lifetime.
      expect(response.headers.get('set-cookie')).toMatch(/^quire_session=qs_[^;]+; Max-Age=(?:604800|60479\d); Path=\/; HttpOnly; SameSite=Lax$/);
      const session = server.sessionClient(sessionToken(response)!);
      const me = await unwrap(session.GET('/user'));
      expect(me).toMatchObject({ email: 'new.person@example.com', displayName: 'New Person' });
      const member = await unwrap(org.admin.client.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: me.id } } }));
      expect(member).toMatchObject({ role: 'edit', sso: true, teams: 1 });
      const teamMembers = await unwrap(org.admin.client.GET('/orgs/{organizationId}/teams/{teamId}/members', { params: { path: { organizationId: org.organizationId, teamId: org.team.id } } }));
      expect(teamMembers.items.map((item) => item.organization.id)).toEqual([me.id]);
      expect(await memberCount(org.admin.client, org.organizationId)).toBe(before + 1);
      // The session reads what the member's role allows.
      expect((await unwrap(session.GET('/orgs/{organizationId}/sso', { params: orgPath(org.organizationId) }))).items).toHaveLength(1);
      expectError(await session.POST('/orgs/{organizationId}/saml', { params: orgPath(org.organizationId), body: { label: 'Not allowed', ssoURL: IDP_SSO } }), 403);
    });

    it('keeps an existing member\'s role and marks them sso; the session acts in this organization only', async () => {
      const org = await organizationWithProvider();
      const elsewhere = await organizationWithPeople(server, 'Other org');
      const reader = await server.addMember(org.organizationId, `reader-${Date.now()}@example.com`, 'read');
      const readerEmail = (await unwrap(server.client(reader.token).GET('/user'))).email!;
      await server.addMember(elsewhere.organizationId, readerEmail, 'admin');
      const space = await unwrap(elsewhere.admin.client.POST('/orgs/{organizationId}/spaces', { params: orgPath(elsewhere.organizationId), body: { title: 'Theirs' } }));

      const response = await postAcs(org.provider.id, await responseFor(org.provider, readerEmail), '/auth/cli/start?redirect=x');
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/auth/cli/start?redirect=x');
      const session = server.sessionClient(sessionToken(response)!);
      const member = await unwrap(session.GET('/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: org.organizationId, userId: reader.userId } } }));
      expect(member).toMatchObject({ role: 'read', sso: true, teams: 0 });

      // The same person is an admin elsewhere, but this session was started for `org`.
      expectError(await session.GET('/orgs/{organizationId}', { params: orgPath(elsewhere.organizationId) }), 404);
      expectError(await session.GET('/orgs/{organizationId}/spaces', { params: orgPath(elsewhere.organizationId) }), 404);
      expectError(await session.GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }), 404);
      expect((await unwrap(session.GET('/orgs'))).items.map((item) => item.id)).toEqual([org.organizationId]);
      expect((await unwrap(server.client(reader.token).GET('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }))).id).toBe(space.id);
    });

    it('takes the answer to a request it sent once, and refuses an answer to a request it never sent', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      const start = await fetch(`${server.url}/auth/saml/${org.provider.id}/start`, { redirect: 'manual' });
      const request = inflateRawSync(Buffer.from(new URL(start.headers.get('location')!).searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
      const requestId = / ID="([^"]+)"/.exec(request)![1]!;
      const unknown = await postAcs(org.provider.id, await responseFor(org.provider, 'sp-initiated@example.com', { inResponseTo: '_neverSent' }));
      expect(unknown.status).toBe(401);
      expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/InResponseTo/);
      await expectNothingCreated(org, before);
      const answered = await postAcs(org.provider.id, await responseFor(org.provider, 'sp-initiated@example.com', { inResponseTo: requestId }));
      expect(answered.status, await answered.clone().text()).toBe(200);
      expect((await postAcs(org.provider.id, await responseFor(org.provider, 'sp-initiated@example.com', { inResponseTo: requestId }))).status).toBe(401);
      expect(await storedSessionCount(server, org.organizationId)).toBe(1);
    });

    it('does not redirect to an address outside the installation', async () => {
      const org = await organizationWithProvider();
      const response = await postAcs(org.provider.id, await responseFor(org.provider, 'relay@example.com'), 'https://evil.example/steal');
      expect(response.status).toBe(200);
      expect(response.headers.get('location')).toBeNull();
    });

    it('refuses a response signed with another key', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      const response = await postAcs(org.provider.id, await responseFor(org.provider, 'forged@example.com', { signer: impostor }));
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^The SAML response was refused: Invalid signature/);
      expect(sessionToken(response)).toBeUndefined();
      await expectNothingCreated(org, before);
    });

    it('refuses a response whose signed content was altered', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      const genuine = Buffer.from(await responseFor(org.provider, 'victim@example.com'), 'base64').toString('utf8');
      const altered = Buffer.from(genuine.replaceAll('victim@example.com', 'attacker@example.com')).toString('base64');
      expect((await postAcs(org.provider.id, altered)).status).toBe(401);
      await expectNothingCreated(org, before);
    });

    it('refuses a response for another audience, another destination or another issuer', async () => {
      const org = await organizationWithProvider();
      const other = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      const audience = await postAcs(org.provider.id, await responseFor(org.provider, 'aud@example.com', { audience: other.provider.service.entityID }));
      expect(audience.status).toBe(401);
      expect(((await audience.json()) as { error: { message: string } }).error.message).toMatch(/audience/i);
      const destination = await postAcs(org.provider.id, await responseFor(org.provider, 'dest@example.com', { acsURL: other.provider.service.acsURL }));
      expect(destination.status).toBe(401);
      expect(((await destination.json()) as { error: { message: string } }).error.message).toMatch(/Destination/);
      expect((await postAcs(org.provider.id, await responseFor(org.provider, 'iss@example.com', { issuer: 'https://other-idp.example/' }))).status).toBe(401);
      await expectNothingCreated(org, before);
    });

    it('refuses an expired assertion and one not valid yet', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      const expired = await postAcs(org.provider.id, await responseFor(org.provider, 'late@example.com', { issuedAt: new Date(Date.now() - 60 * 60 * 1000) }));
      expect(expired.status).toBe(401);
      expect(((await expired.json()) as { error: { message: string } }).error.message).toMatch(/expired/i);
      const early = await postAcs(org.provider.id, await responseFor(org.provider, 'early@example.com', { issuedAt: new Date(Date.now() + 60 * 60 * 1000) }));
      expect(early.status).toBe(401);
      await expectNothingCreated(org, before);
    });

    it('accepts an assertion once: a replay is refused and creates nothing more', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      const samlResponse = await responseFor(org.provider, 'once@example.com');
      expect((await postAcs(org.provider.id, samlResponse)).status).toBe(200);
      const replay = await postAcs(org.provider.id, samlResponse);
      expect(replay.status).toBe(401);
      expect(((await replay.json()) as { error: { message: string } }).error.message).toBe('The SAML response was refused: this assertion was already used to sign in');
      expect(sessionToken(replay)).toBeUndefined();
      expect(await memberCount(org.admin.client, org.organizationId)).toBe(before + 1);
      expect(await storedSessionCount(server, org.organizationId)).toBe(1);
    });

    it('answers 404 for an unknown provider and 400 without a SAMLResponse', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      expect((await postAcs('unknownProvider', await responseFor(org.provider, 'nobody@example.com'))).status).toBe(404);
      const empty = await fetch(`${server.url}/auth/saml/${org.provider.id}/acs`, { method: 'POST', body: new URLSearchParams({}), redirect: 'manual' });
      expect(empty.status).toBe(400);
      const huge = await postAcs(org.provider.id, 'x'.repeat(300 * 1024));
      expect(huge.status).toBe(413);
      expect((await postAcs(org.provider.id, 'not base64 XML')).status).toBe(401);
      await expectNothingCreated(org, before);
    });

    it('refuses the answer to a sign-in started before the provider was deleted', async () => {
      const org = await organizationWithProvider();
      const before = await memberCount(org.admin.client, org.organizationId);
      expect((await fetch(`${server.url}/auth/saml/${org.provider.id}/start`, { redirect: 'manual' })).status).toBe(302);
      const samlResponse = await responseFor(org.provider, 'midflow@example.com');
      expect((await org.admin.client.DELETE('/orgs/{organizationId}/saml/{samlProviderId}', { params: { path: { organizationId: org.organizationId, samlProviderId: org.provider.id } } })).response.status).toBe(204);
      expect((await postAcs(org.provider.id, samlResponse)).status).toBe(404);
      await expectNothingCreated(org, before);
    });
  });

  describe('exchangeCliAuthCode', () => {
    const loopback = 'http://127.0.0.1:8765/callback';
    const cliStart = (query: Record<string, string>, sessionCookie?: string) =>
      fetch(`${server.url}/auth/cli/start?${new URLSearchParams(query)}`, { redirect: 'manual', ...(sessionCookie ? { headers: { cookie: `quire_session=${sessionCookie}` } } : {}) });
    const exchange = (body: unknown) => server.client().POST('/auth/cli/token', { body: body as never });

    it('hands a sign-in over to the command line: sign in, one-time code on the loopback address, token', async () => {
      const org = await organizationWithProvider();
      const query = { redirect: loopback, state: 'st4te', provider: org.provider.id };
      // No session yet: the browser is sent to sign in, and comes back here afterwards.
      const first = await cliStart(query);
      expect(first.status).toBe(302);
      const signIn = first.headers.get('location')!;
      const back = `/auth/cli/start?${new URLSearchParams(query)}`;
      expect(signIn).toBe(`/auth/saml/${org.provider.id}/start?return=${encodeURIComponent(back)}`);
      const toIdp = await fetch(`${server.url}${signIn}`, { redirect: 'manual' });
      const relayState = new URL(toIdp.headers.get('location')!).searchParams.get('RelayState')!;
      expect(relayState).toBe(back);
      const acs = await postAcs(org.provider.id, await responseFor(org.provider, 'cli.user@example.com'), relayState);
      expect(acs.status).toBe(303);
      expect(acs.headers.get('location')).toBe(back);

      const withSession = await cliStart(query, sessionToken(acs));
      expect(withSession.status).toBe(302);
      const callback = new URL(withSession.headers.get('location')!);
      expect(`${callback.origin}${callback.pathname}`).toBe(loopback);
      expect(callback.searchParams.get('state')).toBe('st4te');
      const code = callback.searchParams.get('code')!;

      expectError(await exchange({ code, redirectURI: 'http://127.0.0.1:9999/callback' }), 400);
      const issued = await exchange({ code, redirectURI: loopback });
      expect(issued.response.status).toBe(200);
      const { token, organization, user, expiresAt } = issued.data!;
      expect(organization).toBe(org.organizationId);
      expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(29 * 24 * 60 * 60 * 1000);
      const cli = server.client(token);
      expect(await unwrap(cli.GET('/user'))).toMatchObject({ id: user, email: 'cli.user@example.com' });
      expect((await unwrap(cli.GET('/orgs'))).items.map((item) => item.id)).toEqual([org.organizationId]);
      // The code works once.
      expectError(await exchange({ code, redirectURI: loopback }), 400, 'The code is unknown, expired, already used or was issued for another redirectURI');
    });

    it('`quire login` signs the command line in and prints a working token', async () => {
      const org = await organizationWithProvider();
      // Exactly as the README shows it, from the repository's root.
      const root = fileURLToPath(new URL('../../../', import.meta.url));
      const child = spawn('npm', ['run', '-s', 'quire', '--', 'login', '--url', server.url, '--provider', org.provider.id, '--no-browser'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const startUrl = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /^(http:\/\/\S+\/auth\/cli\/start\?\S+)$/m.exec(stderr);
          if (found) resolve(found[1]!);
        });
        child.on('exit', () => reject(new Error(`quire login ended early: ${stderr}`)));
      });
      // The browser's part: start, sign in at the identity provider (a signed response), back to the start,
      // then on to the command line's loopback address.
      const toSignIn = (await fetch(startUrl, { redirect: 'manual' })).headers.get('location')!;
      const toIdp = new URL((await fetch(`${server.url}${toSignIn}`, { redirect: 'manual' })).headers.get('location')!);
      const acs = await postAcs(org.provider.id, await responseFor(org.provider, 'terminal@example.com'), toIdp.searchParams.get('RelayState')!);
      const back = await fetch(`${server.url}${acs.headers.get('location')!}`, { redirect: 'manual', headers: { cookie: `quire_session=${sessionToken(acs)}` } });
      const loopbackAnswer = await fetch(back.headers.get('location')!);
      expect(loopbackAnswer.status).toBe(200);
      const exitCode = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', resolve)));
      expect(exitCode, stderr).toBe(0);
      const printed = JSON.parse(stdout) as { token: string; organization: string; user: string; expiresAt: string };
      // Every field the README says it prints.
      expect(Object.keys(printed).sort()).toEqual(['expiresAt', 'organization', 'token', 'user']);
      expect(printed.organization).toBe(org.organizationId);
      expect(Date.parse(printed.expiresAt)).toBeGreaterThan(Date.now());
      expect((await unwrap(server.client(printed.token).GET('/user'))).id).toBe(printed.user);
      expect((await unwrap(server.client(printed.token).GET('/user'))).email).toBe('terminal@example.com');
    });

    it('refuses redirects that are not loopback addresses, a missing state, and unknown codes', async () => {
      const org = await organizationWithProvider();
      for (const redirect of ['https://evil.example/callback', 'http://127.0.0.1/no-port', 'http://10.0.0.1:8765/cb', 'not a url']) {
        expect((await cliStart({ redirect, state: 's', provider: org.provider.id })).status, redirect).toBe(400);
      }
      expect((await cliStart({ redirect: loopback, provider: org.provider.id })).status).toBe(400);
      expect((await cliStart({ redirect: loopback, state: 's' })).status).toBe(401);
      expect((await cliStart({ redirect: loopback, state: 's', provider: 'unknownProvider' })).status).toBe(400);
      expectError(await exchange({ code: 'made-up', redirectURI: loopback }), 400);
      expectError(await exchange({ code: 'made-up' }), 400);
    });
  });

  describe('metadata', () => {
    it('serves the service provider metadata at its entity id', async () => {
      const org = await organizationWithProvider();
      const response = await fetch(`${server.url}/auth/saml/${org.provider.id}`);
      expect(response.status).toBe(200);
      const xml = await response.text();
      expect(xml).toContain(`entityID="${org.provider.service.entityID}"`);
      expect(xml).toContain(`Location="${org.provider.service.acsURL}"`);
    });
  });
});
