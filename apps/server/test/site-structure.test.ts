import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, organizationWithPeople, useTestServer } from './helpers.js';

/*
 * The structure of a docs site as one tree, and the moves of its items: sortSiteStructure for any item,
 * moveSiteSection and moveSiteSectionGroup (the deprecated forms) within a level.
 */
describeEachDialect('site structure', (dialect) => {
  const server = useTestServer({ dialect });

  /** A site with three sections (A, B, C, one space each) and an empty group G after them, and a lone site. */
  async function world() {
    const { organizationId, admin, people } = await organizationWithPeople(server, 'Structure org', { editor: 'edit', reader: 'read' });
    const org = { organizationId, client: admin.client };
    const spaces = await Promise.all(['Alpha', 'Beta', 'Gamma', 'Delta'].map((title) => createSpace(org, { title })));
    const site = await unwrap(admin.client.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title: 'Docs' } }));
    const params = { path: { organizationId, siteId: site.id } };
    const sections = [];
    for (const space of spaces.slice(0, 3)) sections.push(await unwrap(admin.client.POST('/orgs/{organizationId}/sites/{siteId}/sections', { params, body: { spaceId: space.id } })));
    const group = await unwrap(admin.client.POST('/orgs/{organizationId}/sites/{siteId}/section-groups', { params, body: { title: 'G' } }));
    const other = await newOrg(server, 'Other structure org');
    return { organizationId, admin: admin.client, editor: people.editor!.client, reader: people.reader!.client, other: other.client, site, params, sections, group, spaces };
  }
  type World = Awaited<ReturnType<typeof world>>;

  const structureOf = (client: QuireClient, w: World, query: { shareKey?: string } = {}) =>
    client.GET('/orgs/{organizationId}/sites/{siteId}/structure', { params: { ...w.params, query } });
  const sort = (client: QuireClient, w: World, body: Record<string, unknown>) =>
    client.PATCH('/orgs/{organizationId}/sites/{siteId}/structure/sort', { params: w.params, body: body as never });
  /** The ids of the root's items, groups with their children's ids. */
  async function rootOrder(w: World): Promise<unknown[]> {
    const structure = await unwrap(structureOf(w.admin, w));
    expect(structure.type).toBe('sections');
    const walk = (items: Array<{ id: string; object: string; children?: unknown[] }>): unknown[] =>
      items.map((item) => (item.object === 'site-section-group' ? { [item.id]: walk(item.children as never) } : item.id));
    return walk(structure.structure as never);
  }

  describe('getSiteStructure', () => {
    it('answers the sections and groups in order, or the root site spaces of a site without sections', async () => {
      const w = await world();
      const [a, b, c] = w.sections.map((section) => section.id);
      expect(await rootOrder(w)).toEqual([a, b, c, { [w.group.id]: [] }]);
      const fromReader = await unwrap(structureOf(w.reader, w));
      expect(fromReader.type).toBe('sections');
      expectError(await structureOf(w.other, w), 404);
      expectError(await structureOf(w.reader, w, { shareKey: 'no-such-key' }), 404);

      const lone = await unwrap(w.admin.POST('/orgs/{organizationId}/sites', { params: { path: { organizationId: w.organizationId } }, body: { title: 'Lone', spaces: [w.spaces[3]!.id] } }));
      const flat = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/structure', { params: { path: { organizationId: w.organizationId, siteId: lone.id } } }));
      expect(flat).toMatchObject({ type: 'siteSpaces', structure: [{ object: 'site-space', space: { id: w.spaces[3]!.id } }] });
      expectError(await w.admin.GET('/orgs/{organizationId}/sites/{siteId}/structure', { params: { path: { organizationId: w.organizationId, siteId: 'noSuchSite' } } }), 404);
    });

    it('carries a share link key in the published addresses', async () => {
      const w = await world();
      await unwrap(w.admin.PATCH('/orgs/{organizationId}/sites/{siteId}', { params: w.params, body: { visibility: 'share-link' } }));
      await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/publish', { params: w.params }));
      const link = await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/share-links', { params: w.params, body: { name: 'Partner' } }));
      const key = new URL(link.urls.published!).searchParams.get('shareKey')!;
      const structure = await unwrap(structureOf(w.reader, w, { shareKey: key }));
      expect(JSON.stringify(structure)).toContain(`shareKey=${key}`);
      const sections = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: { ...w.params, query: { shareKey: key } } }));
      expect(sections.items[0]!.urls.published).toContain(`shareKey=${key}`);
      expectError(await w.reader.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: { ...w.params, query: { shareKey: 'made-up' } } }), 404);
    });
  });

  describe('sortSiteStructure', () => {
    it('moves sections and groups within and across levels, and site spaces within theirs', async () => {
      const w = await world();
      const [a, b, c] = w.sections.map((section) => section.id);
      const g = w.group.id;
      const moved = await unwrap(sort(w.admin, w, { item: { type: 'site-section', id: c }, position: { before: { type: 'site-section', id: a } } }));
      expect(moved).toMatchObject({ object: 'site-section', id: c });
      expect(await rootOrder(w)).toEqual([c, a, b, { [g]: [] }]);
      await unwrap(sort(w.admin, w, { item: { type: 'site-section-group', id: g }, position: { after: { type: 'site-section', id: c } } }));
      expect(await rootOrder(w)).toEqual([c, { [g]: [] }, a, b]);
      await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections', { params: { path: { ...w.params.path, siteSectionGroupId: g } }, body: { sectionId: b! } }));
      // Pointing at a section of the group moves the item into the group.
      const into = await unwrap(sort(w.admin, w, { item: { type: 'site-section', id: a }, position: { before: { type: 'site-section', id: b } } }));
      expect(into).toMatchObject({ id: a, sectionGroup: g });
      expect(await rootOrder(w)).toEqual([c, { [g]: [a, b] }]);
      // No pointer: last at its own level.
      await unwrap(sort(w.admin, w, { item: { type: 'site-section', id: a }, position: {} }));
      expect(await rootOrder(w)).toEqual([c, { [g]: [b, a] }]);

      // Site spaces: a second one in section C, moved before the first.
      const second = await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: w.params, body: { spaceId: w.spaces[3]!.id, sectionId: c } }));
      const first = w.sections[2]!.siteSpaces[0]!;
      expect(await unwrap(sort(w.admin, w, { item: { type: 'site-space', id: second.id }, position: { before: { type: 'site-space', id: first.id } } }))).toMatchObject({ object: 'site-space', id: second.id });
      const sections = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: w.params }));
      expect(sections.items.find((section) => section.id === c)!.siteSpaces.map((siteSpace) => siteSpace.id)).toEqual([second.id, first.id]);
    });

    it('refuses what cannot be placed: 404 for an item the site lacks, 400 for a bad pointer, 403 below admin', async () => {
      const w = await world();
      const [a, b] = w.sections.map((section) => section.id);
      const g = w.group.id;
      const before = await rootOrder(w);
      expectError(await sort(w.admin, w, { item: { type: 'site-section', id: 'noSuch' }, position: {} }), 404);
      expectError(await sort(w.admin, w, { item: { type: 'site-space', id: 'noSuch' }, position: {} }), 404);
      expectError(await sort(w.admin, w, { item: { type: 'site-section', id: a }, position: { before: { type: 'site-section', id: 'noSuch' } } }), 400);
      expectError(await sort(w.admin, w, { item: { type: 'site-section', id: a }, position: { before: { type: 'site-space', id: w.sections[1]!.siteSpaces[0]!.id } } }), 400);
      expectError(await sort(w.admin, w, { item: { type: 'site-section', id: a }, position: { before: { type: 'site-section', id: b }, after: { type: 'site-section', id: b } } }), 400);
      expectError(await sort(w.admin, w, { item: { type: 'site-section', id: a }, position: { before: { type: 'site-section', id: a } } }), 400);
      // A site space stays in its section.
      expectError(await sort(w.admin, w, { item: { type: 'site-space', id: w.sections[0]!.siteSpaces[0]!.id }, position: { before: { type: 'site-space', id: w.sections[1]!.siteSpaces[0]!.id } } }), 400);
      // A group never goes into itself or one of its groups.
      const inner = await unwrap(w.admin.POST('/orgs/{organizationId}/sites/{siteId}/section-groups', { params: w.params, body: { title: 'Inner', parent: g } }));
      expectError(await sort(w.admin, w, { item: { type: 'site-section-group', id: g }, position: { before: { type: 'site-section-group', id: inner.id } } }), 400);
      expectError(await sort(w.editor, w, { item: { type: 'site-section', id: a }, position: {} }), 403);
      expectError(await sort(w.other, w, { item: { type: 'site-section', id: a }, position: {} }), 404);
      expect(await rootOrder(w)).toEqual([...before.slice(0, 3), { [g]: [{ [inner.id]: [] }] }]);
    });

    it('applies parallel moves one after the other: every answer documented, one item per place', async () => {
      const w = await world();
      const items = [...w.sections.map((section) => ({ type: 'site-section', id: section.id })), { type: 'site-section-group', id: w.group.id }];
      const moves = Array.from({ length: 16 }, (_, i) => {
        const item = items[i % items.length]!;
        const target = items[(i * 3 + 1) % items.length]!;
        return sort(w.admin, w, { item, position: target.id === item.id ? {} : { [i % 2 ? 'before' : 'after']: target } });
      });
      const answers = await Promise.all(moves);
      for (const answer of answers) expect([200, 400]).toContain(answer.response.status);
      expect(answers.filter((answer) => answer.response.status === 200).length).toBeGreaterThan(0);
      const order = await rootOrder(w);
      const ids = order.map((item) => (typeof item === 'string' ? item : Object.keys(item as object)[0]));
      expect(new Set(ids).size).toBe(items.length);
      expect([...ids].sort()).toEqual(items.map((item) => item.id).sort());
      // Positions are distinct: the listed order is the order the structure shows.
      const listed = await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/sections', { params: w.params }));
      expect(listed.items.map((section) => section.id)).toEqual(ids.filter((id) => id !== w.group.id));
    });
  });

  describe('moveSiteSection', () => {
    it('moves a section before or after another of its level, or last', async () => {
      const w = await world();
      const [a, b, c] = w.sections.map((section) => section.id);
      const move = (client: QuireClient, id: string, body?: Record<string, unknown>) =>
        client.POST('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move', { params: { path: { ...w.params.path, siteSectionId: id } }, ...(body ? { body: body as never } : {}) });
      expect(await unwrap(move(w.admin, c!, { position: { before: { type: 'site-section', siteSection: a } } }))).toMatchObject({ object: 'site-section', id: c });
      expect(await rootOrder(w)).toEqual([c, a, b, { [w.group.id]: [] }]);
      await unwrap(move(w.admin, c!));
      expect(await rootOrder(w)).toEqual([a, b, { [w.group.id]: [] }, c]);
      expectError(await move(w.admin, a!, { position: { after: { type: 'site-section', siteSection: 'noSuch' } } }), 400);
      expectError(await move(w.admin, 'noSuch', {}), 404);
      expectError(await move(w.editor, a!, {}), 403);
      expectError(await move(w.other, a!, {}), 404);
    });
  });

  describe('moveSiteSectionGroup', () => {
    it('moves a group among the sections and groups of its level', async () => {
      const w = await world();
      const [a, b, c] = w.sections.map((section) => section.id);
      const g = w.group.id;
      const move = (client: QuireClient, id: string, body?: Record<string, unknown>) =>
        client.POST('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move', { params: { path: { ...w.params.path, siteSectionGroupId: id } }, ...(body ? { body: body as never } : {}) });
      expect(await unwrap(move(w.admin, g, { position: { before: { type: 'site-section', id: a } } }))).toMatchObject({ object: 'site-section-group', id: g });
      expect(await rootOrder(w)).toEqual([{ [g]: [] }, a, b, c]);
      await unwrap(move(w.admin, g, { position: { after: { type: 'site-section', id: b } } }));
      expect(await rootOrder(w)).toEqual([a, b, { [g]: [] }, c]);
      expectError(await move(w.admin, g, { position: { after: { type: 'site-section-group', id: 'noSuch' } } }), 400);
      expectError(await move(w.admin, 'noSuch', {}), 404);
      expectError(await move(w.editor, g, {}), 403);
    });
  });

  describe('getSiteCustomizationById unmasked', () => {
    it('accepts unmasked and answers the whole settings either way', async () => {
      const w = await world();
      const plain = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/customization', { params: w.params }));
      const unmasked = await unwrap(w.reader.GET('/orgs/{organizationId}/sites/{siteId}/customization', { params: { ...w.params, query: { unmasked: true } } }));
      expect(unmasked).toEqual(plain);
      const siteSpaceId = w.sections[0]!.siteSpaces[0]!.id;
      const path = { path: { ...w.params.path, siteSpaceId } };
      expect(await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', { params: { ...path, query: { unmasked: true } } })))
        .toEqual(await unwrap(w.admin.GET('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization', { params: path })));
    });
  });
});
