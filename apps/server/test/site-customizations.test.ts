import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createCollection, createSpace, expectError, newMember, newOrg, organizationWithPeople, useTestServer } from './helpers.js';

describeEachDialect('site customizations', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  /** An organization with an admin and a reader, a site publishing two spaces (one with a page), another organization. */
  async function world() {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Customized org', { reader: 'read' });
    const org = { organizationId, client: admin.client, token: '' };
    const spaceA = await createSpace(org, { title: 'Guides' });
    const spaceB = await createSpace(org, { title: 'API' });
    const collection = await createCollection(org, { title: 'Products' });
    const update = await f.editMain(org as never, spaceA.id, [{ operation: 'insert_page', title: 'Start', document: md('Hello.'), ref: 'start' }]);
    const pageId = f.pageOf(update, 'start');
    const site = await unwrap(admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Docs', spaces: [spaceA.id, spaceB.id] } }));
    const listed = await unwrap(admin.client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: { path: { organizationId, siteId: site.id } } }));
    const [siteSpaceA, siteSpaceB] = listed.items;
    const other = await newOrg(server, 'Other org');
    const foreignSpace = await createSpace(other, { title: 'Foreign' });
    return { organizationId, admin: admin.client, reader: people.reader!.client, spaceA, spaceB, collection, pageId, site, siteSpaceA: siteSpaceA!, siteSpaceB: siteSpaceB!, other, foreignSpace };
  }

  const sitePath = (organizationId: string, siteId: string) => ({ path: { organizationId, siteId } });
  const siteSpacePath = (organizationId: string, siteId: string, siteSpaceId: string) => ({ path: { organizationId, siteId, siteSpaceId } });
  const getSite = (client: QuireClient, organizationId: string, siteId: string) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/customization', { params: sitePath(organizationId, siteId) });
  const putSite = (client: QuireClient, organizationId: string, siteId: string, body: Record<string, unknown>) =>
    client.PUT('/orgs/{organizationId}/sites/{siteId}/customization', { params: sitePath(organizationId, siteId), body: body as never });
  const getSiteSpace = (client: QuireClient, organizationId: string, siteId: string, siteSpaceId: string) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', { params: siteSpacePath(organizationId, siteId, siteSpaceId) });
  const patchSiteSpace = (client: QuireClient, organizationId: string, siteId: string, siteSpaceId: string, body: Record<string, unknown>) =>
    client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', { params: siteSpacePath(organizationId, siteId, siteSpaceId), body: body as never });
  const deleteSiteSpace = (client: QuireClient, organizationId: string, siteId: string, siteSpaceId: string) =>
    client.DELETE('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', { params: siteSpacePath(organizationId, siteId, siteSpaceId) });
  const published = (client: QuireClient, organizationId: string, siteId: string) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: sitePath(organizationId, siteId) });

  /** What the reader app renders: title, logo, favicon, colours, header and footer links, announcement, themes. */
  const branded = (w: Awaited<ReturnType<typeof world>>) => ({
    title: 'Acme Docs',
    styling: { primaryColor: { light: '#112233', dark: '#445566' }, theme: 'bold' },
    favicon: { icon: { light: 'https://cdn.example.com/fav.png', dark: 'https://cdn.example.com/fav-dark.png' } },
    header: {
      logo: { light: 'https://cdn.example.com/logo.svg', dark: 'https://cdn.example.com/logo-dark.svg' },
      links: [
        { title: 'Home', to: { kind: 'url', url: 'https://acme.example.com' }, style: 'button-primary' },
        { title: 'Start', to: { kind: 'page', page: w.pageId, space: w.spaceA.id }, condition: 'visitor.claims.unsigned.beta' },
        { title: 'More', links: [{ title: 'API', to: { kind: 'space', space: w.spaceB.id } }, { title: 'All', to: { kind: 'collection', collection: w.collection.id } }] },
      ],
    },
    footer: { groups: [{ title: 'Company', links: [{ title: 'About', to: { kind: 'url', url: 'https://acme.example.com/about' } }] }], copyright: '© Acme' },
    announcement: { enabled: true, message: 'Version 2 is out', style: 'success', link: { title: 'Read', to: { kind: 'page', page: w.pageId, space: w.spaceA.id } } },
    themes: { default: 'dark', toggeable: false },
  });

  describe('getSiteCustomizationById', () => {
    it('answers every key, defaults filled in, to members; 404 to other organizations', async () => {
      const w = await world();
      const settings = await unwrap(getSite(w.reader, w.organizationId, w.site.id));
      expect(settings).toMatchObject({ styling: { theme: 'clean', font: 'Inter' }, themes: { default: 'light', toggeable: true }, header: { preset: 'default', links: [] }, footer: { groups: [] }, favicon: {}, internationalization: { locale: 'en' } });
      expect(settings.title).toBeUndefined();
      expectError(await getSite(w.other.client, w.organizationId, w.site.id), 404);
      expectError(await getSite(w.admin, w.organizationId, 'noSuchSite'), 404);
    });
  });

  describe('updateSiteCustomizationById', () => {
    it('stores what admins set, answers it with the defaults, and replaces it as a whole on the next PUT', async () => {
      const w = await world();
      const answer = await unwrap(putSite(w.admin, w.organizationId, w.site.id, branded(w)));
      expect(answer).toMatchObject({ title: 'Acme Docs', styling: { theme: 'bold', primaryColor: { light: '#112233', dark: '#445566' }, font: 'Inter' }, themes: { default: 'dark', toggeable: false } });
      expect(answer.header!.links![2]).toEqual({ title: 'More', to: null, links: [{ title: 'API', to: { kind: 'space', space: w.spaceB.id } }, { title: 'All', to: { kind: 'collection', collection: w.collection.id } }] });
      expect(await unwrap(getSite(w.reader, w.organizationId, w.site.id))).toEqual(answer);
      const replaced = await unwrap(putSite(w.admin, w.organizationId, w.site.id, { pdf: { enabled: false } }));
      expect(replaced.title).toBeUndefined();
      expect(replaced).toMatchObject({ pdf: { enabled: false }, styling: { theme: 'clean' }, header: { links: [] } });
    });

    it('refuses bad values and links or conditions that lead nowhere (400, nothing changed); 403 below admin; 404 elsewhere', async () => {
      const w = await world();
      await unwrap(putSite(w.admin, w.organizationId, w.site.id, { title: 'Kept' }));
      const url = (url: string) => ({ header: { links: [{ title: 'X', to: { kind: 'url', url } }] } });
      const refused: Array<[Record<string, unknown>, RegExp?]> = [
        [{ title: 'x' }],
        [{ title: 'x'.repeat(129) }],
        [{ styling: { primaryColor: { light: 'red', dark: '#000' } } }],
        [{ styling: { primaryColor: { light: '#000' } } }],
        [{ styling: { theme: 'neon' } }],
        [{ styling: { font: 'ComicSans' } }],
        [{ favicon: { icon: { light: 'not a url', dark: 'https://x.example.com/a.png' } } }],
        [{ themes: { default: 'sepia' } }],
        [{ announcement: { enabled: true, message: 'x', style: 'info' } }],
        [{ announcement: { enabled: true, message: 'Hello' } }],
        [{ footer: { copyright: 'c'.repeat(301) } }],
        [{ ai: { mode: 'oracle' } }],
        [{ unknownKey: true }],
        [url('nota url')],
        [{ header: { links: [{ title: 'X', to: { kind: 'page', page: 'missing', space: w.spaceA.id } }] } }, /body\.header\.links\[0\]\.to\.page/],
        [{ header: { links: [{ title: 'X', to: { kind: 'space', space: w.foreignSpace.id } }] } }, /body\.header\.links\[0\]\.to\.space/],
        [{ footer: { groups: [{ title: 'G', links: [{ title: 'C', to: { kind: 'collection', collection: 'nope' } }] }] } }, /body\.footer\.groups\[0\]\.links\[0\]\.to/],
        [{ header: { links: [{ title: 'X', condition: 'visitor.claims.unsigned.beta &&' }] } }, /body\.header\.links\[0\]\.condition/],
        [{ header: { links: [{ title: 'X', condition: 'process.exit()' }] } }, /condition/],
      ];
      for (const [body, message] of refused) expectError(await putSite(w.admin, w.organizationId, w.site.id, body), 400, message);
      expect((await unwrap(getSite(w.admin, w.organizationId, w.site.id))).title).toBe('Kept');
      expectError(await putSite(w.reader, w.organizationId, w.site.id, { title: 'Mine' }), 403);
      expectError(await putSite(w.other.client, w.organizationId, w.site.id, { title: 'Mine' }), 404);
      expect((await unwrap(getSite(w.admin, w.organizationId, w.site.id))).title).toBe('Kept');
    });

    it('lets header conditions read only the claims of the site adaptive schema once it has one', async () => {
      const w = await world();
      const jsonSchema = { type: 'object', properties: { unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', properties: { beta: { type: 'boolean', description: 'Beta tester' } }, additionalProperties: false } }, additionalProperties: false };
      await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { params: sitePath(w.organizationId, w.site.id), body: { jsonSchema } as never }));
      expectError(await putSite(w.admin, w.organizationId, w.site.id, { header: { links: [{ title: 'X', condition: 'visitor.claims.unsigned.alpha' }] } }), 400, /does not declare/);
      await unwrap(putSite(w.admin, w.organizationId, w.site.id, { header: { links: [{ title: 'X', condition: 'visitor.claims.unsigned.beta' }] } }));
    });
  });

  describe('getSiteSpaceCustomizationById', () => {
    it('answers 404, exactly as for a missing one, to a guest or a member who cannot see the site space\'s space', async () => {
      const w = await world();
      const guest = await newMember(server, w, null);
      await unwrap(w.admin.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: w.spaceB.id } }, body: { defaultLevel: null } }));
      const missing = await getSiteSpace(w.admin, w.organizationId, w.site.id, 'noSuchSiteSpace');
      expectError(missing, 404);
      const message = (missing.error as { error: { message: string } }).error.message;
      expectError(await getSiteSpace(guest.client, w.organizationId, w.site.id, w.siteSpaceA.id), 404, message);
      expectError(await getSiteSpace(w.reader, w.organizationId, w.site.id, w.siteSpaceB.id), 404, message);
      await unwrap(getSiteSpace(w.reader, w.organizationId, w.site.id, w.siteSpaceA.id));
      await unwrap(getSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceB.id));
    });

    it("answers the site's settings merged with the site space's overrides; 404 for a site space of another site", async () => {
      const w = await world();
      await unwrap(putSite(w.admin, w.organizationId, w.site.id, branded(w)));
      await unwrap(patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceB.id, { styling: { primaryColor: { light: '#ABCDEF', dark: '#FEDCBA' } }, title: 'API docs' }));
      expect(w.siteSpaceB.hasAdvancedCustomizationFeature).toBe(true);
      const b = await unwrap(getSiteSpace(w.reader, w.organizationId, w.site.id, w.siteSpaceB.id));
      expect(b).toMatchObject({ title: 'API docs', styling: { theme: 'bold', primaryColor: { light: '#ABCDEF', dark: '#FEDCBA' } }, themes: { default: 'dark' }, announcement: { message: 'Version 2 is out' } });
      const a = await unwrap(getSiteSpace(w.reader, w.organizationId, w.site.id, w.siteSpaceA.id));
      expect(a).toEqual(await unwrap(getSite(w.reader, w.organizationId, w.site.id)));
      expectError(await getSiteSpace(w.admin, w.organizationId, w.site.id, 'noSuchSiteSpace'), 404);
      expectError(await getSiteSpace(w.other.client, w.organizationId, w.site.id, w.siteSpaceA.id), 404);
    });
  });

  describe('overrideSiteSpaceCustomizationById', () => {
    it('replaces given keys, removes those set to null, keeps absent ones', async () => {
      const w = await world();
      await unwrap(putSite(w.admin, w.organizationId, w.site.id, { title: 'Site title', pdf: { enabled: true } }));
      const first = await unwrap(patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id, { title: 'Space title', pdf: { enabled: false } }));
      expect(first).toMatchObject({ title: 'Space title', pdf: { enabled: false } });
      const second = await unwrap(patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id, { title: null }));
      expect(second).toMatchObject({ title: 'Site title', pdf: { enabled: false } });
    });

    it('refuses bad overrides (400, nothing changed), 403 below admin, 404 for unknown site spaces', async () => {
      const w = await world();
      await unwrap(patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id, { title: 'Space title' }));
      expectError(await patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id, { title: 'Other', styling: { depth: 'deep' } }), 400);
      expectError(await patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id, { title: 'Other', announcement: { enabled: true, message: 'Hi there', style: 'info', link: { title: 'L', to: { kind: 'page', page: 'nope', space: w.spaceA.id } } } }), 400, /announcement\.link\.to\.page/);
      expectError(await patchSiteSpace(w.reader, w.organizationId, w.site.id, w.siteSpaceA.id, { title: 'Other' }), 403);
      expectError(await patchSiteSpace(w.admin, w.organizationId, w.site.id, 'noSuchSiteSpace', { title: 'Other' }), 404);
      expectError(await patchSiteSpace(w.other.client, w.organizationId, w.site.id, w.siteSpaceA.id, { title: 'Other' }), 404);
      expect((await unwrap(getSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id))).title).toBe('Space title');
    });
  });

  describe('deleteSiteSpaceCustomizationById', () => {
    it('removes every override (204, also when there were none); 403 below admin', async () => {
      const w = await world();
      await unwrap(patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id, { title: 'Space title' }));
      expectError(await deleteSiteSpace(w.reader, w.organizationId, w.site.id, w.siteSpaceA.id), 403);
      expect((await deleteSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id)).response.status).toBe(204);
      expect((await deleteSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id)).response.status).toBe(204);
      expect((await unwrap(getSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceA.id))).title).toBeUndefined();
      expectError(await deleteSiteSpace(w.admin, w.organizationId, w.site.id, 'noSuchSiteSpace'), 404);
    });
  });

  describe('getPublishedContentSite customizations', () => {
    it('answers the site settings and each site space complete settings, with what the reader renders', async () => {
      const w = await world();
      await unwrap(putSite(w.admin, w.organizationId, w.site.id, branded(w)));
      await unwrap(patchSiteSpace(w.admin, w.organizationId, w.site.id, w.siteSpaceB.id, { themes: { default: 'light', toggeable: true } }));
      await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath(w.organizationId, w.site.id) }));
      const outsider = await newOrg(server, 'Readers');
      const content = await unwrap(published(outsider.client, w.organizationId, w.site.id));
      const site = content.customizations.site;
      expect(site).toMatchObject({ title: 'Acme Docs', favicon: branded(w).favicon, header: { logo: branded(w).header.logo }, footer: branded(w).footer, announcement: { enabled: true, style: 'success' }, themes: { default: 'dark', toggeable: false } });
      expect(site.header!.links!.map((link) => link.title)).toEqual(['Home', 'Start', 'More']);
      expect(content.customizations.siteSpaces[w.siteSpaceA.id]).toEqual(site);
      expect(content.customizations.siteSpaces[w.siteSpaceB.id]).toEqual({ ...site, themes: { default: 'light', toggeable: true } });
    });
  });

  describe('getSiteById features', () => {
    it('lists the premium features the site uses, on its own type, never frozen (a self-hosted install sells no plans)', async () => {
      const w = await world();
      const get = async () => unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(w.organizationId, w.site.id) }));
      expect((await get()).features).toEqual([]);
      await unwrap(putSite(w.admin, w.organizationId, w.site.id, { styling: { font: 'Roboto', infoColor: { light: '#000', dark: '#fff' } }, footer: { copyright: '© Acme' }, header: { logo: { light: 'https://cdn.example.com/l.svg', dark: 'https://cdn.example.com/d.svg' } } }));
      await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(w.organizationId, w.site.id), body: { visibility: 'share-link', adaptiveContent: { enabled: true } } as never }));
      expect((await get()).features).toEqual([
        { id: 'sites-adaptive-content', plan: 'basic', frozen: false },
        { id: 'sites-advanced-customization', plan: 'basic', frozen: false, customizations: ['header-logo', 'premium-fonts', 'footer-copyright', 'semantic-colors'] },
        { id: 'sites-share-links', plan: 'basic', frozen: false },
      ]);
      await unwrap(putSite(w.admin, w.organizationId, w.site.id, { pdf: { enabled: false } }));
      expect((await get()).features.map((feature) => feature.id)).toEqual(['sites-adaptive-content', 'sites-share-links']);
    });
  });

  describe('getPublishedContentSite scripts', () => {
    it('answers no scripts: integrations, even with the site:script:inject scope, are never installed on a site', async () => {
      const w = await world();
      const name = `analytics-${Date.now()}`;
      await unwrap(w.admin.POST('/integrations/{integrationName}', { params: { path: { integrationName: name } }, body: { organization: w.organizationId, title: 'Analytics', description: 'Counts readers', scopes: ['site:script:inject'], script: 'export default {}' } as never }));
      expect((await unwrap(published(w.reader, w.organizationId, w.site.id))).scripts).toEqual([]);
    });
  });
});
