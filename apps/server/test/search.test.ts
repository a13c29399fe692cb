import { unwrap, type QuireClient } from '@quire/client';
import type { SearchResultList } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { reindexSpaceSearch } from '../src/services/search-reindex.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, healthzWhile, newMember, newOrg, type TestOrg, useTestServer } from './helpers.js';
import { contentFixtures, md } from './content-fixtures.js';
import { searchIndexRevision } from './storage-facts.js';

const PUBLIC_URL = 'https://docs.example.com';

describeEachDialect('space search', (dialect) => {
  const server = useTestServer({ dialect, env: { QUIRE_PUBLIC_URL: PUBLIC_URL } });
  const f = contentFixtures(() => server);

  function search(client: QuireClient, spaceId: string, query: { query: string; limit?: number; page?: string }) {
    return client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId }, query } });
  }

  async function found(client: QuireClient, spaceId: string, query: string, limit?: number): Promise<SearchResultList> {
    return unwrap(search(client, spaceId, { query, ...(limit ? { limit } : {}) }));
  }

  /** Pages that mention "zephyr" in their title, in a heading, or only in their text; one nested two deep. */
  async function searchableSpace(org: TestOrg) {
    const space = await createSpace(org);
    const update = await f.editMain(org, space.id, [
      { operation: 'insert_page', title: 'Guides', document: md('All the guides.'), ref: 'guides' },
      { operation: 'insert_page', title: 'Advanced', document: md('Advanced topics.'), into: 'guides', ref: 'advanced' },
      { operation: 'insert_page', title: 'Weather', into: 'advanced', ref: 'body', document: md('Intro text.\n\n## Winds\n\nA zephyr is a gentle breeze.\n\n## Rain\n\nWet.') },
      { operation: 'insert_page', title: 'Breezes', ref: 'heading', document: md('Intro.\n\n## Zephyr\n\nSoft wind from the west.') },
      { operation: 'insert_page', title: 'Zephyr', ref: 'title', document: md('A page about something else entirely.') },
      { operation: 'insert_page', title: 'Other', ref: 'other', document: md('Nothing to see.') },
    ]);
    await f.runJobs();
    return { space, ids: Object.fromEntries(['guides', 'advanced', 'body', 'heading', 'title', 'other'].map((ref) => [ref, f.pageOf(update, ref)])) as Record<string, string> };
  }

  describe('searchSpaceContent', () => {
    it('keeps /healthz answering within 100 ms (p95) while the largest allowed page is indexed', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      // Few sections (rows to write), much to parse.
      let markdown = 'The first words: quetzalcoatl.\n\n';
      for (let i = 0; markdown.length < 990_000; i++) markdown += `${i % 500 === 0 ? `## Part ${i}\n\n` : ''}Paragraph ${i} with *some* **text**, \`code\` and a [link](https://example.com/${i}).\n\n`;
      const update = await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Largest', ref: 'largest', document: md(markdown) }]);
      const started = performance.now();
      const { result: ran, answers, p95, max } = await healthzWhile(server.url, f.runJobs());
      expect(ran).toBeGreaterThan(0);
      console.log(`Index of a page of ${markdown.length} characters: ${(performance.now() - started).toFixed(0)} ms; /healthz meanwhile: ${answers} answers, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
      expect(answers).toBeGreaterThan(5);
      expect(p95).toBeLessThan(100);
      expect((await found(org.client, space.id, 'quetzalcoatl')).items.map((item) => item.id)).toEqual([f.pageOf(update, 'largest')]);
    }, 300_000);

    it('ranks title matches above heading matches above text matches, with sections, ancestors and URLs', async () => {
      const org = await newOrg(server);
      const { space, ids } = await searchableSpace(org);
      const result = await found(org.client, space.id, 'zephyr');
      expect(result.count).toBe(3);
      expect(result.next).toBeUndefined();
      expect(result.items.map((item) => item.id)).toEqual([ids.title, ids.heading, ids.body]);
      const base = `${PUBLIC_URL}/o/${org.organizationId}/s/${space.id}`;
      const body = result.items[2]!;
      expect(body).toMatchObject({
        title: 'Weather',
        path: 'guides/advanced/weather',
        ancestors: [{ title: 'Guides' }, { title: 'Advanced' }],
        urls: { app: `${base}/guides/advanced/weather` },
      });
      expect(body.sections).toEqual([{
        id: 'winds', title: 'Winds', path: 'guides/advanced/weather#winds', body: 'A zephyr is a gentle breeze.',
        urls: { app: `${base}/guides/advanced/weather#winds` },
      }]);
      expect(result.items[1]!.sections.map((section) => section.id)).toEqual(['zephyr']);
      expect(result.items[1]!.ancestors).toEqual([]);
    });

    it('pages through the results in a stable order', async () => {
      const org = await newOrg(server);
      const { space } = await searchableSpace(org);
      const all = (await found(org.client, space.id, 'zephyr')).items.map((item) => item.id);
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const answer = await unwrap(search(org.client, space.id, { query: 'zephyr', limit: 1, ...(page ? { page } : {}) }));
        expect(answer.count).toBe(3);
        seen.push(...answer.items.map((item) => item.id));
        page = answer.next?.page;
      } while (page);
      expect(seen).toEqual(all);
    });

    it('finds new content only once the reindex job queued by the write has run', async () => {
      const org = await newOrg(server);
      const { space } = await searchableSpace(org);
      await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Quasar', document: md('Bright and far away.') }]);
      expect((await found(org.client, space.id, 'quasar')).count).toBe(0);
      expect(await f.runJobs()).toBeGreaterThan(0);
      const result = await found(org.client, space.id, 'quasar');
      expect(result.items.map((item) => item.title)).toEqual(['Quasar']);
      // The job is idempotent: the index is current, running it again changes nothing.
      expect(await reindexSpaceSearch(server.running.services, space.id)).toBe('current');
      expect((await found(org.client, space.id, 'quasar')).count).toBe(1);
    });

    it('indexes what templates, duplicates and new spaces put in main', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      await unwrap(org.client.POST('/spaces/{spaceId}/content/template', { params: { path: { spaceId: space.id } }, body: { id: 'getting-started' } }));
      const copy = await unwrap(org.client.POST('/spaces/{spaceId}/duplicate', { params: { path: { spaceId: space.id } } }));
      await f.runJobs();
      for (const id of [space.id, copy.id]) {
        const result = await found(org.client, id, 'quickstart');
        expect(result.items.map((item) => item.title)).toEqual(['Quickstart', 'Welcome']);
        expect(result.items[0]!.ancestors).toEqual([{ title: 'Welcome' }]);
      }
      // The copy's index was built from its own revision (results alone cannot tell it from the original's).
      expect(await searchIndexRevision(server, copy.id)).toBe(copy.revision);
    });

    it('treats operators and punctuation as text, and finds nothing for a query without words', async () => {
      const org = await newOrg(server);
      const { space, ids } = await searchableSpace(org);
      // Sent as standard clients send them (encodeURIComponent leaves `!'()*` unencoded), and fully encoded.
      const encoded = (query: Record<string, unknown>) => Object.entries(query)
        .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`)
        .join('&');
      for (const query of ['"zephyr', '-zephyr*', '(zephyr)', "'zephyr'!", 'zéphyr', 'zephyr:', '+zephyr;']) {
        expect((await found(org.client, space.id, query)).items.map((item) => item.id)[0], query).toBe(ids.title);
        const answer = await unwrap(org.client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: space.id }, query: { query } }, querySerializer: encoded }));
        expect(answer.items.map((item) => item.id)[0], query).toBe(ids.title);
      }
      expect(await found(org.client, space.id, '--- ,,,')).toEqual({ count: 0, items: [] });
      expect((await found(org.client, space.id, 'zephyr near')).count).toBe(0);
      expect((await found(org.client, space.id, 'zeph')).count).toBe(3);
    });

    it('refuses a missing, empty or too long query and bad pages with 400', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      expectError(await org.client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: space.id }, query: {} as never } }), 400, /query/);
      expectError(await search(org.client, space.id, { query: '' }), 400, /query/);
      expectError(await search(org.client, space.id, { query: 'x'.repeat(513) }), 400, /query/);
      expect((await search(org.client, space.id, { query: 'x'.repeat(512) })).response.status).toBe(200);
      expectError(await search(org.client, space.id, { query: 'x', limit: 1001 }), 400, /limit/);
      expectError(await search(org.client, space.id, { query: 'x', page: 'nope' }), 400, /page/);
      expectError(await org.client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: space.id }, query: { query: 'x', sort: 'rank' } as never } }), 400, /sort/);
    });

    it('answers 401 without a token and 404 for another organization, a hidden or a deleted space', async () => {
      const org = await newOrg(server);
      const { space } = await searchableSpace(org);
      expectError(await search(server.client(), space.id, { query: 'zephyr' }), 401);
      expectError(await search((await newOrg(server, 'Other')).client, space.id, { query: 'zephyr' }), 404);
      expectError(await search((await newMember(server, org, null)).client, space.id, { query: 'zephyr' }), 404);
      expect((await found((await newMember(server, org, 'read')).client, space.id, 'zephyr')).count).toBe(3);
      await unwrap(org.client.DELETE('/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }));
      expectError(await search(org.client, space.id, { query: 'zephyr' }), 404);
      // Restored, it is searchable at once; a job for a space that is gone for good does nothing.
      expect(await reindexSpaceSearch(server.running.services, space.id)).toBe('current');
      await unwrap(org.client.POST('/spaces/{spaceId}/restore', { params: { path: { spaceId: space.id } } }));
      expect((await found(org.client, space.id, 'zephyr')).count).toBe(3);
      expect(await reindexSpaceSearch(server.running.services, 'noSuchSpace')).toBe('absent');
    });
  });
});
