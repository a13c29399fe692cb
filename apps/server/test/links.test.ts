import { unwrap, type QuireClient } from '@quire/client';
import type { ContentLinkList, ContentReferenceUsage } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, type TestOrg, useTestServer } from './helpers.js';
import { contentFixtures, crPath, md } from './content-fixtures.js';
import { storedLinks } from './storage-facts.js';

const PUBLIC_URL = 'https://docs.example.com';

describeEachDialect('links and backlinks', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });
  const f = contentFixtures(() => server);

  /**
   * Home links to a page, a file (as an image), an outside URL, a URL of the app, a deleted page, a path
   * that names no page and a deleted file; Guide links back to Home and to the same outside URL.
   */
  async function linkedSpace(org: TestOrg) {
    const space = await createSpace(org);
    const update = await f.editMain(org, space.id, [
      { operation: 'insert_files', files: [{ name: 'logo.png', base64: Buffer.from('not really a png').toString('base64'), ref: 'logo' }] },
      { operation: 'insert_page', title: 'Guide', document: md('Read [the docs](https://example.com/docs).'), ref: 'guide' },
      { operation: 'insert_page', title: 'Home', ref: 'home', document: md([
        'See the [guide](ref:guide) and ![logo](ref:logo).',
        'Outside: [docs](https://example.com/docs). App: [space](' + PUBLIC_URL + '/o/org/s/space).',
        'Broken: [old](/pages/deletedPage), [lost](no-such-page), [file](/files/deletedFile).',
        'Anchor: [here](#top).',
      ].join('\n\n')) },
      { operation: 'update_page', page: 'guide', document: md('Read [the docs](https://example.com/docs) and go [home](ref:home).') },
      { operation: 'insert_page', title: 'Lonely', document: md('No links here.'), ref: 'lonely' },
    ]);
    return {
      space,
      home: f.pageOf(update, 'home'),
      guide: f.pageOf(update, 'guide'),
      lonely: f.pageOf(update, 'lonely'),
      logo: update.insertedFiles![0]!.id,
    };
  }

  async function spaceLinks(client: QuireClient, spaceId: string, query: { status?: 'ok' | 'broken' | 'in-app'; limit?: number; page?: string } = {}): Promise<ContentLinkList> {
    return unwrap(client.GET('/spaces/{spaceId}/links', { params: { path: { spaceId }, query } }));
  }

  async function allItems(list: (page?: string) => Promise<ContentLinkList>): Promise<ContentReferenceUsage[]> {
    const items: ContentReferenceUsage[] = [];
    let page: string | undefined;
    do {
      const answer = await list(page);
      items.push(...answer.items);
      page = answer.next?.page;
    } while (page);
    return items;
  }

  /** The id of an embedded object (organization, space, revision, page, file), or the id a broken target has instead. */
  const idOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? (value as { id: unknown }).id : value);

  /**
   * A location with its embedded objects reduced to their ids, for comparing lists; what the objects hold is
   * checked once ('embeds the organization, space, revision, page and file objects...').
   */
  function idsOf(location: unknown): Record<string, unknown> {
    const { versionContext, ...rest } = location as Record<string, unknown> & { versionContext?: { type: string; revision: unknown } };
    const reduced: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rest)) reduced[key] = ['organization', 'space', 'page', 'file'].includes(key) ? idOf(value) : value;
    if (versionContext) reduced.versionContext = { type: versionContext.type, revision: idOf(versionContext.revision) };
    return reduced;
  }

  function usageIds(item: ContentReferenceUsage): Record<string, unknown> {
    return { ...item, targetReference: idsOf(item.targetReference), locationReferences: item.locationReferences.map(idsOf) };
  }

  /** A short name of a link target, for comparing lists. */
  function targetName(item: ContentReferenceUsage, ids: Record<string, unknown>): string {
    const target = item.targetReference;
    const named = (id: string) => Object.entries(ids).find(([, value]) => value === id)?.[0] ?? id;
    switch (target.kind) {
      case 'page':
        return `page:${named(idOf(target.page) as string)}`;
      case 'file':
        return `file:${named(idOf(target.file) as string)}`;
      case 'url':
        return `url:${target.url}`;
      default:
        return target.kind;
    }
  }

  describe('listSpaceLinks', () => {
    it('lists every link target with its status, relation, target and the pages using it, and counts them', async () => {
      const org = await newOrg(server);
      const ids = await linkedSpace(org);
      const { space, home, guide } = ids;
      const current = await f.getSpace(org.client, space.id);
      const list = await spaceLinks(org.client, space.id);
      expect(list.stats).toEqual({ total: 8, broken: { total: 3 } });
      expect(list.count).toBe(8);
      expect(list.next).toBeUndefined();
      const byName = new Map(list.items.map((item) => [targetName(item, ids), item]));
      expect([...byName.keys()].sort()).toEqual([
        'file:deletedFile', 'file:logo', 'page:deletedPage', 'page:guide', 'page:home',
        `url:${PUBLIC_URL}/o/org/s/space`, 'url:https://example.com/docs', 'url:no-such-page',
      ]);
      const location = (page: string) => ({ kind: 'page', organization: org.organizationId, space: space.id, versionContext: { type: 'revision', revision: current.revision }, page });
      expect(usageIds(byName.get('page:guide')!)).toEqual({ status: 'ok', relation: 'reference', targetReference: location(guide), locationReferences: [location(home)] });
      expect(usageIds(byName.get('file:logo')!)).toEqual({
        status: 'ok', relation: 'reference',
        targetReference: { kind: 'file', organization: org.organizationId, space: space.id, versionContext: { type: 'revision', revision: current.revision }, file: ids.logo },
        locationReferences: [location(home)],
      });
      const outside = byName.get('url:https://example.com/docs')!;
      expect(outside).toMatchObject({ status: 'ok', targetReference: { kind: 'url', url: 'https://example.com/docs' } });
      expect(outside.locationReferences.map((item) => idsOf(item).page as string).sort()).toEqual([guide, home].sort());
      expect(byName.get(`url:${PUBLIC_URL}/o/org/s/space`)!.status).toBe('in-app');
      for (const broken of ['page:deletedPage', 'url:no-such-page', 'file:deletedFile']) expect(byName.get(broken)!.status).toBe('broken');
    });

    it('embeds the organization, space, revision, page and file objects, as the public API does, and a broken target by its id', async () => {
      const org = await newOrg(server);
      const ids = await linkedSpace(org);
      const current = await f.getSpace(org.client, ids.space.id);
      const list = await spaceLinks(org.client, ids.space.id);
      const byName = new Map(list.items.map((item) => [targetName(item, ids), item]));
      const guide = byName.get('page:guide')!.targetReference as Record<string, any>;
      expect(guide.organization).toMatchObject({ object: 'organization', id: org.organizationId, plan: expect.any(String), trial: { status: 'notapplicable', count: 0 } });
      expect(guide.space).toMatchObject({ object: 'space', id: ids.space.id });
      expect(guide.versionContext).toMatchObject({ type: 'revision', revision: { object: 'revision', id: current.revision } });
      expect(guide.page).toMatchObject({ id: ids.guide, title: 'Guide', type: 'document', kind: 'sheet' });
      expect((byName.get('file:logo')!.targetReference as Record<string, any>).file).toMatchObject({ id: ids.logo, downloadURL: expect.any(String) });
      expect((byName.get('page:deletedPage')!.targetReference as Record<string, any>).page).toBe('deletedPage');
      expect((byName.get('file:deletedFile')!.targetReference as Record<string, any>).file).toBe('deletedFile');
      expect((byName.get('page:guide')!.locationReferences[0] as Record<string, any>).page).toMatchObject({ id: ids.home });
    });

    it('filters by status without changing the stats', async () => {
      const org = await newOrg(server);
      const { space } = await linkedSpace(org);
      const broken = await spaceLinks(org.client, space.id, { status: 'broken' });
      expect(broken.items.map((item) => item.status)).toEqual(['broken', 'broken', 'broken']);
      expect(broken.count).toBe(3);
      expect(broken.stats).toEqual({ total: 8, broken: { total: 3 } });
      expect((await spaceLinks(org.client, space.id, { status: 'in-app' })).count).toBe(1);
      expect((await spaceLinks(org.client, space.id, { status: 'ok' })).count).toBe(4);
    });

    it('pages through the links, and a cursor still holds once the content moved on', async () => {
      const org = await newOrg(server);
      const ids = await linkedSpace(org);
      const all = (await spaceLinks(org.client, ids.space.id)).items.map((item) => targetName(item, ids));
      const first = await spaceLinks(org.client, ids.space.id, { limit: 3 });
      expect(first.items).toHaveLength(3);
      expect(first.next).toBeDefined();
      await f.editMain(org, ids.space.id, [{ operation: 'insert_page', title: 'More', document: md('[a](https://a.example) [b](https://b.example) [c](https://c.example)') }]);
      const rest = await allItems(async (page) => spaceLinks(org.client, ids.space.id, { limit: 3, page: page ?? first.next!.page }));
      const seen = [...first.items, ...rest].map((item) => targetName(item, ids));
      expect(new Set(seen).size).toBe(seen.length);
      for (const name of all) expect(seen).toContain(name);
      expect((await spaceLinks(org.client, ids.space.id)).stats.total).toBe(11);
    });

    it('answers an empty list for a space without links', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      expect(await spaceLinks(org.client, space.id)).toEqual({ count: 0, items: [], stats: { total: 0, broken: { total: 0 } } });
    });

    it('works out the links of a revision once and keeps them', async () => {
      const org = await newOrg(server);
      const { space } = await linkedSpace(org);
      const current = await f.getSpace(org.client, space.id);
      // Storage is the subject: the first read works out the links and keeps them, later reads reuse them.
      expect(await storedLinks(server, current.revision)).toBeUndefined();
      await spaceLinks(org.client, space.id);
      const kept = await storedLinks(server, current.revision);
      expect(kept?.set).toMatchObject({ total: 8, broken: 3 });
      expect(kept?.rows).toBe(9);
      await spaceLinks(org.client, space.id, { status: 'broken' });
      expect((await storedLinks(server, current.revision))?.set.computed_at).toBe(kept!.set.computed_at);
    });

    it('refuses bad queries and answers the access errors', async () => {
      const org = await newOrg(server);
      const { space } = await linkedSpace(org);
      const list = (client: QuireClient, query: Record<string, unknown> = {}) => client.GET('/spaces/{spaceId}/links', { params: { path: { spaceId: space.id }, query: query as never } });
      expectError(await list(org.client, { limit: 1001 }), 400, /limit/);
      expectError(await list(org.client, { status: 'dead' }), 400, /status/);
      expectError(await list(org.client, { page: 'bogus' }), 400, /page/);
      expectError(await list(org.client, { kind: 'page' }), 400, /kind/);
      expectError(await list(server.client()), 401);
      expectError(await list((await newOrg(server, 'Other')).client), 404);
      expectError(await list((await newMember(server, org, null)).client), 404);
      expect((await list((await newMember(server, org, 'read')).client)).response.status).toBe(200);
    });
  });

  describe('listPageLinksInSpace', () => {
    it('lists the links of one page, with stats of that page', async () => {
      const org = await newOrg(server);
      const ids = await linkedSpace(org);
      const list = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: ids.space.id, pageId: ids.guide } } }));
      expect(list.items.map((item) => targetName(item, ids)).sort()).toEqual(['page:home', 'url:https://example.com/docs']);
      expect(list.stats).toEqual({ total: 2, broken: { total: 0 } });
      // Only this page is listed as a location, though another page links to the same URL.
      expect(list.items.every((item) => item.locationReferences.length === 1 && idsOf(item.locationReferences[0]).page === ids.guide)).toBe(true);
      const home = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: ids.space.id, pageId: ids.home }, query: { status: 'broken', limit: 2 } } }));
      expect(home.items).toHaveLength(2);
      expect(home.count).toBe(3);
      expect(home.stats).toEqual({ total: 7, broken: { total: 3 } });
      const rest = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: ids.space.id, pageId: ids.home }, query: { status: 'broken', limit: 2, page: home.next!.page } } }));
      expect(rest.items).toHaveLength(1);
      expect(rest.next).toBeUndefined();
      const lonely = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: ids.space.id, pageId: ids.lonely } } }));
      expect(lonely).toEqual({ count: 0, items: [], stats: { total: 0, broken: { total: 0 } } });
    });

    it('answers 404 for an unknown page and the access errors', async () => {
      const org = await newOrg(server);
      const { space, guide } = await linkedSpace(org);
      const list = (client: QuireClient, pageId = guide, query: Record<string, unknown> = {}) =>
        client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: space.id, pageId }, query: query as never } });
      expectError(await list(org.client, 'missing'), 404, 'No page matches this id');
      expectError(await list(org.client, guide, { limit: 5000 }), 400, /limit/);
      expectError(await list(org.client, guide, { status: 'fine' }), 400, /status/);
      expectError(await list(server.client()), 401);
      expectError(await list((await newOrg(server, 'Other')).client), 404);
    });
  });

  describe('listSpacePageBacklinks', () => {
    it('lists the pages linking to a page, page by page', async () => {
      const org = await newOrg(server);
      const ids = await linkedSpace(org);
      const { space, home, guide, lonely } = ids;
      const current = await f.getSpace(org.client, space.id);
      const location = (page: string) => ({ kind: 'page', organization: org.organizationId, space: space.id, versionContext: { type: 'revision', revision: current.revision }, page });
      const toGuide = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: guide } } }));
      expect({ ...toGuide, items: toGuide.items.map(idsOf) }).toEqual({ count: 1, items: [location(home)] });
      const toHome = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: home } } }));
      expect(toHome.items.map(idsOf)).toEqual([location(guide)]);
      expect(await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: lonely } } }))).toEqual({ count: 0, items: [] });

      // More pages link to Lonely: listed one per page of results, without repeats.
      await f.editMain(org, space.id, ['A', 'B', 'C'].map((title) => ({ operation: 'insert_page' as const, title, document: md(`[lonely](/pages/${lonely}) and again [lonely](/pages/${lonely})`) })));
      const pages: string[] = [];
      let cursor: string | undefined;
      do {
        const answer = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: lonely }, query: { limit: 1, ...(cursor ? { page: cursor } : {}) } } }));
        expect(answer.count).toBe(3);
        expect(answer.items).toHaveLength(1);
        pages.push(idsOf(answer.items[0]).page as string);
        cursor = answer.next?.page;
      } while (cursor);
      expect(new Set(pages).size).toBe(3);
    });

    it('answers 404 for an unknown page, 400 for a bad query, and the access errors', async () => {
      const org = await newOrg(server);
      const { space, guide } = await linkedSpace(org);
      expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: 'missing' } } }), 404, 'No page matches this id');
      expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: guide }, query: { status: 'ok' } as never } }), 400, /status/);
      expectError(await server.client().GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: guide } } }), 401);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: guide } } }), 404);
    });
  });

  describe('listSpaceFileBacklinks', () => {
    it('lists the pages linking to a file', async () => {
      const org = await newOrg(server);
      const { space, home, logo } = await linkedSpace(org);
      const current = await f.getSpace(org.client, space.id);
      const toLogo = await unwrap(org.client.GET('/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: space.id, fileId: logo } } }));
      expect({ ...toLogo, items: toLogo.items.map(idsOf) }).toEqual({ count: 1, items: [{ kind: 'page', organization: org.organizationId, space: space.id, versionContext: { type: 'revision', revision: current.revision }, page: home }] });
    });

    it('answers 404 for an unknown file, 400 for a bad query, and the access errors', async () => {
      const org = await newOrg(server);
      const { space, logo } = await linkedSpace(org);
      expectError(await org.client.GET('/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: space.id, fileId: 'missing' } } }), 404, 'No file matches this id');
      expectError(await org.client.GET('/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: space.id, fileId: logo }, query: { limit: 0 } } }), 400, /limit/);
      expectError(await server.client().GET('/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: space.id, fileId: logo } } }), 401);
      expectError(await (await newOrg(server, 'Other')).client.GET('/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: space.id, fileId: logo } } }), 404);
    });
  });

  describe('change request links', () => {
    async function requestWithLinks(org: TestOrg) {
      const ids = await linkedSpace(org);
      const cr = await f.createCr(org.client, ids.space.id);
      const update = await f.editCr(org.client, ids.space.id, cr.id, [
        { operation: 'insert_page', title: 'New', ref: 'new', document: md(`New [broken](/pages/goneToo) and the old [old](/pages/deletedPage) and [guide](/pages/${ids.guide}).`) },
      ]);
      return { ...ids, cr, added: f.pageOf(update, 'new'), revision: update.changeRequest.revision };
    }

    // Reads change nothing, so the suites below share one space with one request.
    let shared: Promise<{ org: TestOrg } & Awaited<ReturnType<typeof requestWithLinks>>> | undefined;
    const sharedRequest = () => (shared ??= (async () => {
      const org = await newOrg(server);
      return { org, ...(await requestWithLinks(org)) };
    })());

    describe('listChangeRequestLinks', () => {
      it('counts the broken links the request brings in, by id or number, leaving the main content alone', async () => {
        const { org, ...ids } = await sharedRequest();
        const { space, cr } = ids;
        const list = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(space.id, cr.id) } }));
        expect(list.stats).toEqual({ total: 9, broken: { total: 4, changeRequest: 1 } });
        const newBroken = list.items.find((item) => targetName(item, ids) === 'page:goneToo')!;
        expect(idsOf(newBroken.targetReference)).toMatchObject({ versionContext: { type: 'revision', revision: ids.revision } });
        // The old broken link is now used by two pages: still one item, with both locations.
        expect(list.items.find((item) => targetName(item, ids) === 'page:deletedPage')!.locationReferences).toHaveLength(2);

        const byNumber = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(space.id, cr.number), query: { limit: 4 } } }));
        expect(byNumber.items).toHaveLength(4);
        expect(byNumber.count).toBe(9);
        // The main content knows nothing of the request.
        expect((await spaceLinks(org.client, space.id)).stats).toEqual({ total: 8, broken: { total: 3 } });
      });

      it('filters by status as the public API does, with stats still counting every link', async () => {
        const { org, ...ids } = await sharedRequest();
        const broken = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(ids.space.id, ids.cr.id), query: { status: 'broken' } } }));
        expect(broken.items).toHaveLength(4);
        expect(broken.items.every((item) => item.status === 'broken')).toBe(true);
        expect(broken.stats).toEqual({ total: 9, broken: { total: 4, changeRequest: 1 } });
        expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(ids.space.id, ids.cr.id), query: { status: 'gone' as never } } }), 400);
      });

      it('tells the broken links the request brings in (brokenContext=change-request) from all broken ones (space)', async () => {
        const { org, ...ids } = await sharedRequest();
        const list = (query: { brokenContext: 'change-request' | 'space'; status?: 'ok' | 'broken' }) =>
          unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(ids.space.id, ids.cr.id), query } }));
        const introduced = await list({ brokenContext: 'change-request' });
        expect(introduced.items.map((item) => targetName(item, ids))).toEqual(['page:goneToo']);
        expect(introduced.count).toBe(1);
        expect(introduced.stats).toEqual({ total: 9, broken: { total: 4, changeRequest: 1 } });
        const all = await list({ brokenContext: 'space' });
        expect(all.count).toBe(4);
        expect(all.items.every((item) => item.status === 'broken')).toBe(true);
        expect((await list({ brokenContext: 'space', status: 'ok' })).items).toEqual([]);
        expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(ids.space.id, ids.cr.id), query: { brokenContext: 'page' as never } } }), 400);
      });
    });

    describe('listPageLinksInChangeRequest', () => {
      it('lists the links of a page as the request has it, with the broken ones it brings in', async () => {
        const { org, ...ids } = await sharedRequest();
        const { space, cr, added } = ids;
        const pageList = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', { params: { path: { ...crPath(space.id, cr.id), pageId: added } } }));
        expect(pageList.stats).toEqual({ total: 3, broken: { total: 2, changeRequest: 1 } });
        expect(pageList.items.map((item) => targetName(item, ids)).sort()).toEqual(['page:deletedPage', 'page:goneToo', 'page:guide']);
        expectError(await org.client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: space.id, pageId: added } } }), 404);
      });
    });

    describe('listChangeRequestPageBacklinks', () => {
      it('lists the pages linking to a page as the content stands in the request', async () => {
        const { org, space, cr, added, guide, home, revision } = await sharedRequest();
        const location = (page: string) => ({ kind: 'page', organization: org.organizationId, space: space.id, versionContext: { type: 'revision', revision }, page });
        const toGuide = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/backlinks', { params: { path: { ...crPath(space.id, cr.id), pageId: guide } } }));
        expect(toGuide.count).toBe(2);
        expect(toGuide.items.map(idsOf)).toEqual(expect.arrayContaining([location(home), location(added)]));
        expect((await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: space.id, pageId: guide } } }))).count).toBe(1);
      });
    });

    describe('listChangeRequestFileBacklinks', () => {
      it('lists the pages linking to a file as the content stands in the request, by number as by id', async () => {
        const { org, space, cr, home, logo, revision } = await sharedRequest();
        const location = { kind: 'page', organization: org.organizationId, space: space.id, versionContext: { type: 'revision', revision }, page: home };
        for (const changeRequestId of [cr.id, cr.number]) {
          const toLogo = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', { params: { path: { ...crPath(space.id, changeRequestId), fileId: logo } } }));
          expect(toLogo.items.map(idsOf)).toEqual([location]);
        }
      });
    });

    it('answers 404 for unknown requests, pages and files, and the access errors', async () => {
      const org = await newOrg(server);
      const { space, cr, guide, logo } = await requestWithLinks(org);
      const other = await newOrg(server, 'Other');
      const calls = [
        (client: QuireClient, changeRequestId: string) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(space.id, changeRequestId) } }),
        (client: QuireClient, changeRequestId: string) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', { params: { path: { ...crPath(space.id, changeRequestId), pageId: guide } } }),
        (client: QuireClient, changeRequestId: string) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/backlinks', { params: { path: { ...crPath(space.id, changeRequestId), pageId: guide } } }),
        (client: QuireClient, changeRequestId: string) => client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', { params: { path: { ...crPath(space.id, changeRequestId), fileId: logo } } }),
      ];
      for (const call of calls) {
        expect((await call(org.client, cr.id)).response.status).toBe(200);
        expectError(await call(org.client, 'missing'), 404);
        expectError(await call(other.client, cr.id), 404);
        expectError(await call(server.client(), cr.id), 401);
      }
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', { params: { path: { ...crPath(space.id, cr.id), pageId: 'missing' } } }), 404);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', { params: { path: { ...crPath(space.id, cr.id), fileId: 'missing' } } }), 404);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(space.id, cr.id), query: { status: 'gone' } as never } }), 400, /status/);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/links', { params: { path: crPath(space.id, cr.id), query: { limit: 1001 } } }), 400, /limit/);
    });
  });
});
