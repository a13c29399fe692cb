import { unwrap, type QuireClient } from '@quire/client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { describeEachDialect } from './dialects.js';
import { expectError, organizationWithPeople, useTestServer } from './helpers.js';
import { makeIdpCredentials, type IdpCredentials } from './saml-fixtures.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describeEachDialect('SAML providers', (dialect) => {
  const server = useTestServer({ dialect });
  let idp: IdpCredentials;
  let expired: IdpCredentials;
  let notYetValid: IdpCredentials;
  beforeAll(async () => {
    idp = await makeIdpCredentials();
    expired = await makeIdpCredentials({ notBefore: new Date(Date.now() - 30 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    notYetValid = await makeIdpCredentials({ notBefore: new Date(Date.now() + DAY_MS), notAfter: new Date(Date.now() + 30 * DAY_MS) });
  });

  const organization = (roles: Record<string, RoleOrGuest> = {}) => organizationWithPeople(server, 'SSO org', roles);
  const orgPath = (organizationId: string) => ({ path: { organizationId } });
  const providerPath = (organizationId: string, samlProviderId: string) => ({ path: { organizationId, samlProviderId } });
  const create = (client: QuireClient, organizationId: string, body: unknown) =>
    client.POST('/orgs/{organizationId}/saml', { params: orgPath(organizationId), body: body as never });
  const get = (client: QuireClient, organizationId: string, id: string) =>
    client.GET('/orgs/{organizationId}/saml/{samlProviderId}', { params: providerPath(organizationId, id) });
  const update = (client: QuireClient, organizationId: string, id: string, body: unknown) =>
    client.PATCH('/orgs/{organizationId}/saml/{samlProviderId}', { params: providerPath(organizationId, id), body: body as never });
  const remove = (client: QuireClient, organizationId: string, id: string) =>
    client.DELETE('/orgs/{organizationId}/saml/{samlProviderId}', { params: providerPath(organizationId, id) });
  const list = (client: QuireClient, organizationId: string, query: { page?: string; limit?: number } = {}) =>
    client.GET('/orgs/{organizationId}/saml', { params: { ...orgPath(organizationId), query } });
  const logins = (client: QuireClient, organizationId: string) => client.GET('/orgs/{organizationId}/sso', { params: orgPath(organizationId) });
  const SSO_URL = 'https://idp.example.com/sso';
  const complete = () => ({ entityID: 'https://idp.example.com/metadata', ssoURL: 'https://idp.example.com/sso', certificate: idp.certificate });

  describe('createOrganizationSAMLProvider', () => {
    it('creates a complete provider as active, with the service URLs under the public URL (201)', async () => {
      const org = await organization();
      const team = await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams', { params: orgPath(org.organizationId), body: { title: 'Joiners' } }));
      const result = await create(org.admin.client, org.organizationId, { label: ' Okta ', ...complete(), defaultTeam: team.id, defaultRole: 'edit' });
      expect(result.response.status).toBe(201);
      const provider = result.data!;
      expect(provider).toMatchObject({
        object: 'saml-provider', label: 'Okta', status: 'active', entityID: 'https://idp.example.com/metadata', ssoURL: 'https://idp.example.com/sso',
        defaultRole: 'edit', defaultTeam: { object: 'team', id: team.id, title: 'Joiners' },
      });
      expect(provider.certificate).toContain('-----BEGIN CERTIFICATE-----');
      // The service URLs are under the installation's public URL, the origin of every `urls.location`.
      const publicUrl = provider.urls.location.slice(0, provider.urls.location.indexOf('/v1/'));
      expect(provider.urls.location).toBe(`${publicUrl}/v1/orgs/${org.organizationId}/saml/${provider.id}`);
      const base = `${publicUrl}/auth/saml/${provider.id}`;
      expect(provider.service).toEqual({ acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: base });
      expect(await unwrap(get(org.admin.client, org.organizationId, provider.id))).toEqual(provider);
    });

    it('creates a pending provider from a label and an SSO URL; its unset fields are empty, its role the organization default', async () => {
      const org = await organization();
      const provider = await unwrap(create(org.admin.client, org.organizationId, { label: 'Later', ssoURL: SSO_URL }));
      expect(provider).toMatchObject({ status: 'pending', ssoURL: 'https://idp.example.com/sso', entityID: '', certificate: '' });
      expect(provider.defaultTeam).toBeUndefined();
      const organizationDefault = (await unwrap(org.admin.client.GET('/orgs/{organizationId}', { params: orgPath(org.organizationId) }))).defaultRole;
      expect(provider.defaultRole).toBe(organizationDefault ?? null);
      const guests = await unwrap(create(org.admin.client, org.organizationId, { label: 'Guests', ssoURL: SSO_URL, defaultRole: null }));
      expect(guests.defaultRole).toBeNull();
    });

    it('refuses a provider without an SSO URL (400, nothing created): every provider answers its ssoURL as a URI, as the public shape requires', async () => {
      const org = await organization();
      expectError(await create(org.admin.client, org.organizationId, { label: 'Unconfigured' }), 400, /ssoURL/);
      expectError(await create(org.admin.client, org.organizationId, { label: 'Unconfigured', entityID: 'urn:idp', certificate: idp.certificate }), 400, /ssoURL/);
      expectError(await create(org.admin.client, org.organizationId, { label: 'Empty', ssoURL: '' }), 400, /ssoURL/);
      expect((await unwrap(list(org.admin.client, org.organizationId))).items).toEqual([]);
    });

    it('accepts a certificate as bare base64 DER', async () => {
      const org = await organization();
      const base64 = idp.certificate.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
      const provider = await unwrap(create(org.admin.client, org.organizationId, { ssoURL: SSO_URL, label: 'B64', certificate: base64 }));
      expect(provider.certificate.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '')).toBe(base64);
    });

    it('validates every field: 400 with the reason, nothing created', async () => {
      const org = await organization();
      const other = await organization();
      const otherTeam = await unwrap(other.admin.client.PUT('/orgs/{organizationId}/teams', { params: orgPath(other.organizationId), body: { title: 'Theirs' } }));
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^body\.label/],
        [{ ssoURL: SSO_URL, label: '' }, /^body\.label/],
        [{ ssoURL: SSO_URL, label: 'x'.repeat(31) }, /^body\.label/],
        [{ ssoURL: SSO_URL, label: '   ' }, /^body\.label must not be blank/],
        [{ ssoURL: SSO_URL, label: 'L', entityID: 'e'.repeat(1025) }, /^body\.entityID/],
        [{ label: 'L', ssoURL: 'not a url' }, /^body\.ssoURL/],
        [{ label: 'L', ssoURL: 'javascript:alert(1)' }, /^body\.ssoURL must be an http\(s\) URL/],
        [{ label: 'L', ssoURL: `https://idp.example.com/${'p'.repeat(2048)}` }, /^body\.ssoURL/],
        [{ ssoURL: SSO_URL, label: 'L', certificate: 'c'.repeat(10001) }, /^body\.certificate/],
        [{ ssoURL: SSO_URL, label: 'L', certificate: 'not a certificate!' }, /^body\.certificate is neither PEM nor base64/],
        [{ ssoURL: SSO_URL, label: 'L', certificate: 'QUJD' }, /^body\.certificate does not parse as an X\.509 certificate/],
        [{ ssoURL: SSO_URL, label: 'L', certificate: '-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----' }, /^body\.certificate does not parse as an X\.509 certificate/],
        [{ ssoURL: SSO_URL, label: 'L', certificate: '-----BEGIN PRIVATE KEY-----\nQUJD\n-----END PRIVATE KEY-----' }, /^body\.certificate is not a PEM certificate/],
        [{ ssoURL: SSO_URL, label: 'L', certificate: expired.certificate }, /^body\.certificate expired on \d{4}-/],
        [{ ssoURL: SSO_URL, label: 'L', certificate: notYetValid.certificate }, /^body\.certificate is not valid before \d{4}-/],
        [{ ssoURL: SSO_URL, label: 'L', defaultTeam: otherTeam.id }, /^body\.defaultTeam ".*" is not a team of the organization/],
        [{ ssoURL: SSO_URL, label: 'L', defaultRole: 'owner' }, /^body\.defaultRole/],
        [{ ssoURL: SSO_URL, label: 'L', colour: 'red' }, /^body\.colour is not allowed/],
      ];
      for (const [body, message] of cases) expectError(await create(org.admin.client, org.organizationId, body), 400, message);
      expect((await unwrap(list(org.admin.client, org.organizationId))).items).toEqual([]);
    });

    it('answers 403 below admin, 404 to another organization, 401 without a token', async () => {
      const org = await organization({ creator: 'create', guest: null });
      const other = await organization();
      expectError(await create(org.people.creator!.client, org.organizationId, { ssoURL: SSO_URL, label: 'No' }), 403);
      expectError(await create(org.people.guest!.client, org.organizationId, { ssoURL: SSO_URL, label: 'No' }), 403);
      expectError(await create(other.admin.client, org.organizationId, { ssoURL: SSO_URL, label: 'No' }), 404);
      expectError(await create(server.client(), org.organizationId, { ssoURL: SSO_URL, label: 'No' }), 401);
      expect((await unwrap(list(org.admin.client, org.organizationId))).items).toEqual([]);
    });
  });

  describe('getOrganizationSAMLProviderById', () => {
    it('answers 404 for an unknown id and for another organization\'s provider, 403 below admin', async () => {
      const org = await organization({ editor: 'edit' });
      const other = await organization();
      const provider = await unwrap(create(org.admin.client, org.organizationId, { ssoURL: SSO_URL, label: 'Mine' }));
      expectError(await get(org.admin.client, org.organizationId, 'missing'), 404);
      expectError(await get(other.admin.client, other.organizationId, provider.id), 404);
      expectError(await get(other.admin.client, org.organizationId, provider.id), 404);
      expectError(await get(org.people.editor!.client, org.organizationId, provider.id), 403);
    });
  });

  describe('updateOrganizationSAMLProvider', () => {
    it('changes the given fields, becomes active once complete, and clears entityID and certificate with ""', async () => {
      const org = await organization();
      const team = await unwrap(org.admin.client.PUT('/orgs/{organizationId}/teams', { params: orgPath(org.organizationId), body: { title: 'SSO people' } }));
      const provider = await unwrap(create(org.admin.client, org.organizationId, { ssoURL: SSO_URL, label: 'Step by step' }));
      const first = await unwrap(update(org.admin.client, org.organizationId, provider.id, { ssoURL: 'https://idp.example.com/sso', entityID: 'urn:idp' }));
      expect(first).toMatchObject({ label: 'Step by step', status: 'pending', ssoURL: 'https://idp.example.com/sso', entityID: 'urn:idp', certificate: '' });
      const second = await unwrap(update(org.admin.client, org.organizationId, provider.id, { certificate: idp.certificate, label: 'Renamed', defaultTeam: team.id, defaultRole: 'read' }));
      expect(second).toMatchObject({ label: 'Renamed', status: 'active', defaultRole: 'read', defaultTeam: { id: team.id } });
      expect(second.createdAt).toBe(provider.createdAt);
      const cleared = await unwrap(update(org.admin.client, org.organizationId, provider.id, { certificate: '' }));
      expect(cleared).toMatchObject({ status: 'pending', certificate: '' });
      expect(await unwrap(get(org.admin.client, org.organizationId, provider.id))).toEqual(cleared);
    });

    it('validates like create and changes nothing on failure; 404 unknown, 403 below admin', async () => {
      const org = await organization({ creator: 'create' });
      const provider = await unwrap(create(org.admin.client, org.organizationId, { label: 'Keep', ...complete() }));
      for (const body of [{}, { label: '' }, { ssoURL: 'ftp://idp.example.com/' }, { certificate: expired.certificate }, { defaultTeam: 'nope' }, { label: 'ok', certificate: 'garbage!' }]) {
        expectError(await update(org.admin.client, org.organizationId, provider.id, body), 400);
      }
      expect(await unwrap(get(org.admin.client, org.organizationId, provider.id))).toEqual(provider);
      expectError(await update(org.admin.client, org.organizationId, 'missing', { label: 'x' }), 404);
      expectError(await update(org.people.creator!.client, org.organizationId, provider.id, { label: 'x' }), 403);
    });
  });

  describe('deleteOrganizationSAMLProvider', () => {
    it('deletes (204), also when absent; 403 below admin and 404 to another organization change nothing', async () => {
      const org = await organization({ creator: 'create' });
      const other = await organization();
      const provider = await unwrap(create(org.admin.client, org.organizationId, { ssoURL: SSO_URL, label: 'Gone soon' }));
      expect((await remove(org.people.creator!.client, org.organizationId, provider.id)).response.status).toBe(403);
      expect((await remove(other.admin.client, org.organizationId, provider.id)).response.status).toBe(404);
      expect((await remove(other.admin.client, other.organizationId, provider.id)).response.status).toBe(204);
      expect((await unwrap(get(org.admin.client, org.organizationId, provider.id))).id).toBe(provider.id);
      expect((await remove(org.admin.client, org.organizationId, provider.id)).response.status).toBe(204);
      expectError(await get(org.admin.client, org.organizationId, provider.id), 404);
      expect((await remove(org.admin.client, org.organizationId, provider.id)).response.status).toBe(204);
    });
  });

  describe('listSAMLProvidersInOrganizationById', () => {
    it('lists the providers in creation order, page by page; admins only', async () => {
      const org = await organization({ editor: 'edit' });
      const other = await organization();
      const created = [];
      for (const label of ['One', 'Two', 'Three']) created.push(await unwrap(create(org.admin.client, org.organizationId, { label, ssoURL: SSO_URL })));
      await unwrap(create(other.admin.client, other.organizationId, { ssoURL: SSO_URL, label: 'Theirs' }));
      const all = await unwrap(list(org.admin.client, org.organizationId));
      expect(all.count).toBe(3);
      expect(all.items.map((item) => item.label)).toEqual(['One', 'Two', 'Three']);
      const first = await unwrap(list(org.admin.client, org.organizationId, { limit: 2 }));
      expect(first.items.map((item) => item.id)).toEqual([created[0]!.id, created[1]!.id]);
      const second = await unwrap(list(org.admin.client, org.organizationId, { limit: 2, page: first.next!.page }));
      expect(second.items.map((item) => item.id)).toEqual([created[2]!.id]);
      expect(second.next).toBeUndefined();
      expectError(await list(org.people.editor!.client, org.organizationId), 403);
      expectError(await list(other.admin.client, org.organizationId), 404);
    });
  });

  describe('listSSOProviderLoginsInOrganization', () => {
    it('lists active providers only, to any member; 404 to another organization', async () => {
      const org = await organization({ reader: 'read', guest: null });
      const other = await organization();
      const active = await unwrap(create(org.admin.client, org.organizationId, { label: 'Active', ...complete() }));
      await unwrap(create(org.admin.client, org.organizationId, { label: 'Pending', ssoURL: 'https://idp.example.com/sso' }));
      const expected = { items: [{ id: active.id, label: 'Active', startURL: active.service.startURL }] };
      expect(await unwrap(logins(org.people.reader!.client, org.organizationId))).toEqual(expected);
      expect(await unwrap(logins(org.people.guest!.client, org.organizationId))).toEqual(expected);
      expectError(await logins(other.admin.client, org.organizationId), 404);
      expect(await unwrap(logins(other.admin.client, other.organizationId))).toEqual({ items: [] });
    });
  });
});
