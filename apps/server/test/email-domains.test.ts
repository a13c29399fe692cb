import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { expectError, newMember, newOrg, useTestServer } from './helpers.js';

describeEachDialect('email domains', (dialect) => {
  const server = useTestServer({ dialect });

  const forDomain = (client: QuireClient, emailDomain: string) => client.GET('/email-domains/{emailDomain}/orgs', { params: { path: { emailDomain } } });
  const setDomains = (client: QuireClient, organizationId: string, emailDomains: string[]) =>
    client.PATCH('/orgs/{organizationId}', { params: { path: { organizationId } }, body: { emailDomains } });

  describe('getOrganizationsForEmailDomain', () => {
    it('answers the caller\'s organizations that declare the domain, whatever its case, and never another organization', async () => {
      const org = await newOrg(server, 'Declares');
      const updated = await unwrap(setDomains(org.client, org.organizationId, ['Example.COM', 'example.com', 'docs.example.org']));
      expect(updated.emailDomains).toEqual(['example.com', 'docs.example.org']);
      const other = await newOrg(server, 'Also declares, not shared');
      await unwrap(setDomains(other.client, other.organizationId, ['example.com']));
      await newOrg(server, 'Declares nothing');

      const { organizations } = await unwrap(forDomain(org.client, 'EXAMPLE.com'));
      expect(organizations.map((item) => item.id)).toEqual([org.organizationId]);
      expect(organizations[0]).toMatchObject({ object: 'organization', title: 'Declares', emailDomains: ['example.com', 'docs.example.org'] });
      // A domain that only contains a declared one, or is contained in one, is another domain.
      expect((await unwrap(forDomain(org.client, 'example.org'))).organizations).toEqual([]);
      expect((await unwrap(forDomain(org.client, 'mail.example.com'))).organizations).toEqual([]);

      // Members see their organizations (a guest too); someone outside both sees neither, as for an unknown domain.
      const reader = await newMember(server, org, 'read');
      expect((await unwrap(forDomain(reader.client, 'example.com'))).organizations.map((item) => item.id)).toEqual([org.organizationId]);
      const guest = await newMember(server, org, null);
      expect((await unwrap(forDomain(guest.client, 'example.com'))).organizations.map((item) => item.id)).toEqual([org.organizationId]);
      const outsider = await newOrg(server, 'Outsider');
      expect(await unwrap(forDomain(outsider.client, 'example.com'))).toEqual({ organizations: [] });
      expect(await unwrap(forDomain(outsider.client, 'nobody-declares.example'))).toEqual({ organizations: [] });

      await unwrap(setDomains(org.client, org.organizationId, []));
      expect((await unwrap(forDomain(org.client, 'example.com'))).organizations).toEqual([]);
    });

    it('refuses a malformed domain with 400 and an anonymous caller with 401; a non-admin cannot set domains (403)', async () => {
      const org = await newOrg(server);
      for (const bad of ['localhost', 'a..b', '-example.com', 'exa_mple.com', 'x%2Fy.com']) expectError(await forDomain(org.client, bad), 400);
      expectError(await forDomain(server.client(), 'example.com'), 401);
      expectError(await setDomains(org.client, org.organizationId, ['not a domain']), 400, /emailDomains/);
      const reader = await newMember(server, org, 'read');
      expectError(await setDomains(reader.client, org.organizationId, ['example.com']), 403);
      expect((await unwrap(org.client.GET('/orgs/{organizationId}', { params: { path: { organizationId: org.organizationId } } }))).emailDomains).toEqual([]);
    });
  });
});
