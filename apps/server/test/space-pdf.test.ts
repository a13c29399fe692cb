import { unwrap } from '@quire/client';
import { describe, expect, it } from 'vitest';
import { fetchPdf, makePng } from './support/pdf-fixtures.js';
import { contentFixtures, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, useTestServer } from './helpers.js';

describeEachDialect('space PDF', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);
  const png = makePng(3, 2, (x, y) => [x * 80, y * 100, 50]);

  describe('getSpacePDF', () => {
    it('answers a signed URL that serves a real PDF of the main content, or of one page; a change request\'s draft is not in it', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org, { title: 'Manual' });
      const edited = await f.editMain(org, space.id, [
        { operation: 'insert_files', files: [{ name: 'logo.png', base64: png.toString('base64'), ref: 'logo' }] },
        { operation: 'insert_page', title: 'Intro', document: md('# Welcome\n\n![Logo](ref:logo)'), ref: 'intro' },
        { operation: 'insert_page', title: 'Details', document: md('More *text*.'), into: 'intro' },
      ]);
      const intro = f.pageOf(edited, 'intro');
      const cr = await f.createCr(org.client, space.id);
      await f.editCr(org.client, space.id, cr.id, [{ operation: 'insert_page', title: 'Draft', document: md('x'.repeat(20_000)), ref: 'draft' }]);

      const pdf = async (query: { page?: string; only?: boolean } = {}) => {
        const { url } = await unwrap(org.client.GET('/spaces/{spaceId}/pdf', { params: { path: { spaceId: space.id }, query } }));
        return fetchPdf(server.url, url);
      };
      const whole = await pdf();
      expect(decodeURIComponent(new URL(whole.url).pathname)).toMatch(/Manual\.pdf$/);
      // The draft's 20,000 characters would make the PDF larger than the whole main content's.
      expect(whole.bytes.length).toBeLessThan(20_000 + 10_000);
      const one = await pdf({ page: intro, only: true });
      expect(one.bytes.length).toBeLessThan(whole.bytes.length);
      await pdf({ page: intro });

      const get = (query: Record<string, unknown>, client = org.client, spaceId = space.id) => client.GET('/spaces/{spaceId}/pdf', { params: { path: { spaceId }, query: query as never } });
      expectError(await get({ only: true }), 400, /query\.only/);
      expectError(await get({ page: 'no-such-page' }), 404);
      expectError(await get({ only: 'maybe' }), 400, /query\.only/);
      expectError(await get({}, server.client()), 401);
      expectError(await get({}, (await newOrg(server, 'Other')).client), 404);
      expectError(await get({}, org.client, 'no-such-space'), 404);
      expect((await get({}, (await newMember(server, org, 'read')).client)).response.status).toBe(200);
      expectError(await get({}, (await newMember(server, org, null)).client), 404);
    });

    it('refuses with 422 naming the limit a PDF of more than 1,000,000 characters of markdown, whose pages print one at a time', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const large = (index: number) => `# Large ${index}\n\n${Array.from({ length: 10_000 }, (_, line) => `Line ${line} of a long page, in plain prose.`.padEnd(59, '.')).join('\n\n')}`;
      // One merge each: both in one body would pass the body limit.
      const first = await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Large 1', document: md(large(1)), ref: 'one' }]);
      await f.editMain(org, space.id, [{ operation: 'insert_page', title: 'Large 2', document: md(large(2)) }]);
      const started = performance.now();
      expectError(await org.client.GET('/spaces/{spaceId}/pdf', { params: { path: { spaceId: space.id } } }), 422, /more than 1,000,000 characters of markdown.*query\.page/);
      expect(performance.now() - started).toBeLessThan(3_000);
      const { url } = await unwrap(org.client.GET('/spaces/{spaceId}/pdf', { params: { path: { spaceId: space.id }, query: { page: f.pageOf(first, 'one'), only: true } } }));
      expect((await fetch(url.replace(/^https?:\/\/[^/]+/, server.url))).status).toBe(200);
    }, 120_000);
  });
});
