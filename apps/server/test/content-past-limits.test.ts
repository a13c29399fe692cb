import { unwrap } from '@quire/client';
import { expect, it } from 'vitest';
import { markdownHash, MAX_BLOCK_NESTING, MAX_MARKDOWN_LENGTH } from '../src/content/index.js';
import { enqueueSearchReindex } from '../src/services/search-reindex.js';
import { contentFixtures, crPath } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newOrg, useTestServer } from './helpers.js';
import { commitMainRevision, plantCommentMarkdown } from './storage-setup.js';

/*
 * Markdown stored before the content limits existed (writes refuse it now, so it is planted straight into
 * the store): 5,000 quotes deep, 600 lists deep, one character past the length limit. Every read of it
 * answers what it can, its markdown as written, or a 400 naming the limit, and never a 500: its conversion
 * overflowed the stack, and its parse takes minutes.
 */

const DEEP_QUOTES = `${'>'.repeat(5000)} quoted zanzibar\n`;
const DEEP_LISTS = `${Array.from({ length: 600 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n')}\n`;
const TOO_LONG = `${'Long text about quokkas. '.repeat(Math.ceil(MAX_MARKDOWN_LENGTH / 24) + 1)}`.slice(0, MAX_MARKDOWN_LENGTH + 1);

describeEachDialect('content past the limits: getPageById, getPageInChangeRequestById, getCommentInSpace, listCommentsInSpace, listSpaceLinks, searchSpaceContent, getChangeRequestPDF', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  it('answers every read of content stored past the limits: markdown as written, or a 400 naming the limit', async () => {
    const org = await newOrg(server);
    const space = await createSpace(org);
    const planted = { quotes: DEEP_QUOTES, lists: DEEP_LISTS, long: TOO_LONG };
    await commitMainRevision(server, space.id, (tree, writer) => {
      for (const [id, markdown] of Object.entries(planted)) tree.insertPage({ id, title: `Page ${id}`, content: markdownHash(writer, markdown) ?? null }, { into: null });
    });
    const limits = { quotes: `the limit is ${MAX_BLOCK_NESTING} levels`, lists: `the limit is ${MAX_BLOCK_NESTING} levels`, long: `the limit is ${MAX_MARKDOWN_LENGTH} characters` };
    const cr = await f.createCr(org.client, space.id);

    for (const [id, markdown] of Object.entries(planted) as [keyof typeof planted, string][]) {
      const read = (format?: 'markdown' | 'document') =>
        org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: id }, query: format ? { format } : {} } });
      expect((await unwrap(read())).markdown).toBe(markdown);
      const asMarkdown = await unwrap(read('markdown'));
      expect(asMarkdown.markdown).toBe(markdown);
      const message = new RegExp(`^the page's markdown .*${limits[id]}, so it cannot be read with format=document; read it with format=markdown$`);
      expectError(await read('document'), 400, message);
      expectError(await org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', {
        params: { path: { ...crPath(space.id, cr.id), pageId: id }, query: { format: 'document' } },
      }), 400, message);
      // No blocks to name, so none to comment on.
      expectError(await org.client.POST('/spaces/{spaceId}/comments', { params: { path: { spaceId: space.id } }, body: { page: id, node: '0', body: { markdown: 'Here' } } }), 400, new RegExp(`^body.node: .*${limits[id]}, so its blocks cannot be commented on$`));
    }

    // Links: such pages have none that can be read, and the others are listed as ever.
    expect((await unwrap(org.client.GET('/spaces/{spaceId}/links', { params: { path: { spaceId: space.id } } }))).items).toEqual([]);

    // Search indexes their text as written.
    await enqueueSearchReindex(server.db, space.id);
    await f.runJobs();
    for (const [word, page] of [['zanzibar', 'quotes'], ['quokkas', 'long']] as const) {
      const results = await unwrap(org.client.GET('/spaces/{spaceId}/search', { params: { path: { spaceId: space.id }, query: { query: word } } }));
      expect(results.items.map((item) => item.id), word).toContain(page);
    }

    // A PDF shows the limit and the markdown as written (the deep pages: the long one's PDF takes long to lay out).
    for (const page of ['quotes', 'lists']) {
      const { url } = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', { params: { path: crPath(space.id, cr.id), query: { page, only: true } } }));
      const response = await fetch(url.replace(/^https?:\/\/[^/]+/, server.url));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
    }
  }, 300_000);

  it('answers a comment whose stored markdown is past the limits in markdown when a document is asked for', async () => {
    const org = await newOrg(server);
    const space = await createSpace(org);
    const comment = await unwrap(org.client.POST('/spaces/{spaceId}/comments', { params: { path: { spaceId: space.id } }, body: { body: { markdown: 'Soon deep' } } }));
    await plantCommentMarkdown(server, comment.id, DEEP_QUOTES);
    const read = await unwrap(org.client.GET('/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: space.id, commentId: comment.id }, query: { format: 'document' } } }));
    expect(read.body).toEqual({ markdown: DEEP_QUOTES });
    const list = await unwrap(org.client.GET('/spaces/{spaceId}/comments', { params: { path: { spaceId: space.id }, query: { format: 'document' } } }));
    expect(list.items.map((item) => item.body)).toEqual([{ markdown: DEEP_QUOTES }]);
  });
});
