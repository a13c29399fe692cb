import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
// The package's index.d.ts imports './client' without an extension, which NodeNext resolution does not follow;
// its client class is typed from the file itself (a type-only import, erased at run time).
import type { Api, SiteVisibility } from '../../../node_modules/@gitbook/api/dist/client.js';
import { expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createSpace, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * Acceptance by the public API's official client (@gitbook/api 0.146.0, the release with every operation of
 * the interface document): sites, site spaces, section groups and share links called unchanged against Quire.
 */
describeEachDialect('docs sites through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });

  it('creates, publishes, structures and shares a site with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client org');
    const org = { organizationId, client: admin.client };
    const guides = await createSpace(org, { title: 'Guides' });
    const reference = await createSpace(org, { title: 'Reference' });
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;

    const { data: site } = await api.orgs.createSite(organizationId, { title: 'Docs', visibility: 'share-link' as SiteVisibility, spaces: [guides.id] });
    expect(site).toMatchObject({ object: 'site', title: 'Docs', siteSpaces: 1, published: false });
    expect((await api.orgs.listSites(organizationId, { published: false })).data.items.map((item) => item.id)).toEqual([site.id]);
    expect((await api.orgs.getSiteById(organizationId, site.id)).data.id).toBe(site.id);
    expect((await api.orgs.updateSiteById(organizationId, site.id, { title: 'Handbook', basename: 'handbook' })).data.title).toBe('Handbook');
    const published = await api.orgs.publishSite(organizationId, site.id);
    expect(published.data).toMatchObject({ published: true });

    const { data: added } = await api.orgs.addSpaceToSite(organizationId, site.id, { spaceId: reference.id });
    expect(added).toMatchObject({ object: 'site-space', default: false });
    const listed = await api.orgs.listSiteSpaces(organizationId, site.id);
    expect(listed.data.items.map((item) => item.space.id)).toEqual([guides.id, reference.id]);
    await api.orgs.moveSiteSpace(organizationId, site.id, added.id, { position: { before: { type: 'site-space', siteSpace: listed.data.items[0]!.id } } });
    expect((await api.orgs.listSiteSpaces(organizationId, site.id)).data.items.map((item) => item.space.id)).toEqual([reference.id, guides.id]);
    expect((await api.orgs.updateSiteSpaceById(organizationId, site.id, added.id, { path: 'api', condition: 'visitor.claims.unsigned.beta' })).data.path).toBe('api');

    const { data: group } = await api.orgs.addSectionGroupToSite(organizationId, site.id, { title: 'Products' });
    expect(group).toMatchObject({ object: 'site-section-group', title: 'Products', children: [] });
    expect((await api.orgs.listSiteSectionGroups(organizationId, site.id)).data.items.map((item) => item.id)).toEqual([group.id]);
    expect((await api.orgs.updateSiteSectionGroupById(organizationId, site.id, group.id, { title: 'All products' })).data.title).toBe('All products');

    const { data: link } = await api.orgs.createSiteShareLink(organizationId, site.id, { name: 'Partner' });
    expect(link.urls.published).toMatch(/\?shareKey=/);
    expect((await api.orgs.listSiteShareLinks(organizationId, site.id)).data.items).toHaveLength(1);
    expect((await api.orgs.updateSiteShareLinkById(organizationId, site.id, link.id, { active: false })).data.active).toBe(false);
    await api.orgs.deleteSiteShareLinkById(organizationId, site.id, link.id);

    const content = await api.orgs.getPublishedContentSite(organizationId, site.id);
    expect(content.data.object).toBe('published-content-site');

    await api.orgs.deleteSiteSpaceById(organizationId, site.id, added.id);
    await api.orgs.deleteSiteSectionGroupById(organizationId, site.id, group.id);
    await api.orgs.deleteSiteById(organizationId, site.id);
    const missing = await api.orgs.getSiteById(organizationId, site.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(GitBookAPIError);
    expect((missing as GitBookAPIError).code).toBe(404);
  });

  it('reads, writes back and overrides site customizations with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client customizations');
    const guides = await createSpace({ organizationId, client: admin.client }, { title: 'Guides' });
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: site } = await api.orgs.createSite(organizationId, { title: 'Docs', spaces: [guides.id] });
    const siteSpace = (await api.orgs.listSiteSpaces(organizationId, site.id)).data.items[0]!;

    // What a client of the public API does: read the complete settings, change some, put them all back.
    const { data: settings } = await api.orgs.getSiteCustomizationById(organizationId, site.id);
    settings.title = 'Handbook';
    settings.header.links = [{ title: 'Home', to: { kind: 'url', url: 'https://example.com' }, links: [] }];
    const { data: written } = await api.orgs.updateSiteCustomizationById(organizationId, site.id, settings);
    expect(written).toMatchObject({ title: 'Handbook', header: { links: [{ title: 'Home', to: { kind: 'url', url: 'https://example.com' }, links: [] }] } });

    const { data: overridden } = await api.orgs.overrideSiteSpaceCustomizationById(organizationId, site.id, siteSpace.id, { title: 'Guides only' });
    expect(overridden).toMatchObject({ title: 'Guides only', header: { links: [{ title: 'Home' }] } });
    await api.orgs.deleteSiteSpaceCustomizationById(organizationId, site.id, siteSpace.id);
    expect((await api.orgs.getSiteSpaceCustomizationById(organizationId, site.id, siteSpace.id)).data.title).toBe('Handbook');
  });
});
