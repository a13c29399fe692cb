import type { QuireClient } from '@quire/client';
import { describe, expect, it } from 'vitest';
import type { Lookup, RevisionPage } from '../site/types.js';
import { ApiFailure } from './api-failure.js';
import { RevisionContent } from './revision-content.js';

/** A client answering the page list and page contents, counting the calls per path. */
function fakeClient(answer: (path: string, params: { path: Record<string, string> }) => { status: number; body: unknown }) {
  const calls: string[] = [];
  const client = {
    GET: async (path: string, init: { params: { path: Record<string, string> } }) => {
      calls.push(`${path} ${JSON.stringify(init.params.path)}`);
      const { status, body } = answer(path, init.params);
      const response = new Response(null, { status });
      return status < 400 ? { data: body, response } : { error: body, response };
    },
  };
  return { client: client as unknown as QuireClient, calls };
}

const page = (id: string, extra: Partial<RevisionPage> = {}) => ({ id, title: id, type: 'document', slug: id, path: id, pages: [], ...extra }) as unknown as RevisionPage;

describe('RevisionContent.pageContent', () => {
  it('reads a page once per (space, revision, page), and concurrent first reads share the call', async () => {
    const { client, calls } = fakeClient(() => ({ status: 200, body: { markdown: '# Hi' } }));
    const revisions = new RevisionContent();
    const [a, b] = await Promise.all([revisions.pageContent(client, 's', 'r1', page('p')), revisions.pageContent(client, 's', 'r1', page('p'))]);
    expect(a).toBe(b);
    await revisions.pageContent(client, 's', 'r1', page('p'));
    expect(calls).toHaveLength(1);
    await revisions.pageContent(client, 's', 'r2', page('p'));
    expect(calls).toHaveLength(2);
  });

  it('reads computed pages every time (their spec can change under one revision), and keeps no huge Markdown', async () => {
    const { client, calls } = fakeClient((_path, params) => ({ status: 200, body: { markdown: params.path.pageId === 'big' ? 'x'.repeat(200_001) : 'small' } }));
    const revisions = new RevisionContent();
    const computed = page('c', { computed: { type: 'openapi', props: {} } } as unknown as Partial<RevisionPage>);
    await revisions.pageContent(client, 's', 'r', computed);
    await revisions.pageContent(client, 's', 'r', computed);
    await revisions.pageContent(client, 's', 'r', page('big'));
    await revisions.pageContent(client, 's', 'r', page('big'));
    expect(calls).toHaveLength(4);
  });

  it('forgets a failed read at once, so the next request asks again', async () => {
    let status = 502;
    const { client, calls } = fakeClient(() => ({ status, body: status === 200 ? { markdown: 'ok' } : { error: { code: 502, message: 'down' } } }));
    const revisions = new RevisionContent();
    await expect(revisions.pageContent(client, 's', 'r', page('p'))).rejects.toBeInstanceOf(ApiFailure);
    status = 200;
    await expect(revisions.pageContent(client, 's', 'r', page('p'))).resolves.toMatchObject({ markdown: 'ok' });
    expect(calls).toHaveLength(2);
  });
});

describe('RevisionContent trees', () => {
  it('keeps the walked tree by (space, revision, base path), and the page list by (space, revision)', async () => {
    const { client, calls } = fakeClient(() => ({ status: 200, body: { pages: [page('intro'), page('guide')] } }));
    const revisions = new RevisionContent();
    const lookup = { space: 's', revision: 'r', basePath: '/sites/docs' } as Lookup;
    expect(revisions.keptTree(lookup)).toBeUndefined();
    const tree = await revisions.walkTree(client, lookup);
    expect(tree.pages.map((entry) => entry.href)).toEqual(['/sites/docs', '/sites/docs/guide']);
    expect(revisions.keptTree(lookup)).toBe(tree);
    expect(revisions.keptTree({ ...lookup, basePath: '/sites/docs/v2' })).toBeUndefined();
    await revisions.walkTree(client, { ...lookup, basePath: '/sites/docs/v2' });
    expect(calls).toHaveLength(1);
  });
});
