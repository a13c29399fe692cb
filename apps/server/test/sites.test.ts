import { unwrap, type QuireClient } from '@quire/client';
import type { components } from '@quire/api-types';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, organizationWithPeople, useTestServer } from './helpers.js';
import { storedText } from './storage-facts.js';


describeEachDialect('docs sites', (dialect) => {
  const server = useTestServer({ dialect });

  /** An organization with an admin, an editor and a reader, two spaces, and another organization. */
  async function world() {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Sites org', { editor: 'edit', reader: 'read' });
    const org = { organizationId, client: admin.client };
    const spaceA = await createSpace(org, { title: 'Guides' });
    const spaceB = await createSpace(org, { title: 'API Reference' });
    const other = await newOrg(server, 'Other org');
    const foreignSpace = await createSpace(other, { title: 'Foreign' });
    return { organizationId, admin: admin.client, editor: people.editor!.client, reader: people.reader!.client, spaceA, spaceB, other, foreignSpace };
  }

  /** QUIRE_PUBLIC_URL of the test server, as the answers show it. */
  const base = (site: { urls: { location: string } }) => site.urls.location.split('/v1/')[0]!;
  const sitesPath = (organizationId: string) => ({ path: { organizationId } });
  const sitePath = (organizationId: string, siteId: string) => ({ path: { organizationId, siteId } });
  const create = (client: QuireClient, organizationId: string, body: Record<string, unknown> = {}) =>
    client.POST('/orgs/{organizationId}/sites', { params: sitesPath(organizationId), body: body as never });
  const getSite = (client: QuireClient, organizationId: string, siteId: string) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(organizationId, siteId) });
  const update = (client: QuireClient, organizationId: string, siteId: string, body: Record<string, unknown>) =>
    client.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(organizationId, siteId), body: body as never });
  const siteSpaces = (client: QuireClient, organizationId: string, siteId: string, query: Record<string, unknown> = {}) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: { ...sitePath(organizationId, siteId), query: query as never } });
  const addSpace = (client: QuireClient, organizationId: string, siteId: string, body: Record<string, unknown>) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: sitePath(organizationId, siteId), body: body as never });
  const siteSpacePath = (organizationId: string, siteId: string, siteSpaceId: string) => ({ path: { organizationId, siteId, siteSpaceId } });
  const publish = (client: QuireClient, organizationId: string, siteId: string) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: sitePath(organizationId, siteId) });
  const published = (client: QuireClient, organizationId: string, siteId: string, shareKey?: string) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/published', { params: { ...sitePath(organizationId, siteId), query: shareKey === undefined ? {} : { shareKey } } });
  const addSection = (client: QuireClient, organizationId: string, siteId: string, body: Record<string, unknown>) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(organizationId, siteId), body: body as never });
  const addGroup = (client: QuireClient, organizationId: string, siteId: string, body: Record<string, unknown>) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: sitePath(organizationId, siteId), body: body as never });
  const createLink = (client: QuireClient, organizationId: string, siteId: string, name: string) =>
    client.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: sitePath(organizationId, siteId), body: { name } });
  /**
   * Values of a name that becomes one segment of an address, refused by the contract's pattern (so by the
   * request validator, before any service code): what path-normalising clients would resolve or split.
   */
  const BAD_SEGMENTS = ['.', '..', 'a/b', '/', 'a\\b', '%2E%2E', 'a%2Fb', '%2e', 'a\u0000b', 'a\nb', 'a\u007fb', '.hidden', '-dash'];
  const expectSegmentRefused = (answer: { response: Response; error?: unknown }, value: string) => {
    expect(answer.response.status, JSON.stringify(value)).toBe(400);
    // NUL is refused earlier still, by the body reader, for every field.
    expect(JSON.stringify(answer.error), JSON.stringify(value)).toMatch(/pattern|NUL character/);
  };

  describe('createSite', () => {
    it('creates an unpublished basic public site whose spaces become site spaces in order, the first the default', async () => {
      const w = await world();
      const bare = await unwrap(create(w.admin, w.organizationId));
      expect(bare).toMatchObject({ object: 'site', type: 'basic', visibility: 'public', published: false, siteSpaces: 0 });
      expect(bare.urls.published).toBeUndefined();
      const site = await unwrap(create(w.admin, w.organizationId, { title: 'Docs', type: 'premium', visibility: 'share-link', spaces: [w.spaceA.id, w.spaceB.id] }));
      expect(site).toMatchObject({ title: 'Docs', type: 'premium', visibility: 'share-link', siteSpaces: 2 });
      const listed = await unwrap(siteSpaces(w.admin, w.organizationId, site.id));
      expect(listed.items.map((item) => [item.space.id, item.default, item.path])).toEqual([[w.spaceA.id, true, 'guides'], [w.spaceB.id, false, 'api-reference']]);
    });

    it('refuses bad bodies (400), members below admin (403) and other organizations (404)', async () => {
      const w = await world();
      expectError(await create(w.admin, w.organizationId, { spaces: [w.foreignSpace.id] }), 400, /body\.spaces\[0\]/);
      expectError(await create(w.admin, w.organizationId, { title: 'x' }), 400);
      expectError(await create(w.admin, w.organizationId, { title: 'x'.repeat(129) }), 400);
      expectError(await create(w.admin, w.organizationId, { type: 'gold' }), 400);
      expectError(await create(w.admin, w.organizationId, { visibility: 'secret' }), 400);
      expectError(await create(w.editor, w.organizationId, { title: 'Docs' }), 403);
      expectError(await create(w.other.client, w.organizationId, { title: 'Docs' }), 404);
      expect((await unwrap(w.admin.GET('/orgs/{organizationId}/sites', { params: sitesPath(w.organizationId) }))).count).toBe(0);
    });
  });

  describe('listSites', () => {
    it('answers a space the caller cannot see exactly as an unknown id: no site', async () => {
      const w = await world();
      const guest = await newMember(server, { organizationId: w.organizationId }, null);
      await unwrap(create(w.admin, w.organizationId, { title: 'Hidden', spaces: [w.spaceB.id] }));
      await unwrap(w.admin.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: w.spaceB.id } }, body: { defaultLevel: null } }));
      const list = (client: QuireClient, space: string) => unwrap(client.GET('/orgs/{organizationId}/sites', { params: { ...sitesPath(w.organizationId), query: { space } } }));
      const unknown = await list(w.reader, 'noSuchSpace');
      expect(unknown).toMatchObject({ items: [], count: 0 });
      expect(await list(w.reader, w.spaceB.id)).toEqual(unknown);
      expect(await list(guest.client, w.spaceB.id)).toEqual(await list(guest.client, 'noSuchSpace'));
      expect(await list(w.reader, w.foreignSpace.id)).toEqual(unknown);
      expect((await list(w.admin, w.spaceB.id)).items.map((site) => site.title)).toEqual(['Hidden']);
    });

    it('filters by space, title, published status and type, and pages', async () => {
      const w = await world();
      const one = await unwrap(create(w.admin, w.organizationId, { title: 'Developer Portal', spaces: [w.spaceA.id] }));
      const two = await unwrap(create(w.admin, w.organizationId, { title: 'Help center', type: 'ultimate', spaces: [w.spaceB.id] }));
      await unwrap(publish(w.admin, w.organizationId, two.id));
      const list = (query: Record<string, unknown>) => unwrap(w.reader.GET('/orgs/{organizationId}/sites', { params: { ...sitesPath(w.organizationId), query: query as never } }));
      expect((await list({})).items.map((site) => site.id)).toEqual([one.id, two.id]);
      expect((await list({ space: w.spaceA.id })).items.map((site) => site.id)).toEqual([one.id]);
      expect((await list({ title: 'PORTAL' })).items.map((site) => site.id)).toEqual([one.id]);
      expect((await list({ title: '%' })).items).toEqual([]);
      expect((await list({ published: true })).items.map((site) => site.id)).toEqual([two.id]);
      expect((await list({ published: false })).items.map((site) => site.id)).toEqual([one.id]);
      expect((await list({ type: ['ultimate', 'premium'] })).items.map((site) => site.id)).toEqual([two.id]);
      const first = await list({ limit: 1 });
      expect(first.count).toBe(2);
      const second = await list({ limit: 1, page: first.next!.page });
      expect(second.items.map((site) => site.id)).toEqual([two.id]);
      expect(second.next).toBeUndefined();
      expectError(await w.admin.GET('/orgs/{organizationId}/sites', { params: { ...sitesPath(w.organizationId), query: { type: ['gold'] } as never } }), 400);
      expectError(await w.other.client.GET('/orgs/{organizationId}/sites', { params: sitesPath(w.organizationId) }), 404);
    });
  });

  describe('getSiteById', () => {
    it('answers the site to members, 404 for a missing site and for another organization', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { title: 'Docs', spaces: [w.spaceA.id] }));
      expect(await unwrap(getSite(w.reader, w.organizationId, site.id))).toEqual(site);
      expectError(await getSite(w.reader, w.organizationId, 'noSuchSite'), 404);
      expectError(await getSite(w.other.client, w.organizationId, site.id), 404);
      const otherSite = await unwrap(create(w.other.client, w.other.organizationId, { title: 'Theirs' }));
      expectError(await getSite(w.admin, w.organizationId, otherSite.id), 404);
    });
  });

  describe('updateSiteById', () => {
    it('refuses a basename that is not one plain address segment (`.`, `..`, slashes, percent-encodings, control characters) in the contract, changing nothing', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      for (const basename of BAD_SEGMENTS) expectSegmentRefused(await update(w.admin, w.organizationId, site.id, { basename }), basename);
      expect((await unwrap(getSite(w.admin, w.organizationId, site.id))).basename).toBeUndefined();
      // What the public API's examples use (`api`) and names with inner dots stay accepted.
      for (const basename of ['api', 'v2.docs', 'docs_2']) expect((await unwrap(update(w.admin, w.organizationId, site.id, { basename }))).basename).toBe(basename);
    });

    it('changes the given settings and keeps the others', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { title: 'Docs', spaces: [w.spaceA.id, w.spaceB.id] }));
      const [, second] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      const updated = await unwrap(update(w.admin, w.organizationId, site.id, {
        title: 'New docs', visibility: 'unlisted', basename: 'docs', adaptiveContent: { enabled: true }, agentsContext: 'excluded',
        proxy: 'example.com/docs', hostname: `docs-${dialect}.example.com`, defaultSiteSpace: second!.id,
      }));
      expect(updated).toMatchObject({
        title: 'New docs', visibility: 'unlisted', basename: 'docs', adaptiveContent: { enabled: true }, agentsContext: 'excluded',
        proxy: { origin: 'example.com/docs' }, hostname: `docs-${dialect}.example.com`, siteSpaces: 2,
      });
      expect((await unwrap(siteSpaces(w.admin, w.organizationId, site.id, { default: true }))).items.map((item) => item.id)).toEqual([second!.id]);
      const cleared = await unwrap(update(w.admin, w.organizationId, site.id, { proxy: null, hostname: null }));
      expect(cleared.proxy).toBeUndefined();
      expect(cleared.hostname).toBeUndefined();
      expect(cleared.title).toBe('New docs');
    });

    it('refuses what breaks the document\'s limits and patterns (400), a taken hostname or basename (409), non-admins (403)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { title: 'Docs' }));
      const before = await unwrap(getSite(w.admin, w.organizationId, site.id));
      for (const body of [
        {}, { title: 'x' }, { basename: '' }, { basename: 'x'.repeat(101) }, { basename: 'a/b' }, { proxy: 'not a proxy' }, { proxy: 'example.com' },
        { hostname: 'Docs.Example.com' }, { hostname: 'example.com' }, { visibility: 'secret' }, { agentsContext: 'maybe' },
        { adaptiveContent: {} }, { defaultSiteSpace: 'noSuchSiteSpace' }, { defaultSiteSection: 'noSuchSection' }, { unknown: 1 },
      ]) {
        expect((await update(w.admin, w.organizationId, site.id, body)).response.status, JSON.stringify(body)).toBe(400);
      }
      expect(await unwrap(getSite(w.admin, w.organizationId, site.id))).toEqual(before);
      const hostname = `taken-${dialect}.example.org`;
      await unwrap(update(w.admin, w.organizationId, site.id, { hostname }));
      const otherSite = await unwrap(create(w.other.client, w.other.organizationId, { title: 'Theirs' }));
      expectError(await update(w.other.client, w.other.organizationId, otherSite.id, { hostname }), 409);
      // `/sites/{basename, else id}` is one namespace: a basename names one site, and never another site's id.
      const basename = `taken-${dialect}`;
      await unwrap(update(w.admin, w.organizationId, site.id, { basename }));
      expectError(await update(w.other.client, w.other.organizationId, otherSite.id, { basename }), 409);
      expectError(await update(w.other.client, w.other.organizationId, otherSite.id, { basename: site.id }), 409);
      expect((await unwrap(update(w.admin, w.organizationId, site.id, { basename }))).basename).toBe(basename);
      expect((await unwrap(getSite(w.other.client, w.other.organizationId, otherSite.id))).basename).toBeUndefined();
      expectError(await update(w.editor, w.organizationId, site.id, { title: 'Mine' }), 403);
      expectError(await update(w.other.client, w.organizationId, site.id, { title: 'Mine' }), 404);
      expectError(await update(w.admin, w.organizationId, 'noSuchSite', { title: 'Mine' }), 404);
    });
  });

  describe('deleteSiteById', () => {
    it('deletes the site with its site spaces, sections, groups and share links (204, also when absent); the spaces stay', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { title: 'Docs', spaces: [w.spaceA.id] }));
      const section = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id }));
      await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'Group', sections: [section.id] }));
      await unwrap(createLink(w.admin, w.organizationId, site.id, 'Partner'));
      expectError(await w.reader.DELETE('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(w.organizationId, site.id) }), 403);
      expect((await w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(w.organizationId, site.id) })).response.status).toBe(204);
      expectError(await getSite(w.admin, w.organizationId, site.id), 404);
      expect((await unwrap(w.admin.GET('/orgs/{organizationId}/sites', { params: { ...sitesPath(w.organizationId), query: { space: w.spaceA.id } } }))).count).toBe(0);
      expect((await unwrap(w.admin.GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaceA.id } } }))).id).toBe(w.spaceA.id);
      expect((await w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(w.organizationId, site.id) })).response.status).toBe(204);
      expectError(await w.other.client.DELETE('/orgs/{organizationId}/sites/{siteId}', { params: sitePath(w.organizationId, 'any') }), 404);
      // A site can publish the same spaces again afterwards: nothing of the old one is left over.
      expect((await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id] }))).siteSpaces).toBe(2);
    });
  });

  describe('publishSite', () => {
    it('publishes the site, which then has its published address (basename, else id; hostname when set)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { title: 'Docs', spaces: [w.spaceA.id] }));
      expectError(await publish(w.editor, w.organizationId, site.id), 403);
      const done = await unwrap(publish(w.admin, w.organizationId, site.id));
      expect(done.published).toBe(true);
      expect(done.urls.published).toBe(`${base(site)}/sites/${site.id}`);
      expect((await unwrap(publish(w.admin, w.organizationId, site.id))).published).toBe(true);
      const named = await unwrap(update(w.admin, w.organizationId, site.id, { basename: 'handbook' }));
      expect(named.urls.published).toBe(`${base(site)}/sites/handbook`);
      const [siteSpace] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      expect(siteSpace!.urls.published).toBe(`${base(site)}/sites/handbook/guides`);
      expect(siteSpace!.space.urls.published).toBe(`${base(site)}/sites/handbook/guides`);
      const hosted = await unwrap(update(w.admin, w.organizationId, site.id, { hostname: `hb-${dialect}.example.net` }));
      expect(hosted.urls.published).toBe(`${new URL(base(site)).protocol}//hb-${dialect}.example.net`);
      expectError(await publish(w.admin, w.organizationId, 'noSuchSite'), 404);
    });
  });

  describe('unpublishSite', () => {
    it('takes the site offline and keeps its settings and site spaces', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { title: 'Docs', spaces: [w.spaceA.id] }));
      await unwrap(publish(w.admin, w.organizationId, site.id));
      expectError(await w.reader.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: sitePath(w.organizationId, site.id) }), 403);
      const done = await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: sitePath(w.organizationId, site.id) }));
      expect(done).toMatchObject({ published: false, siteSpaces: 1 });
      expect(done.urls.published).toBeUndefined();
      expect((await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/unpublish', { params: sitePath(w.organizationId, site.id) }))).published).toBe(false);
    });
  });

  describe('listSiteSpaces', () => {
    it('lists the site spaces in order, filters the default one, pages', async () => {
      const w = await world();
      const spaceC = await createSpace({ organizationId: w.organizationId, client: w.admin }, { title: 'Changelog' });
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id, spaceC.id] }));
      const all = await unwrap(siteSpaces(w.reader, w.organizationId, site.id));
      expect(all.items.map((item) => item.space.id)).toEqual([w.spaceA.id, w.spaceB.id, spaceC.id]);
      expect(all.items[0]).toMatchObject({ object: 'site-space', title: 'Guides', default: true });
      expect((await unwrap(siteSpaces(w.reader, w.organizationId, site.id, { default: false }))).items.map((item) => item.space.id)).toEqual([w.spaceB.id, spaceC.id]);
      const first = await unwrap(siteSpaces(w.reader, w.organizationId, site.id, { limit: 2 }));
      const rest = await unwrap(siteSpaces(w.reader, w.organizationId, site.id, { limit: 2, page: first.next!.page }));
      expect([...first.items, ...rest.items].map((item) => item.id)).toEqual(all.items.map((item) => item.id));
      expectError(await siteSpaces(w.other.client, w.organizationId, site.id), 404);
      expectError(await siteSpaces(w.reader, w.organizationId, site.id, { page: 'garbage' }), 400);
    });

    it('shows members only the site spaces whose spaces they see', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id] }));
      await unwrap(w.admin.PATCH('/spaces/{spaceId}', { params: { path: { spaceId: w.spaceB.id } }, body: { defaultLevel: null } as never }));
      expect((await unwrap(siteSpaces(w.reader, w.organizationId, site.id))).items.map((item) => item.space.id)).toEqual([w.spaceA.id]);
      expect((await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).count).toBe(2);
    });
  });

  describe('addSpaceToSite', () => {
    it('adds a space last at its level (201); the first of a level is its default', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const first = await unwrap(addSpace(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      expect(first).toMatchObject({ default: true, path: 'guides', space: { id: w.spaceA.id } });
      expect(first.section).toBeUndefined();
      const second = await unwrap(addSpace(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id }));
      expect(second.default).toBe(false);
      expect((await unwrap(getSite(w.admin, w.organizationId, site.id))).siteSpaces).toBe(2);
    });

    it('goes to the default section when the site has sections, or to the given one', async () => {
      const w = await world();
      const spaceC = await createSpace({ organizationId: w.organizationId, client: w.admin }, { title: 'Changelog' });
      const site = await unwrap(create(w.admin, w.organizationId));
      const main = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id, title: 'Main' }));
      const extra = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id, title: 'Extra' }));
      expect((await unwrap(addSpace(w.admin, w.organizationId, site.id, { spaceId: spaceC.id }))).section).toBe(main.id);
      await w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items.find((item) => item.space.id === spaceC.id)!.id) });
      const placed = await unwrap(addSpace(w.admin, w.organizationId, site.id, { spaceId: spaceC.id, sectionId: extra.id }));
      expect(placed).toMatchObject({ section: extra.id, default: false });
    });

    it('refuses a space of another organization or an unknown section (400), a space already there (409), non-admins (403)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id] }));
      expectError(await addSpace(w.admin, w.organizationId, site.id, { spaceId: w.foreignSpace.id }), 400);
      expectError(await addSpace(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id, sectionId: 'noSuchSection' }), 400);
      expectError(await addSpace(w.admin, w.organizationId, site.id, {}), 400);
      expectError(await addSpace(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }), 409);
      expectError(await addSpace(w.editor, w.organizationId, site.id, { spaceId: w.spaceB.id }), 403);
      expectError(await addSpace(w.other.client, w.organizationId, site.id, { spaceId: w.spaceB.id }), 404);
      expect((await unwrap(getSite(w.admin, w.organizationId, site.id))).siteSpaces).toBe(1);
    });
  });

  describe('updateSiteSpaceById', () => {
    it('answers a patch with nothing to set (200) with the site space unchanged', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id] }));
      const [first] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      const unchanged = await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, first!.id), body: {} }));
      expect(unchanged).toEqual(first);
      expect((await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items[0]).toEqual(first);
    });

    it('refuses a path that is not one plain address segment (`.`, `..`, slashes, percent-encodings, control characters) in the contract, changing nothing', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id] }));
      const [first] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      for (const path of BAD_SEGMENTS) {
        expectSegmentRefused(await w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, first!.id), body: { path } }), path);
      }
      expect((await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items[0]!.path).toBe(first!.path);
    });

    it('sets the path, sets and removes the condition, swaps the space', async () => {
      const w = await world();
      const spaceC = await createSpace({ organizationId: w.organizationId, client: w.admin }, { title: 'Changelog' });
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id] }));
      const [first] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      const patch = (body: Record<string, unknown>) => w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, first!.id), body: body as never });
      const condition = 'visitor.claims.unsigned.beta == true && !(visitor.claims.plan == "free")';
      expect(await unwrap(patch({ path: 'start', condition }))).toMatchObject({ path: 'start', condition });
      expect(await unwrap(patch({ path: 'start-2' }))).toMatchObject({ path: 'start-2', condition });
      expect((await unwrap(patch({ condition: null }))).condition).toBeUndefined();
      const swapped = await unwrap(patch({ spaceId: spaceC.id }));
      expect(swapped).toMatchObject({ path: 'start-2', space: { id: spaceC.id }, default: true });
    });

    it('refuses a taken path, limits, invalid conditions (400) and non-admins (403)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id] }));
      const [first] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      const patch = (client: QuireClient, body: Record<string, unknown>) => client.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, first!.id), body: body as never });
      for (const body of [
        { path: 'api-reference' }, { path: '' }, { path: 'x'.repeat(101) }, { path: 'a b' }, { condition: 'x'.repeat(1025) },
        { condition: 'visitor.claims.unsigned.beta &&' }, { condition: 'process.exit()' }, { condition: 'visitor.claims.a = 1' },
        { condition: 'window.location' }, { condition: 'visitor.claims["a"]' }, { condition: '' }, { spaceId: w.foreignSpace.id },
      ]) {
        expect((await patch(w.admin, body)).response.status, JSON.stringify(body)).toBe(400);
      }
      expectError(await patch(w.admin, { spaceId: w.spaceB.id }), 409);
      expectError(await patch(w.editor, { path: 'mine' }), 403);
      expect((await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items[0]).toEqual(first);
      expectError(await w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, 'nope'), body: { path: 'x' } }), 404);
    });
  });

  describe('deleteSiteSpaceById', () => {
    it('removes the site space (204, also when absent) and promotes the next one when it was the default', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id] }));
      const [first, second] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      const remove = (client: QuireClient, id: string) => client.DELETE('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, id) });
      expectError(await remove(w.reader, first!.id), 403);
      expect((await remove(w.admin, first!.id)).response.status).toBe(204);
      const left = await unwrap(siteSpaces(w.admin, w.organizationId, site.id));
      expect(left.items.map((item) => [item.id, item.default])).toEqual([[second!.id, true]]);
      expect((await remove(w.admin, first!.id)).response.status).toBe(204);
      expect((await unwrap(w.admin.GET('/spaces/{spaceId}', { params: { path: { spaceId: w.spaceA.id } } }))).id).toBe(w.spaceA.id);
    });
  });

  describe('moveSiteSpace', () => {
    it('moves before or after a sibling, or last, keeping a stable order', async () => {
      const w = await world();
      const spaceC = await createSpace({ organizationId: w.organizationId, client: w.admin }, { title: 'Changelog' });
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id, w.spaceB.id, spaceC.id] }));
      const [a, b, c] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      const move = (id: string, body?: Record<string, unknown>) => w.admin.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move', { params: siteSpacePath(w.organizationId, site.id, id), ...(body ? { body: body as never } : {}) });
      const order = async () => (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items.map((item) => item.id);
      await unwrap(move(c!.id, { position: { before: { type: 'site-space', siteSpace: a!.id } } }));
      expect(await order()).toEqual([c!.id, a!.id, b!.id]);
      await unwrap(move(c!.id, { position: { after: { type: 'site-space', siteSpace: a!.id } } }));
      expect(await order()).toEqual([a!.id, c!.id, b!.id]);
      await unwrap(move(a!.id));
      expect(await order()).toEqual([c!.id, b!.id, a!.id]);
      for (let round = 0; round < 5; round++) await unwrap(move(a!.id, { position: { before: { type: 'site-space', siteSpace: b!.id } } }));
      expect(await order()).toEqual([c!.id, a!.id, b!.id]);
      expectError(await move(a!.id, { position: { before: { type: 'site-space', siteSpace: 'noSuch' } } }), 400);
      expectError(await move(a!.id, { position: { before: { type: 'site-space', siteSpace: a!.id } } }), 400);
      expectError(await move(a!.id, { position: { before: { type: 'site-space', siteSpace: b!.id }, after: { type: 'site-space', siteSpace: c!.id } } }), 400);
      expectError(await move(a!.id, { position: { before: { type: 'page', siteSpace: b!.id } } }), 400);
      expect(await order()).toEqual([c!.id, a!.id, b!.id]);
      expectError(await move('noSuch'), 404);
    });
  });

  describe('addSectionToSite', () => {
    it('answers 409, as addSpaceToSite does, for a space the site publishes already, and changes nothing', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id] }));
      const before = await unwrap(siteSpaces(w.admin, w.organizationId, site.id));
      expectError(await addSpace(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }), 409);
      expectError(await addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id, title: 'Again' }), 409);
      expect((await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }))).items).toEqual([]);
      expect(await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).toEqual(before);
      const section = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id, title: 'Reference' }));
      expectError(await addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id, title: 'Reference again' }), 409);
      expect((await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }))).items).toEqual([section]);
    });

    it('creates the first section (the default) and moves the root site spaces into it', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id] }));
      const section = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id, title: 'Reference', icon: 'book' }));
      expect(section).toMatchObject({ object: 'site-section', title: 'Reference', default: true, path: 'reference', icon: 'book' });
      expect(section.siteSpaces.map((item) => [item.space.id, item.default])).toEqual([[w.spaceA.id, true], [w.spaceB.id, false]]);
      const second = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: (await createSpace({ organizationId: w.organizationId, client: w.admin }, { title: 'Blog' })).id }));
      expect(second).toMatchObject({ title: 'Blog', default: false });
      expect(second.siteSpaces[0]!.default).toBe(true);
      expectError(await addSection(w.admin, w.organizationId, site.id, { spaceId: w.foreignSpace.id }), 400);
      expectError(await addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id, title: 'x' }), 400);
      expectError(await addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id, siteSectionGroupId: 'noSuch' }), 400);
      expectError(await addSection(w.editor, w.organizationId, site.id, { spaceId: w.spaceA.id }), 403);
    });
  });

  describe('listSiteSections', () => {
    it('lists the sections with their site spaces', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const one = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      const two = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id }));
      const list = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }));
      expect(list.items.map((section) => [section.id, section.siteSpaces.length])).toEqual([[one.id, 1], [two.id, 1]]);
      expectError(await w.other.client.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }), 404);
    });
  });

  describe('updateSiteSectionById', () => {
    it('answers a patch with nothing to set (200) with the section unchanged', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const section = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id, icon: 'book' }));
      const unchanged = await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionId: section.id } }, body: {} }));
      expect(unchanged).toEqual(section);
      expect((await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }))).items).toEqual([section]);
    });

    it('refuses a path that is not one plain address segment (`.`, `..`, slashes, percent-encodings, control characters) in the contract, changing nothing', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const section = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      for (const path of BAD_SEGMENTS) {
        expectSegmentRefused(await w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionId: section.id } }, body: { path } }), path);
      }
      const list = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }));
      expect(list.items[0]!.path).toBe(section.path);
    });

    it('changes title, icon, path, condition, group and the default section', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const one = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      const two = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id }));
      const group = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'Group' }));
      const patch = (id: string, body: Record<string, unknown>) => w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionId: id } }, body: body as never });
      const changed = await unwrap(patch(two.id, { title: 'Second', icon: null, path: 'second', condition: 'visitor.claims.unsigned.pro', siteSectionGroupId: group.id, default: true }));
      expect(changed).toMatchObject({ title: 'Second', path: 'second', condition: 'visitor.claims.unsigned.pro', sectionGroup: group.id, default: true });
      const list = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }));
      expect(list.items.find((section) => section.id === one.id)!.default).toBe(false);
      expectError(await patch(one.id, { path: 'second' }), 400);
      expectError(await patch(two.id, { default: false }), 400);
      expectError(await patch(one.id, { condition: '1 +' }), 400);
      expectError(await patch(one.id, { siteSectionGroupId: 'noSuch' }), 400);
      expect((await unwrap(patch(two.id, { siteSectionGroupId: null }))).sectionGroup).toBeUndefined();
      expectError(await patch('noSuch', { title: 'Nope' }), 404);
    });
  });

  describe('deleteSiteSectionById', () => {
    it('deletes the section with its site spaces (204, also when absent) and promotes the next default section', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const one = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      const two = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id }));
      const remove = (client: QuireClient, id: string) => client.DELETE('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionId: id } } });
      expectError(await remove(w.editor, one.id), 403);
      expect((await remove(w.admin, one.id)).response.status).toBe(204);
      expect((await remove(w.admin, one.id)).response.status).toBe(204);
      const list = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }));
      expect(list.items.map((section) => [section.id, section.default])).toEqual([[two.id, true]]);
      expect((await unwrap(getSite(w.admin, w.organizationId, site.id))).siteSpaces).toBe(1);
    });
  });

  describe('addSectionGroupToSite', () => {
    it('creates groups holding sections, nested under a parent', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const one = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      const two = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id }));
      const outer = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'Outer', icon: 'folder', sections: [two.id, one.id] }));
      expect(outer).toMatchObject({ object: 'site-section-group', title: 'Outer', icon: 'folder' });
      expect(outer.children.map((child) => child.id)).toEqual([two.id, one.id]);
      const inner = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'Inner', parent: outer.id, sections: [one.id] }));
      expect(inner.sectionGroup).toBe(outer.id);
      const groups = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: sitePath(w.organizationId, site.id) }));
      expect(groups.items.find((group) => group.id === outer.id)!.children.map((child) => child.id)).toEqual([two.id, inner.id]);
      expectError(await addGroup(w.admin, w.organizationId, site.id, { title: '' }), 400);
      expectError(await addGroup(w.admin, w.organizationId, site.id, { title: 'x'.repeat(101) }), 400);
      expectError(await addGroup(w.admin, w.organizationId, site.id, { title: 'G', parent: 'noSuch' }), 400);
      expectError(await addGroup(w.admin, w.organizationId, site.id, { title: 'G', sections: ['noSuch'] }), 400);
      expectError(await addGroup(w.editor, w.organizationId, site.id, { title: 'G' }), 403);
    });
  });

  describe('listSiteSectionGroups', () => {
    it('lists groups in order and pages; another organization gets 404', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const a = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'A' }));
      const b = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'B' }));
      const first = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: { ...sitePath(w.organizationId, site.id), query: { limit: 1 } } }));
      const second = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: { ...sitePath(w.organizationId, site.id), query: { limit: 1, page: first.next!.page } } }));
      expect([...first.items, ...second.items].map((group) => group.id)).toEqual([a.id, b.id]);
      expectError(await w.other.client.GET('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: sitePath(w.organizationId, site.id) }), 404);
    });
  });

  describe('updateSiteSectionGroupById', () => {
    it('answers a patch with nothing to set (200) with the group unchanged', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const group = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'A', icon: 'star' }));
      const unchanged = await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionGroupId: group.id } }, body: {} }));
      expect(unchanged).toEqual(group);
      expect((await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: sitePath(w.organizationId, site.id) }))).items).toEqual([group]);
    });

    it('changes the title and icon', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const group = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'A', icon: 'star' }));
      const patch = (client: QuireClient, body: Record<string, unknown>) => client.PATCH('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionGroupId: group.id } }, body: body as never });
      const changed = await unwrap(patch(w.admin, { title: 'Renamed', icon: null }));
      expect(changed.title).toBe('Renamed');
      expect(changed.icon).toBeUndefined();
      expectError(await patch(w.admin, { title: '' }), 400);
      expectError(await patch(w.admin, { icon: 'x'.repeat(51) }), 400);
      expectError(await patch(w.reader, { title: 'Mine' }), 403);
    });

    it('moves a group under another one and back to the root, never into itself or its descendants', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const a = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'A' }));
      const b = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'B', parent: a.id }));
      const c = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'C', parent: b.id }));
      const patch = (id: string, body: Record<string, unknown>) => w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionGroupId: id } }, body: body as never });
      expectError(await patch(a.id, { parentSectionGroupId: a.id }), 400, /itself/);
      expectError(await patch(a.id, { parentSectionGroupId: c.id }), 400, /itself/);
      expectError(await patch(a.id, { parentSectionGroupId: 'noSuch' }), 400);
      expect((await unwrap(patch(c.id, { parentSectionGroupId: a.id }))).sectionGroup).toBe(a.id);
      expect((await unwrap(patch(b.id, { parentSectionGroupId: null }))).sectionGroup).toBeUndefined();
      const content = await unwrap(published(w.admin, w.organizationId, site.id));
      // Without sections the site shows its site spaces; the groups' nesting shows in the groups list.
      expect(content.structure.type).toBe('siteSpaces');
      const groups = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: sitePath(w.organizationId, site.id) }));
      expect(groups.items.find((group) => group.id === a.id)!.children.map((child) => child.id)).toEqual([c.id]);
      expect(groups.items.find((group) => group.id === b.id)!.children).toEqual([]);
    });
  });

  describe('deleteSiteSectionGroupById', () => {
    it('deletes the group; its sections and groups go to the level it was at', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const one = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      const outer = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'Outer' }));
      const inner = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'Inner', parent: outer.id, sections: [one.id] }));
      const remove = (id: string) => w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionGroupId: id } } });
      expect((await remove(inner.id)).response.status).toBe(204);
      const sections = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }));
      expect(sections.items[0]!.sectionGroup).toBe(outer.id);
      expect((await remove(outer.id)).response.status).toBe(204);
      expect((await remove(outer.id)).response.status).toBe(204);
      const after = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }));
      expect(after.items[0]!.sectionGroup).toBeUndefined();
    });
  });

  describe('addSectionToGroup', () => {
    it('moves a section into the group (201 with the group)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const one = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      const group = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'G' }));
      const add = (body: Record<string, unknown>) => w.admin.POST('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionGroupId: group.id } }, body: body as never });
      const added = await add({ sectionId: one.id });
      expect(added.response.status).toBe(201);
      expect(added.data!.children.map((child) => child.id)).toEqual([one.id]);
      expect((await unwrap(add({ sectionId: one.id }))).children.map((child) => child.id)).toEqual([one.id]);
      expectError(await add({ sectionId: 'noSuch' }), 400);
    });
  });

  describe('removeSectionFromGroup', () => {
    it('takes the section out of the group (204, also when it was not part of it)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const one = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceA.id }));
      const group = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'G', sections: [one.id] }));
      const remove = (client: QuireClient) => client.DELETE('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, siteSectionGroupId: group.id, siteSectionId: one.id } } });
      expectError(await remove(w.editor), 403);
      expect((await remove(w.admin)).response.status).toBe(204);
      expect((await remove(w.admin)).response.status).toBe(204);
      const sections = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: sitePath(w.organizationId, site.id) }));
      expect(sections.items[0]!.sectionGroup).toBeUndefined();
    });
  });

  describe('createSiteShareLink', () => {
    it('makes an active link whose address carries a key of at least 128 bits, shown only to admins', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { visibility: 'share-link', spaces: [w.spaceA.id] }));
      const before = await unwrap(createLink(w.admin, w.organizationId, site.id, 'Partner'));
      expect(before).toMatchObject({ object: 'share-link', name: 'Partner', active: true });
      expect(before.urls.published).toBeUndefined();
      await unwrap(publish(w.admin, w.organizationId, site.id));
      const link = await unwrap(createLink(w.admin, w.organizationId, site.id, 'Auditor'));
      const key = new URL(link.urls.published!).searchParams.get('shareKey')!;
      expect(Buffer.from(key, 'base64url').length).toBeGreaterThanOrEqual(16);
      expect(link.urls.published).toBe(`${base(site)}/sites/${site.id}?shareKey=${key}`);
      // Storage is the subject here: the key is kept only as its hash and sealed, never in clear.
      const stored = await storedText(server, ['site_share_links']);
      expect(stored).not.toContain(key);
      expect(stored).toContain(createHash('sha256').update(key).digest('hex'));
      expectError(await createLink(w.editor, w.organizationId, site.id, 'Mine'), 403);
      expectError(await createLink(w.admin, w.organizationId, site.id, ''), 400);
      expectError(await createLink(w.admin, w.organizationId, site.id, 'x'.repeat(51)), 400);
    });
  });

  describe('listSiteShareLinks', () => {
    it('lists the links with their keys to admins only', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { visibility: 'share-link' }));
      await unwrap(publish(w.admin, w.organizationId, site.id));
      const a = await unwrap(createLink(w.admin, w.organizationId, site.id, 'A'));
      const b = await unwrap(createLink(w.admin, w.organizationId, site.id, 'B'));
      const list = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/share-links', { params: sitePath(w.organizationId, site.id) }));
      expect(list.items).toEqual([a, b]);
      expectError(await w.reader.GET('/orgs/{organizationId}/sites/{siteId}/share-links', { params: sitePath(w.organizationId, site.id) }), 403);
      expectError(await w.other.client.GET('/orgs/{organizationId}/sites/{siteId}/share-links', { params: sitePath(w.organizationId, site.id) }), 404);
    });
  });

  describe('updateSiteShareLinkById', () => {
    it('renames and deactivates a link, keeping its key', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { visibility: 'share-link' }));
      await unwrap(publish(w.admin, w.organizationId, site.id));
      const link = await unwrap(createLink(w.admin, w.organizationId, site.id, 'A'));
      const patch = (client: QuireClient, body: Record<string, unknown>) => client.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, shareLinkId: link.id } }, body: body as never });
      const changed = await unwrap(patch(w.admin, { name: 'Renamed', active: false }));
      expect(changed).toMatchObject({ name: 'Renamed', active: false, urls: link.urls });
      expectError(await patch(w.admin, {}), 400);
      expectError(await patch(w.admin, { name: '' }), 400);
      expectError(await patch(w.reader, { active: true }), 403);
    });
  });

  describe('deleteSiteShareLinkById', () => {
    it('deletes the link (204, also when absent)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { visibility: 'share-link' }));
      const link = await unwrap(createLink(w.admin, w.organizationId, site.id, 'A'));
      const remove = (client: QuireClient) => client.DELETE('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, shareLinkId: link.id } } });
      expectError(await remove(w.reader), 403);
      expect((await remove(w.admin)).response.status).toBe(204);
      expect((await remove(w.admin)).response.status).toBe(204);
      expect((await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/share-links', { params: sitePath(w.organizationId, site.id) }))).count).toBe(0);
    });
  });

  describe('getPublishedContentSite', () => {
    it('answers the site spaces at the root of a site without sections, and sections and groups otherwise', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id] }));
      const flat = await unwrap(published(w.reader, w.organizationId, site.id));
      expect(flat).toMatchObject({ object: 'published-content-site', site: { id: site.id }, structure: { type: 'siteSpaces' }, customizations: { site: { styling: { theme: 'clean' }, themes: { default: 'light' } }, siteSpaces: {} }, scripts: [] });
      expect(flat.structure.structure.map((item) => item.id)).toHaveLength(1);
      const section = await unwrap(addSection(w.admin, w.organizationId, site.id, { spaceId: w.spaceB.id, title: 'Main' }));
      const group = await unwrap(addGroup(w.admin, w.organizationId, site.id, { title: 'Group' }));
      await unwrap(publish(w.admin, w.organizationId, site.id));
      const structured = await unwrap(published(w.reader, w.organizationId, site.id));
      expect(structured.structure.type).toBe('sections');
      expect(structured.structure.structure.map((item) => [item.object, item.id])).toEqual([['site-section', section.id], ['site-section-group', group.id]]);
      const first = structured.structure.structure[0] as components['schemas']['SiteSection'];
      expect(first.urls.published).toBe(`${base(site)}/sites/${site.id}/main`);
      expect(first.siteSpaces.map((item) => item.urls.published)).toEqual([`${base(site)}/sites/${site.id}/main/guides`, `${base(site)}/sites/${site.id}/main/api-reference`]);
      expect(Object.keys(structured.customizations.siteSpaces)).toHaveLength(2);
      expectError(await published(w.reader, w.organizationId, 'noSuchSite'), 404);
    });

    it('opens to outsiders only published sites their visibility lets through; share-link sites only with an active key of their own', async () => {
      const w = await world();
      const outsider = w.other.client;
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id] }));
      expectError(await published(outsider, w.organizationId, site.id), 404);
      await unwrap(publish(w.admin, w.organizationId, site.id));
      expect((await unwrap(published(outsider, w.organizationId, site.id))).site.id).toBe(site.id);
      await unwrap(update(w.admin, w.organizationId, site.id, { visibility: 'share-link' }));
      expectError(await published(outsider, w.organizationId, site.id), 404);
      const link = await unwrap(createLink(w.admin, w.organizationId, site.id, 'Partner'));
      const key = new URL(link.urls.published!).searchParams.get('shareKey')!;
      const opened = await unwrap(published(outsider, w.organizationId, site.id, key));
      const [siteSpace] = opened.structure.structure as Array<components['schemas']['SiteSpace']>;
      expect(siteSpace!.urls.published).toBe(`${base(site)}/sites/${site.id}/guides?shareKey=${key}`);
      expect((await unwrap(siteSpaces(outsider, w.organizationId, site.id, { shareKey: key }))).count).toBe(1);
      expectError(await siteSpaces(outsider, w.organizationId, site.id), 404);
      // Made up, another site's, inactive, deleted: all answer as if there were no site.
      expectError(await published(outsider, w.organizationId, site.id, 'made-up-key'), 404);
      const otherSite = await unwrap(create(w.admin, w.organizationId, { visibility: 'share-link' }));
      await unwrap(publish(w.admin, w.organizationId, otherSite.id));
      const otherLink = await unwrap(createLink(w.admin, w.organizationId, otherSite.id, 'Elsewhere'));
      expectError(await published(outsider, w.organizationId, site.id, new URL(otherLink.urls.published!).searchParams.get('shareKey')!), 404);
      const linkPath = { path: { organizationId: w.organizationId, siteId: site.id, shareLinkId: link.id } };
      await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: linkPath, body: { active: false } }));
      expectError(await published(outsider, w.organizationId, site.id, key), 404);
      expectError(await siteSpaces(outsider, w.organizationId, site.id, { shareKey: key }), 404);
      await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: linkPath, body: { active: true } }));
      expect((await published(outsider, w.organizationId, site.id, key)).response.status).toBe(200);
      await w.admin.DELETE('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: linkPath });
      expectError(await published(outsider, w.organizationId, site.id, key), 404);
      // Members still read their site, published or not.
      expect((await published(w.reader, w.organizationId, site.id)).response.status).toBe(200);
    });
  });

  const schemaPath = (organizationId: string, siteId: string) => ({ path: { organizationId, siteId } });
  const validSchema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      unsigned: {
        type: 'object', description: 'Unsigned claims of the site visitor.', additionalProperties: false,
        properties: { beta: { type: 'boolean', description: 'Beta tester' }, language: { type: 'string', enum: ['en', 'fr'], description: 'Language' } },
      },
      isPro: { type: 'boolean', description: 'Pro customer' },
      account: { type: 'object', description: 'Account', additionalProperties: false, properties: { seats: { type: 'number', description: 'Seats' } } },
    },
    additionalProperties: false,
  };

  describe('updateSiteAdaptiveSchema', () => {
    it('stores a valid draft-07 schema and answers it with its updatedAt', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const stored = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { params: schemaPath(w.organizationId, site.id), body: { jsonSchema: validSchema as never } }));
      expect(stored).toMatchObject({ object: 'site-adaptive-schema', jsonSchema: validSchema });
      expect(Date.parse(stored.updatedAt)).not.toBeNaN();
    });

    it('refuses what is not a draft-07 schema or breaks the rules (400 naming it), and non-admins (403)', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const put = (client: QuireClient, jsonSchema: unknown) => client.PUT('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { params: schemaPath(w.organizationId, site.id), body: { jsonSchema } as never });
      const withClaim = (claim: unknown) => ({ ...validSchema, properties: { ...validSchema.properties, extra: claim } });
      for (const [jsonSchema, message] of [
        [{ ...validSchema, type: 'array' }, /type/],
        [{ ...validSchema, additionalProperties: true }, /additionalProperties/],
        [{ ...validSchema, properties: { ...validSchema.properties, unsigned: { ...validSchema.properties.unsigned, additionalProperties: true } } }, /additionalProperties/],
        [{ ...validSchema, properties: { ...validSchema.properties, unsigned: { ...validSchema.properties.unsigned, description: 'Other' } } }, /description/],
        [withClaim({ type: 'boolean' }), /description/],
        [withClaim({ type: 'date', description: 'When' }), /jsonSchema/],
        [withClaim({ type: 'boolean', description: 'x', default: true }), /jsonSchema/],
        [{ ...validSchema, properties: { ...validSchema.properties, 'not-a-name': { type: 'boolean', description: 'x' } } }, /property name|pattern/],
        [{ ...validSchema, $schema: 'http://json-schema.org/draft-04/schema#' }, /schema/],
        [{ ...validSchema, required: 'isPro' }, /jsonSchema/],
      ] as Array<[unknown, RegExp]>) {
        expectError(await put(w.admin, jsonSchema), 400, message);
      }
      expectError(await w.admin.GET('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { params: schemaPath(w.organizationId, site.id) }), 404);
      expectError(await put(w.editor, validSchema), 403);
      expectError(await put(w.other.client, validSchema), 404);
    });
  });

  describe('getSiteAdaptiveSchema', () => {
    it('answers the stored schema to admins, 404 when there is none, 403 below admin', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId));
      const get = (client: QuireClient) => client.GET('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { params: schemaPath(w.organizationId, site.id) });
      expectError(await get(w.admin), 404);
      const stored = await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { params: schemaPath(w.organizationId, site.id), body: { jsonSchema: validSchema as never } }));
      expect(await unwrap(get(w.admin))).toEqual(stored);
      expectError(await get(w.reader), 403);
      expectError(await get(w.other.client), 404);
    });
  });

  describe('listSiteAdaptiveTemplateConditions', () => {
    it('derives one condition per claim, each usable as a site-space condition; empty without a schema', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { spaces: [w.spaceA.id] }));
      const list = (client: QuireClient) => unwrap(client.GET('/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions', { params: schemaPath(w.organizationId, site.id) }));
      expect((await list(w.reader)).items).toEqual([]);
      await unwrap(w.admin.PUT('/orgs/{organizationId}/sites/{siteId}/adaptive-schema', { params: schemaPath(w.organizationId, site.id), body: { jsonSchema: validSchema as never } }));
      const { items } = await list(w.reader);
      expect(items.map((item) => item.condition)).toEqual(['visitor.claims.unsigned.beta', 'visitor.claims.unsigned.language == "en"', 'visitor.claims.isPro', 'visitor.claims.account.seats > 0']);
      expect(items[0]!.description).toBe('Beta tester');
      const [siteSpace] = (await unwrap(siteSpaces(w.admin, w.organizationId, site.id))).items;
      for (const { condition } of items) {
        await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, siteSpace!.id), body: { condition } }));
      }
      expectError(await w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, siteSpace!.id), body: { condition: 'visitor.claims.unsigned.betta' } }), 400, /visitor\.claims\.unsigned\.betta/);
      expectError(await w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: siteSpacePath(w.organizationId, site.id, siteSpace!.id), body: { condition: 'visitor.claims.isPro.deeper' } }), 400);
      expectError(await w.other.client.GET('/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions', { params: schemaPath(w.organizationId, site.id) }), 404);
    });
  });

  describe('getSpaceById with a shareKey', () => {
    it('resolves the published address of the space on the share-link site of an active key, and nothing otherwise', async () => {
      const w = await world();
      const site = await unwrap(create(w.admin, w.organizationId, { visibility: 'share-link', spaces: [w.spaceA.id] }));
      await unwrap(publish(w.admin, w.organizationId, site.id));
      const link = await unwrap(createLink(w.admin, w.organizationId, site.id, 'Partner'));
      const key = new URL(link.urls.published!).searchParams.get('shareKey')!;
      const getSpace = (spaceId: string, shareKey?: string) => unwrap(w.reader.GET('/spaces/{spaceId}', { params: { path: { spaceId }, query: shareKey === undefined ? {} : { shareKey } } }));
      expect((await getSpace(w.spaceA.id, key)).urls.published).toBe(`${base(site)}/sites/${site.id}/guides?shareKey=${key}`);
      expect((await getSpace(w.spaceA.id)).urls.published).toBeUndefined();
      expect((await getSpace(w.spaceA.id, 'made-up')).urls.published).toBeUndefined();
      expect((await getSpace(w.spaceB.id, key)).urls.published).toBeUndefined();
      await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}', { params: { path: { organizationId: w.organizationId, siteId: site.id, shareLinkId: link.id } }, body: { active: false } }));
      expect((await getSpace(w.spaceA.id, key)).urls.published).toBeUndefined();
    });
  });
});
