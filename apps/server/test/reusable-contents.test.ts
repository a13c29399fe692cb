import { unwrap, type QuireClient } from '@quire/client';
import type { ChangeRequestContentUpdate } from '@quire/api-types';
import { describe, expect, it } from 'vitest';
import { contentFixtures, crPath, md } from './content-fixtures.js';
import { describeEachDialect } from './dialects.js';
import { createSpace, expectError, newMember, newOrg, type TestOrg, useTestServer } from './helpers.js';

/*
 * Reusable contents: made, edited and deleted by change requests (updateChangeRequestContent), merged like
 * pages, inserted in pages by `{% include "/reusable-contents/<id>" %}`, and read from the main content, a
 * change request or any revision.
 */

describeEachDialect('reusable contents', (dialect) => {
  const server = useTestServer({ dialect });
  const f = contentFixtures(() => server);

  const reusableOf = (update: ChangeRequestContentUpdate, ref: string): string => {
    const change = update.reusableContents?.find((item) => item.ref === ref);
    if (!change) throw new Error(`no reusable content was inserted as ${ref}`);
    return change.reusableContent;
  };

  /**
   * A space whose main content has the reusable content `support` (then edited) and a page inserting it, and
   * an open change request that renames it. Reads change nothing, so the suites share it.
   */
  async function history(org: TestOrg) {
    const space = await createSpace(org);
    const one = await f.editMain(org, space.id, [{ operation: 'insert_reusable_content', title: 'Support', document: md('Write to **help@example.com**.'), ref: 'support' }]);
    const support = reusableOf(one, 'support');
    const first = (await f.getSpace(org.client, space.id)).revision;
    const two = await f.editMain(org, space.id, [
      { operation: 'update_reusable_content', reusableContent: support, document: md('Write to **support@example.com**.') },
      { operation: 'insert_page', title: 'Help', document: md(`Need help?\n\n{% include "/reusable-contents/${support}" %}\n`), ref: 'help' },
    ]);
    const second = (await f.getSpace(org.client, space.id)).revision;
    const cr = await f.createCr(org.client, space.id);
    await f.editCr(org.client, space.id, cr.id, [{ operation: 'update_reusable_content', reusableContent: support, title: 'Contact' }]);
    return { space, support, first, second, cr, help: f.pageOf(two, 'help') };
  }

  let shared: Promise<{ org: TestOrg } & Awaited<ReturnType<typeof history>>> | undefined;
  const sharedHistory = () => (shared ??= (async () => {
    const org = await newOrg(server);
    return { org, ...(await history(org)) };
  })());

  /** Every read of one reusable content, for the checks they share. */
  function reads(ids: { revisionId: string; changeRequestId: string }) {
    return [
      (client: QuireClient, spaceId: string, reusableContentId: string) => client.GET('/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', { params: { path: { spaceId, reusableContentId } } }),
      (client: QuireClient, spaceId: string, reusableContentId: string) =>
        client.GET('/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}', { params: { path: { spaceId, revisionId: ids.revisionId, reusableContentId } } }),
      (client: QuireClient, spaceId: string, reusableContentId: string) =>
        client.GET('/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document', { params: { path: { spaceId, revisionId: ids.revisionId, reusableContentId } } }),
      (client: QuireClient, spaceId: string, reusableContentId: string) =>
        client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId}', { params: { path: { ...crPath(spaceId, ids.changeRequestId), reusableContentId } } }),
    ];
  }

  describe('getReusableContentById', () => {
    it('answers the reusable content of the main content with its Markdown, and the revision lists it', async () => {
      const { org, space, support, second } = await sharedHistory();
      const found = await unwrap(org.client.GET('/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', { params: { path: { spaceId: space.id, reusableContentId: support } } }));
      expect(found).toEqual({ id: support, title: 'Support', document: `${second}.reusable-contents.${support}`, markdown: 'Write to **support@example.com**.' });
      const revision = await unwrap(org.client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: space.id } } }));
      expect(revision.reusableContents).toEqual([{ id: support, title: 'Support', document: found.document }]);
      // Its document id is a document of the space.
      const document = await unwrap(org.client.GET('/spaces/{spaceId}/documents/{documentId}', { params: { path: { spaceId: space.id, documentId: found.document! } } }));
      expect(document.nodes[0]).toMatchObject({ type: 'paragraph' });
    });

    it('answers 404 for an unknown id, another space, another organization and a guest, 401 without a token', async () => {
      const { org, space, support, first, cr } = await sharedHistory();
      const otherSpace = await createSpace(org);
      const other = await newOrg(server, 'Other');
      const reader = await newMember(server, org, 'read');
      const guest = await newMember(server, org, null);
      for (const read of reads({ revisionId: first, changeRequestId: cr.id })) {
        expect((await read(reader.client, space.id, support)).response.status).toBe(200);
        expectError(await read(org.client, space.id, 'missing'), 404, 'No reusable content matches this id');
        expectError(await read(org.client, otherSpace.id, support), 404);
        expectError(await read(other.client, space.id, support), 404);
        expectError(await read(guest.client, space.id, support), 404);
        expectError(await read(server.client(), space.id, support), 401);
        expectError(await read(org.client, space.id, 'x'.repeat(129)), 400, /reusableContentId/);
      }
    });
  });

  describe('getReusableContentInRevisionById', () => {
    it('answers the reusable content as each revision had it, and 404 in a revision made before it', async () => {
      const { org, space, support, first, second } = await sharedHistory();
      const at = (revisionId: string, query: { metadata?: boolean; computed?: boolean } = {}) =>
        org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}', { params: { path: { spaceId: space.id, revisionId, reusableContentId: support }, query } });
      expect((await unwrap(at(first))).markdown).toBe('Write to **help@example.com**.');
      expect((await unwrap(at(second, { metadata: false, computed: false }))).markdown).toBe('Write to **support@example.com**.');
      expectError(await at(space.revision), 404, 'No reusable content matches this id');
      expectError(await at('missing'), 404, 'No revision of this space matches this id');
    });
  });

  describe('getReusableContentDocumentInRevisionById', () => {
    it('answers the body as a document, and the page that inserts it holds a reusable-content block', async () => {
      const { org, space, support, second, help } = await sharedHistory();
      const document = await unwrap(org.client.GET('/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document', {
        params: { path: { spaceId: space.id, revisionId: second, reusableContentId: support }, query: { evaluated: true } },
      }));
      expect(document).toMatchObject({ object: 'document', nodes: [{ type: 'paragraph' }] });
      const page = await unwrap(org.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: help }, query: { format: 'document' } } }));
      expect(page.document!.nodes[1]).toEqual(expect.objectContaining({
        object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: support } },
      }));
    });
  });

  describe('getReusableContentInChangeRequestById', () => {
    it("answers the change request's version, while the main content keeps its own", async () => {
      const { org, space, support, cr } = await sharedHistory();
      const inCr = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId}', {
        params: { path: { ...crPath(space.id, cr.id), reusableContentId: support } },
      }));
      expect(inCr).toMatchObject({ id: support, title: 'Contact', markdown: 'Write to **support@example.com**.' });
      expect((await unwrap(org.client.GET('/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', { params: { path: { spaceId: space.id, reusableContentId: support } } }))).title).toBe('Support');
    });
  });

  describe('updateChangeRequestContent with reusable contents', () => {
    it('merges edits of different parts, reports a conflict on the same part, and deletes', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const made = await f.editMain(org, space.id, [{ operation: 'insert_reusable_content', title: 'Block', document: md('one\n\ntwo\n\nthree'), ref: 'block' }]);
      const block = reusableOf(made, 'block');
      const read = async () => unwrap(org.client.GET('/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', { params: { path: { spaceId: space.id, reusableContentId: block } } }));

      const a = await f.createCr(org.client, space.id);
      const b = await f.createCr(org.client, space.id);
      await f.editCr(org.client, space.id, a.id, [{ operation: 'update_reusable_content', reusableContent: block, document: md('ONE\n\ntwo\n\nthree') }]);
      await f.editCr(org.client, space.id, b.id, [{ operation: 'update_reusable_content', reusableContent: block, document: md('one\n\ntwo\n\nTHREE'), title: 'Renamed' }]);
      await f.merge(org.client, space.id, a.id);
      await f.merge(org.client, space.id, b.id);
      expect(await read()).toMatchObject({ title: 'Renamed', markdown: 'ONE\n\ntwo\n\nTHREE' });

      const c = await f.createCr(org.client, space.id);
      const d = await f.createCr(org.client, space.id);
      await f.editCr(org.client, space.id, c.id, [{ operation: 'update_reusable_content', reusableContent: block, document: md('ONE\n\ntwo\n\nc') }]);
      await f.editCr(org.client, space.id, d.id, [{ operation: 'update_reusable_content', reusableContent: block, document: md('ONE\n\ntwo\n\nd') }]);
      await f.merge(org.client, space.id, c.id);
      const conflicted = await unwrap(org.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', { params: { path: crPath(space.id, d.id) } }));
      expect(conflicted.result).toBe('conflicts');
      expect(JSON.stringify(conflicted)).toContain('"reusableContent":true');

      const e = await f.editMain(org, space.id, [{ operation: 'delete_reusable_content', reusableContent: block }]);
      expect(e.reusableContents).toEqual([{ object: 'deleted_reusable_content', reusableContent: block }]);
      expectError(await org.client.GET('/spaces/{spaceId}/content/reusable-contents/{reusableContentId}', { params: { path: { spaceId: space.id, reusableContentId: block } } }), 404);
    });

    it('refuses an unknown reusable content, a page ref and an empty update with 400, changing nothing', async () => {
      const org = await newOrg(server);
      const space = await createSpace(org);
      const cr = await f.createCr(org.client, space.id);
      const send = (changes: never[]) => org.client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: crPath(space.id, cr.id) }, body: { changes } });
      expectError(await send([{ operation: 'delete_reusable_content', reusableContent: 'nope' }] as never[]), 400, /changes\[0\].*nope/);
      expectError(await send([{ operation: 'insert_page', title: 'P', document: md(''), ref: 'p' }, { operation: 'update_reusable_content', reusableContent: 'p', title: 'X' }] as never[]), 400, /changes\[1\]/);
      expectError(await send([{ operation: 'update_reusable_content', reusableContent: 'nope', title: '' }] as never[]), 400);
      const after = await unwrap(org.client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: crPath(space.id, cr.id) } }));
      expect(after.revision).toBe(cr.revision);
    });
  });
});
