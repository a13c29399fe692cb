import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { unwrap } from '@quire/client';
// The package's index.d.ts imports './client' without an extension, which NodeNext resolution does not follow;
// its client class is typed from the file itself (a type-only import, erased at run time).
import type { Api, SiteVisibility } from '../../../node_modules/@gitbook/api/dist/client.js';
import { expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { contentFixtures, md } from './content-fixtures.js';
import { createCollection, createSpace, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * Acceptance by the public API's official client (@gitbook/api 0.146.0, the release with every operation of
 * the interface document): sites, site spaces, section groups, share links, redirects and embeds, the reads
 * of revisions, their changes, pages by path, documents and reusable contents, the content permissions (users,
 * teams, aggregates, removals) and users, called unchanged against Quire.
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
    expect((await api.urls.resolvePublishedContentByUrl({ url: link.urls.published! })).data).toMatchObject({ site: site.id, siteSpace: listed.data.items[0]!.id });
    expect((await api.orgs.listSiteShareLinks(organizationId, site.id)).data.items).toHaveLength(1);
    expect((await api.orgs.updateSiteShareLinkById(organizationId, site.id, link.id, { active: false })).data.active).toBe(false);
    await api.orgs.deleteSiteShareLinkById(organizationId, site.id, link.id);

    const { data: redirect } = await api.orgs.createSiteRedirect(organizationId, site.id, { source: '/old-api', destination: { kind: 'site-space', siteSpaceId: added.id } });
    expect(redirect).toMatchObject({ object: 'site-redirect', source: '/old-api', destination: { kind: 'site-space', siteSpaceId: added.id } });
    expect((await api.orgs.listSiteRedirects(organizationId, site.id, { search: 'old' })).data.items.map((item) => item.id)).toEqual([redirect.id]);
    const { data: resolved } = await api.orgs.getSiteRedirectBySource(organizationId, site.id, { source: '/old-api' });
    expect(resolved.target).toMatch(/\/sites\/handbook\/api$/);
    expect((await api.orgs.updateSiteRedirectById(organizationId, site.id, redirect.id, { source: '/older-api' })).data.source).toBe('/older-api');
    expect((await api.orgs.deleteSiteRedirectById(organizationId, site.id, redirect.id)).status).toBe(205);

    const content = await api.orgs.getPublishedContentSite(organizationId, site.id);
    expect(content.data.object).toBe('published-content-site');

    await api.orgs.deleteSiteSpaceById(organizationId, site.id, added.id);
    await api.orgs.deleteSiteSectionGroupById(organizationId, site.id, group.id);
    await api.orgs.deleteSiteById(organizationId, site.id);
    const missing = await api.orgs.getSiteById(organizationId, site.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(GitBookAPIError);
    expect((missing as GitBookAPIError).code).toBe(404);
  });

  it('records visitors\' events of a site and aggregates them with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client insights');
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: site } = await api.orgs.createSite(organizationId, { title: 'Docs' });
    const session = { visitorId: 'v1', sessionId: 's1', cookies: {}, userAgent: 'Mozilla/5.0 (Windows NT 10.0) Firefox/120.0', language: 'en', referrer: '' };
    const location = { url: 'https://docs.example.com/start', siteSection: null, siteSpace: null, siteShareKey: null, space: null, revision: null, page: null };
    const tracked = await api.orgs.trackEventsInSiteById(organizationId, site.id, {
      events: [{ type: 'page_view', session, location }, { type: 'search_type_query', query: 'setup', session, location }],
    } as never);
    expect(tracked.status).toBe(204);
    const { data: result } = await api.orgs.aggregateSiteEvents(organizationId, site.id, {
      range: 'last7Days', groupBy: [{ column: 'eventType' }, { column: 'visitorBrowser' }], order: { by: { column: 'eventType' }, direction: 'asc' },
    } as never);
    expect(result.columns).toEqual([
      { column: 'eventType', values: ['page_view', 'search_type_query'] },
      { column: 'visitorBrowser', values: ['firefox', 'firefox'] },
      { column: 'eventsCount', values: [1, 1] },
    ]);
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

describeEachDialect('site structure through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });

  it('reads the structure, sorts it and moves sections and groups with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client structure');
    const org = { organizationId, client: admin.client };
    const guides = await createSpace(org, { title: 'Guides' });
    const reference = await createSpace(org, { title: 'Reference' });
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: site } = await api.orgs.createSite(organizationId, { title: 'Docs' });
    const { data: one } = await api.orgs.addSectionToSite(organizationId, site.id, { spaceId: guides.id });
    const { data: two } = await api.orgs.addSectionToSite(organizationId, site.id, { spaceId: reference.id });
    const { data: group } = await api.orgs.addSectionGroupToSite(organizationId, site.id, { title: 'Products' });
    const order = async () => (await api.orgs.getSiteStructure(organizationId, site.id)).data.structure.map((item) => item.id);
    expect(await order()).toEqual([one.id, two.id, group.id]);

    expect((await api.orgs.sortSiteStructure(organizationId, site.id, { item: { type: 'site-section', id: two.id }, position: { before: { type: 'site-section', id: one.id } } })).data.id).toBe(two.id);
    expect(await order()).toEqual([two.id, one.id, group.id]);
    await api.orgs.moveSiteSection(organizationId, site.id, two.id, {});
    expect(await order()).toEqual([one.id, group.id, two.id]);
    await api.orgs.moveSiteSectionGroup(organizationId, site.id, group.id, { position: { before: { type: 'site-section', id: one.id } } });
    expect(await order()).toEqual([group.id, one.id, two.id]);
    expect((await api.orgs.listSiteSections(organizationId, site.id, {})).data.items.map((item) => item.id)).toEqual([one.id, two.id]);
    expect((await api.orgs.getSiteCustomizationById(organizationId, site.id, { unmasked: true })).data).toHaveProperty('styling');

    const refused = await api.orgs.sortSiteStructure(organizationId, site.id, { item: { type: 'site-section', id: 'missing' }, position: {} }).catch((error: unknown) => error);
    expect((refused as GitBookAPIError).code).toBe(404);
  });
});

describeEachDialect('site search, preview and visitor authentication through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  it('searches a site, asks for its preview and configures its visitor authentication with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client site search');
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const guides = await createSpace(org, { title: 'Guides' });
    await f.editMain(org, guides.id, [{ operation: 'insert_page', title: 'Winds', document: md('A zephyr blows.') }]);
    await f.runJobs();
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: site } = await api.orgs.createSite(organizationId, { title: 'Docs', spaces: [guides.id] });

    const { data: found } = await api.orgs.searchSiteContent(organizationId, site.id, { query: 'zephyr', scope: { mode: 'all' } });
    expect(found.items).toEqual([expect.objectContaining({ id: guides.id, title: 'Guides', pages: [expect.objectContaining({ title: 'Winds' })] })]);
    expect((await api.orgs.searchSiteContent(organizationId, site.id, { query: 'zephyr', mode: 'all' })).data.items).toHaveLength(1);

    await api.orgs.publishSite(organizationId, site.id);
    const { data: preview } = await api.orgs.getSitePublishingPreviewById(organizationId, site.id, { claims: '(beta:!t)' });
    expect(new URL(preview.url).searchParams.get('visitor.beta')).toBe('true');

    const { data: auth } = await api.orgs.getSitePublishingAuthById(organizationId, site.id);
    expect(auth).toMatchObject({ object: 'publishing-auth', backend: 'custom' });
    const { data: updated } = await api.orgs.updateSitePublishingAuthById(organizationId, site.id, { backend: 'custom', fallbackURL: 'https://auth.example.test/login' });
    expect(updated).toMatchObject({ privateKey: auth.privateKey, fallbackURL: 'https://auth.example.test/login' });
    const { data: regenerated } = await api.orgs.regenerateSitePublishingAuthById(organizationId, site.id);
    expect(regenerated.privateKey).not.toBe(auth.privateKey);
  });
});

describeEachDialect('revisions, their changes, pages by path, documents and reusable contents through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  it('reads an earlier revision, what revisions and change requests change, pages by path (slashes sent as they are) and documents, asks for reviews and filters reviews and links with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client content');
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const space = await createSpace(org, { title: 'Guides' });
    const one = await f.editMain(org, space.id, [
      { operation: 'insert_page', title: 'Guide', document: md('# Guide'), ref: 'guide' },
      { operation: 'insert_page', title: 'Install', document: md('Run the installer.'), into: 'guide', ref: 'install' },
      { operation: 'insert_files', files: [{ name: 'notes.txt', base64: Buffer.from('notes').toString('base64') }] },
    ]);
    const install = f.pageOf(one, 'install');
    const file = one.insertedFiles![0]!;
    const first = (await f.getSpace(admin.client, space.id)).revision;
    await f.editMain(org, space.id, [{ operation: 'update_page', page: install, document: md('Run the new installer.') }]);
    const cr = await f.createCr(admin.client, space.id);
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;

    const { data: revision } = await api.spaces.getRevisionById(space.id, first, {});
    expect(revision).toMatchObject({ object: 'revision', id: first, type: 'merge' });
    expect((await api.spaces.listPagesInRevisionById(space.id, first, { metadata: false })).data.pages.map((page) => page.title)).toEqual(['Guide']);
    expect((await api.spaces.listFilesInRevisionById(space.id, first, { limit: 10 })).data.items.map((item) => item.name)).toEqual(['notes.txt']);
    expect((await api.spaces.getFileInRevisionById(space.id, first, file.id, {})).data).toMatchObject({ id: file.id, size: 5 });
    const { data: old } = await api.spaces.getPageInRevisionById(space.id, first, install, { format: 'markdown' });
    expect(old).toMatchObject({ id: install, markdown: 'Run the installer.' });
    const { data: document } = await api.spaces.getPageDocumentInRevisionById(space.id, first, install, { evaluated: false });
    expect(document.object).toBe('document');
    expect((await api.spaces.getPageInRevisionByPath(space.id, first, 'guide/install', { format: 'markdown' })).data).toMatchObject({ id: install, markdown: 'Run the installer.' });
    const { data: current } = await api.spaces.getPageByPath(space.id, 'guide/install', { format: 'document' });
    expect(current).toMatchObject({ id: install, path: 'guide/install' });
    expect((await api.spaces.getPageInChangeRequestByPath(space.id, cr.id, 'guide/install', {})).data).toMatchObject({ id: install });
    const documentId = (old as { documentId?: string }).documentId!;
    expect((await api.spaces.getDocumentById(space.id, documentId, { schema: 'current' })).data).toEqual(document);

    const { data: changed } = await api.spaces.getRevisionSemanticChanges(space.id, (await f.getSpace(admin.client, space.id)).revision, { limit: 10 });
    expect(changed.changes).toEqual([expect.objectContaining({ type: 'page_edited', attributes: { document: expect.objectContaining({ after: expect.any(String) }) } })]);
    expect((await api.spaces.getRevisionSemanticChanges(space.id, first, { limit: 1 })).data).toMatchObject({ changes: [{ type: 'page_created' }], more: 2 });
    expect((await api.spaces.getChangeRequestChanges(space.id, cr.id, {})).data).toEqual({ changes: [] });

    // Review requests with the subject the author sets as they ask; reviews and links with the public filters.
    const asked = await api.spaces.requestReviewersForChangeRequest(space.id, cr.id, { users: [admin.userId], subject: 'Please review' });
    expect(asked.data.users).toEqual([expect.objectContaining({ object: 'change-request-requested-reviewer', kind: 'user', user: expect.objectContaining({ id: admin.userId }) })]);
    expect((await api.spaces.getChangeRequestById(space.id, cr.id)).data.subject).toBe('Please review');
    expect((await api.spaces.getReviewsByChangeRequestId(space.id, cr.id, { outdated: false, format: 'markdown' as never })).data.items).toEqual([]);
    expect((await api.spaces.listChangeRequestLinks(space.id, cr.id, { brokenContext: 'change-request' })).data.items).toEqual([]);

    const missing = await api.spaces.getRevisionById(space.id, 'missing', {}).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(GitBookAPIError);
    expect((missing as GitBookAPIError).code).toBe(404);
  });

  it('reads reusable contents of the main content, a revision and a change request with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client reusable contents');
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const space = await createSpace(org, { title: 'Guides' });
    const made = await f.editMain(org, space.id, [{ operation: 'insert_reusable_content', title: 'Support', document: md('Write to **help@example.com**.'), ref: 'support' }]);
    const support = made.reusableContents![0]!.reusableContent;
    const revision = (await f.getSpace(admin.client, space.id)).revision;
    const cr = await f.createCr(admin.client, space.id);
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;

    expect((await api.spaces.getCurrentRevision(space.id, {})).data.reusableContents).toEqual([expect.objectContaining({ id: support, title: 'Support' })]);
    const { data: found } = await api.spaces.getReusableContentById(space.id, support, {});
    expect(found).toMatchObject({ id: support, title: 'Support' });
    expect((await api.spaces.getReusableContentInRevisionById(space.id, revision, support, { metadata: false })).data).toMatchObject({ id: support });
    const { data: document } = await api.spaces.getReusableContentDocumentInRevisionById(space.id, revision, support, {});
    expect(document).toMatchObject({ object: 'document', nodes: [expect.objectContaining({ type: 'paragraph' })] });
    expect((await api.spaces.getReusableContentInChangeRequestById(space.id, cr.id, support, {})).data).toMatchObject({ id: support, title: 'Support' });

    const missing = await api.spaces.getReusableContentById(space.id, 'missing', {}).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(GitBookAPIError);
    expect((missing as GitBookAPIError).code).toBe(404);
  });
});

describeEachDialect('space PDFs, organization search, email domains and computed content through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  it('asks for the PDF of a space, of one of its pages, with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client PDFs');
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const space = await createSpace(org, { title: 'Printed' });
    const edited = await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Guide', document: md('# Guide\n\nRead me.'), ref: 'guide' }]);
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: whole } = await api.spaces.getSpacePdf(space.id, {});
    expect((await fetch(String(whole.url).replace(/^https?:\/\/[^/]+/, server.url))).status).toBe(200);
    const { data: one } = await api.spaces.getSpacePdf(space.id, { page: f.pageOf(edited, 'guide'), only: true });
    expect(String(one.url)).toMatch(/^https?:\/\//);
    const missing = await api.spaces.getSpacePdf('missing', {}).catch((error: unknown) => error);
    expect((missing as GitBookAPIError).code).toBe(404);
  });

  it('searches an organization and lists the caller\'s organizations of an e-mail domain with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client search');
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const space = await createSpace(org, { title: 'Searched' });
    const edited = await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Nebula', document: md('A nebula is a cloud.'), ref: 'nebula' }]);
    await f.runJobs();
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: found } = await api.orgs.searchOrganizationContent(organizationId, { query: 'nebula', limit: 5 });
    expect(found.items.map((item) => [item.id, item.title, item.pages.map((page) => page.id)])).toEqual([[space.id, 'Searched', [f.pageOf(edited, 'nebula')]]]);

    await api.orgs.updateOrganizationById(organizationId, { emailDomains: ['nebula.example'] } as never);
    const { data: domain } = await api.emailDomains.getOrganizationsForEmailDomain('nebula.example');
    expect(domain.organizations.map((item) => item.id)).toEqual([organizationId]);
    const missing = await api.orgs.searchOrganizationContent('missing', { query: 'nebula' }).catch((error: unknown) => error);
    expect((missing as GitBookAPIError).code).toBe(404);
  });

  it('computes a document of an organization\'s OpenAPI reference with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client computed');
    const space = await createSpace({ organizationId, client: admin.client }, { title: 'Computed' });
    await unwrap(admin.client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId } }, body: { slug: 'tiny', source: { text: 'openapi: 3.0.3\ninfo:\n  title: Tiny\n  version: 1.0.0\npaths: {}\n' } } }));
    await f.runJobs();
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: document } = await api.spaces.getComputedDocument(space.id, {
      source: { type: 'builtin:openapi', props: { doc: 'info' }, dependencies: { spec: { ref: { kind: 'openapi', spec: 'tiny' } } } },
      seed: 'seed',
    } as never, { schema: 'current' });
    expect(document.object).toBe('document');
    expect(JSON.stringify(document)).toContain('Tiny');
  });

  it('computes the pages of an organization\'s OpenAPI reference with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client computed revision');
    const space = await createSpace({ organizationId, client: admin.client }, { title: 'Computed' });
    const text = 'openapi: 3.0.3\ninfo:\n  title: Tiny\n  version: 1.0.0\npaths:\n  /ping:\n    get:\n      tags: [health]\n      summary: Ping\n      responses:\n        \'200\':\n          description: Pong\n';
    await unwrap(admin.client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId } }, body: { slug: 'tiny', source: { text } } }));
    await f.runJobs();
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: computed } = await api.spaces.getComputedRevision(space.id, {
      source: { type: 'builtin:openapi', props: { models: false }, dependencies: { spec: { ref: { kind: 'openapi', spec: 'tiny' } } } },
      seed: 'seed',
    } as never);
    expect(computed.pages.map((page) => page.title)).toEqual(['health']);
    expect(computed.files).toEqual([]);
    expect(computed.reusableContents).toEqual([]);
  });

  it('finds what an app address points at with the official client', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client content by URL');
    const org = { organizationId, userId: admin.userId, token: admin.token, client: admin.client };
    const space = await createSpace(org, { title: 'Addressed' });
    const collection = await createCollection(org, { title: 'Shelf' });
    const edited = await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Guide', document: md('# Guide'), ref: 'guide' }]);
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const { data: atCollection } = await api.urls.getContentByUrl({ url: collection.urls.app });
    expect('collection' in atCollection && atCollection.collection.id).toBe(collection.id);
    const { data: atPage } = await api.urls.getContentByUrl({ url: `${space.urls.app}/guide` });
    expect('space' in atPage && [atPage.space.id, atPage.page?.id]).toEqual([space.id, f.pageOf(edited, 'guide')]);
    const missing = await api.urls.getContentByUrl({ url: `${space.urls.app}/nowhere` }).catch((error: unknown) => error);
    expect((missing as GitBookAPIError).code).toBe(404);
  });
});

describeEachDialect('embeds through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });

  it('asks the link card of a page with the official client, in a space and outside one', async () => {
    const { organizationId, admin } = await organizationWithPeople(server, 'Official client embeds');
    const space = await createSpace({ organizationId, client: admin.client }, { title: 'Guides' });
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    // Quire's own health check, on loopback (test servers allow local URLs): not HTML, so shown by its URL.
    const url = `${server.url}/healthz`;
    const card = { type: 'link', title: url, site: new URL(url).hostname };
    expect((await api.urls.getEmbedByUrl({ url })).data).toEqual(card);
    expect((await api.spaces.getEmbedByUrlInSpace(space.id, { url })).data).toEqual(card);
  });
});

describeEachDialect('content permissions through @gitbook/api', (dialect) => {
  const server = useTestServer({ dialect });

  it('grants, lists and removes content permissions, lists who reads a site, reads and updates users with the official client', async () => {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Official client permissions', { guest: null, reader: 'read' });
    const org = { organizationId, client: admin.client };
    const space = await createSpace(org, { title: 'Guides' });
    const collection = await createCollection(org, { title: 'Handbooks' });
    await unwrap(admin.client.PUT('/orgs/{organizationId}/teams', { params: { path: { organizationId } }, body: { title: 'Writers', members: [people.reader!.userId] } }));
    const team = (await unwrap(admin.client.GET('/orgs/{organizationId}/teams', { params: { path: { organizationId } } }))).items[0]!;
    const api = new GitBookAPI({ endpoint: server.url, authToken: admin.token }) as unknown as Api<unknown>;
    const guest = people.guest!.userId;

    await api.spaces.inviteToSpace(space.id, { role: 'edit' as never, users: [guest] });
    await api.spaces.inviteToSpace(space.id, { role: 'review' as never, teams: [team.id] });
    await api.collections.inviteToCollection(collection.id, { role: 'comment' as never, users: [guest], teams: [team.id] });
    expect((await api.spaces.listUserPermissionsInSpace(space.id, {})).data.items.map((item) => [item.user.id, item.permission])).toEqual([[guest, 'edit']]);
    expect((await api.spaces.listTeamPermissionsInSpace(space.id, {})).data.items.map((item) => [item.team.id, item.permission])).toEqual([[team.id, 'review']]);
    const aggregate = (await api.spaces.listPermissionsAggregateInSpace(space.id, { role: 'review' as never })).data.items;
    expect(aggregate.map((item) => [item.user.id, item.permission])).toEqual([[people.reader!.userId, 'review']]);
    expect((await api.collections.listUserPermissionsInCollection(collection.id, {})).data.items.map((item) => item.user.id)).toEqual([guest]);
    expect((await api.collections.listTeamPermissionsInCollection(collection.id, {})).data.items.map((item) => item.team.id)).toEqual([team.id]);
    expect((await api.collections.listPermissionsAggregateInCollection(collection.id, {})).data.items.find((item) => item.user.id === guest)?.permission).toBe('comment');

    const { data: site } = await api.orgs.createSite(organizationId, { title: 'Docs', spaces: [space.id] });
    const readers = (await api.orgs.listPermissionsAggregateInSite(organizationId, site.id, {})).data.items;
    expect(readers.find((item) => item.user.id === guest)).toMatchObject({ permission: 'edit', origin: { type: 'space', space: space.id } });

    expect((await api.spaces.removeUserFromSpace(space.id, guest)).status).toBe(205);
    expect((await api.spaces.removeUserFromSpace(space.id, guest)).status).toBe(204);
    expect((await api.spaces.removeTeamFromSpace(space.id, team.id)).status).toBe(205);
    expect((await api.collections.removeUserFromCollection(collection.id, guest)).status).toBe(205);
    expect((await api.collections.removeTeamFromCollection(collection.id, team.id)).status).toBe(205);
    expect((await api.spaces.listUserPermissionsInSpace(space.id, {})).data.items).toEqual([]);

    expect((await api.users.getUserById(guest)).data).toMatchObject({ object: 'user', id: guest });
    const guestApi = new GitBookAPI({ endpoint: server.url, authToken: people.guest!.token }) as unknown as Api<unknown>;
    expect((await guestApi.users.updateUserById(guest, { displayName: 'Guest Writer' })).data).toMatchObject({ id: guest, displayName: 'Guest Writer' });
  });
});
