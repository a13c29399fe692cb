import { unwrap, type QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from './dialects.js';
import { expectError, organizationWithPeople, useTestServer } from './helpers.js';

describeEachDialect('glossary', (dialect) => {
  const server = useTestServer({ dialect });
  const path = (organizationId: string) => ({ path: { organizationId } });
  const update = (client: QuireClient, organizationId: string, operations: unknown) =>
    client.PUT('/orgs/{organizationId}/translations-glossary', { params: path(organizationId), body: { operations } as never });
  const list = (client: QuireClient, organizationId: string, query: { page?: string; limit?: number } = {}) =>
    unwrap(client.GET('/orgs/{organizationId}/translations-glossary', { params: { ...path(organizationId), query: { limit: 1000, ...query } } }));

  describe('updateGlossaryEntries', () => {
    it('inserts, updates and deletes entries in order (204), keeps language tags canonical, lists and gets them', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Glossary org');
      const inserted = await update(admin.client, organizationId, [
        { type: 'insert', translations: { en: 'change request', fr: 'demande de modification', 'pt-br': 'solicitação de mudança' } },
        { type: 'insert', translations: { en: 'space', 'zh-hant-tw': '空間' } },
      ]);
      expect(inserted.response.status).toBe(204);
      const entries = await list(admin.client, organizationId);
      expect(entries.count).toBe(2);
      const [first, second] = entries.items;
      expect(first).toMatchObject({ object: 'glossary-entry', translations: { en: 'change request', fr: 'demande de modification', 'pt-BR': 'solicitação de mudança' } });
      expect(second!.translations).toEqual({ en: 'space', 'zh-Hant-TW': '空間' });
      expect(first!.urls.location).toMatch(new RegExp(`/v1/orgs/${organizationId}/translations-glossary/${first!.id}$`));

      await unwrap(update(admin.client, organizationId, [{ type: 'update', id: first!.id, translations: { en: 'change request', de: 'Änderungsanfrage' } }, { type: 'delete', id: second!.id }, { type: 'delete', id: 'alreadyGone' }]));
      const got = await unwrap(admin.client.GET('/orgs/{organizationId}/translations-glossary/{glossaryEntryId}', { params: { path: { organizationId, glossaryEntryId: first!.id } } }));
      expect(got.translations).toEqual({ en: 'change request', de: 'Änderungsanfrage' });
      expect(got.updatedAt >= got.createdAt).toBe(true);
      expectError(await admin.client.GET('/orgs/{organizationId}/translations-glossary/{glossaryEntryId}', { params: { path: { organizationId, glossaryEntryId: second!.id } } }), 404);

      const paged = await list(admin.client, organizationId, { limit: 1 });
      expect(paged.items).toHaveLength(1);
      expect(paged.next).toBeUndefined();
    });


    it('applies a batch all or nothing: an invalid operation answers 400 naming it and changes nothing', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Glossary org');
      await unwrap(update(admin.client, organizationId, [{ type: 'insert', translations: { en: 'site' } }]));
      const before = await list(admin.client, organizationId);
      const failing = await update(admin.client, organizationId, [
        { type: 'insert', translations: { en: 'new term' } },
        { type: 'update', id: before.items[0]!.id, translations: { en: 'docs site' } },
        { type: 'update', id: 'missingEntry', translations: { en: 'nothing' } },
      ]);
      expectError(failing, 400, /^body\.operations\[2\]/);
      expect(await list(admin.client, organizationId)).toEqual(before);
      for (const operations of [
        [], [{ type: 'insert', translations: {} }], [{ type: 'insert', translations: { en: '' } }], [{ type: 'insert', translations: { en: 'x'.repeat(256) } }],
        [{ type: 'insert', translations: { en: 'two\nlines' } }], [{ type: 'insert', translations: { 'not a tag': 'x' } }], [{ type: 'insert', translations: { 'en-US-x-': 'x' } }],
        [{ type: 'insert', translations: { 'en-us': 'x', 'en-US': 'y' } }], [{ type: 'rename', id: 'a' }], [{ type: 'delete' }],
        Array.from({ length: 1001 }, () => ({ type: 'insert', translations: { en: 'x' } })),
      ]) {
        expect((await update(admin.client, organizationId, operations)).response.status, JSON.stringify(operations).slice(0, 80)).toBe(400);
      }
      expect(await list(admin.client, organizationId)).toEqual(before);
    });


    it('lets only members who may edit content change it; other organizations get 404', async () => {
      const { organizationId, admin, people } = await organizationWithPeople(server, 'Glossary org', { editor: 'edit', reader: 'read', guest: null });
      const other = await organizationWithPeople(server, 'Other org');
      await unwrap(update(people.editor!.client, organizationId, [{ type: 'insert', translations: { en: 'member' } }]));
      expectError(await update(people.reader!.client, organizationId, [{ type: 'insert', translations: { en: 'no' } }]), 403);
      expectError(await update(people.guest!.client, organizationId, [{ type: 'insert', translations: { en: 'no' } }]), 403);
      const entry = (await list(people.guest!.client, organizationId)).items[0]!;
      expectError(await update(other.admin.client, organizationId, [{ type: 'delete', id: entry.id }]), 404);
      expectError(await other.admin.client.GET('/orgs/{organizationId}/translations-glossary', { params: path(organizationId) }), 404);
      expectError(await other.admin.client.GET('/orgs/{organizationId}/translations-glossary/{glossaryEntryId}', { params: { path: { organizationId, glossaryEntryId: entry.id } } }), 404);
      expectError(await other.admin.client.GET('/orgs/{organizationId}/translations-glossary/{glossaryEntryId}', { params: { path: { organizationId: other.organizationId, glossaryEntryId: entry.id } } }), 404);
      await unwrap(update(other.admin.client, other.organizationId, [{ type: 'delete', id: entry.id }]));
      expect((await list(admin.client, organizationId)).count).toBe(1);
    });
  });

  describe('listGlossaryEntries', () => {
    it('lists entries oldest first to every member, pages with limit, and answers 404 to other organizations', async () => {
      const { organizationId, admin, people } = await organizationWithPeople(server, 'Glossary org', { guest: null });
      const other = await organizationWithPeople(server, 'Other org');
      await unwrap(update(admin.client, organizationId, ['space', 'site', 'page'].map((en) => ({ type: 'insert', translations: { en } }))));
      const all = await list(people.guest!.client, organizationId);
      expect(all.items.map((item) => item.translations.en)).toEqual(['space', 'site', 'page']);
      const first = await list(admin.client, organizationId, { limit: 2 });
      expect(first.items).toEqual(all.items.slice(0, 2));
      expect((await list(admin.client, organizationId, { limit: 2, page: first.next!.page })).items).toEqual(all.items.slice(2));
      expectError(await admin.client.GET('/orgs/{organizationId}/translations-glossary', { params: { ...path(organizationId), query: { limit: 0 } } }), 400);
      // A cursor of another list, with text where the glossary's order has a number: 400, on PostgreSQL too.
      const foreignCursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'text', 'id'])).toString('base64url');
      expectError(await admin.client.GET('/orgs/{organizationId}/translations-glossary', { params: { ...path(organizationId), query: { page: foreignCursor } } }), 400, 'query.page is not a valid page cursor');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/translations-glossary', { params: path(organizationId) }), 404);
    });
  });

  describe('getGlossaryEntry', () => {
    it('answers one entry as the list does; 404 for unknown and deleted ids and from another organization', async () => {
      const { organizationId, admin } = await organizationWithPeople(server, 'Glossary org');
      const other = await organizationWithPeople(server, 'Other org');
      await unwrap(update(admin.client, organizationId, [{ type: 'insert', translations: { en: 'review', es: 'revisión' } }]));
      const [entry] = (await list(admin.client, organizationId)).items;
      const get = (client: QuireClient, organization: string, glossaryEntryId: string) =>
        client.GET('/orgs/{organizationId}/translations-glossary/{glossaryEntryId}', { params: { path: { organizationId: organization, glossaryEntryId } } });
      expect(await unwrap(get(admin.client, organizationId, entry!.id))).toEqual(entry);
      expectError(await get(admin.client, organizationId, 'missing'), 404);
      expectError(await get(other.admin.client, other.organizationId, entry!.id), 404);
      await unwrap(update(admin.client, organizationId, [{ type: 'delete', id: entry!.id }]));
      expectError(await get(admin.client, organizationId, entry!.id), 404);
    });
  });
});
