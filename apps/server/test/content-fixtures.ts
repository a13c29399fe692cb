import { unwrap, type QuireClient } from '@quire/client';
import type { ChangeRequest, ChangeRequestContentChange, ChangeRequestContentUpdate, Revision, RevisionPage, Space } from '@quire/api-types';
import { expect } from 'vitest';
import { allJobHandlers } from '../src/jobs/index.js';
import { JobRunner } from '../src/jobs/runner.js';
import type { TestOrg } from './helpers.js';
import type { TestServer } from './server.js';

/*
 * Fixtures of the content tests (space content, change requests, links, templates, search, Git sync):
 * content written the way clients write it (a change request edited and merged), and read back the way
 * clients read it.
 */

export const crPath = (spaceId: string, changeRequestId: string | number) => ({ spaceId, changeRequestId: String(changeRequestId) });

export function contentFixtures(server: () => TestServer) {
  async function getSpace(client: QuireClient, spaceId: string): Promise<Space> {
    return unwrap(client.GET('/spaces/{spaceId}', { params: { path: { spaceId } } }));
  }

  async function createCr(client: QuireClient, spaceId: string): Promise<ChangeRequest> {
    return unwrap(client.POST('/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject: 'Edit' } }));
  }

  async function editCr(client: QuireClient, spaceId: string, changeRequestId: string, changes: ChangeRequestContentChange[]): Promise<ChangeRequestContentUpdate> {
    return unwrap(client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: crPath(spaceId, changeRequestId) }, body: { changes } }));
  }

  async function merge(client: QuireClient, spaceId: string, changeRequestId: string): Promise<void> {
    const result = await unwrap(client.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', { params: { path: crPath(spaceId, changeRequestId) } }));
    expect(result.result).toBe('merge');
  }

  /** Applies the changes to the main content (a change request, edited and merged); answers the batch's result. */
  async function editMain(org: TestOrg, spaceId: string, changes: ChangeRequestContentChange[]): Promise<ChangeRequestContentUpdate> {
    const cr = await createCr(org.client, spaceId);
    const update = await editCr(org.client, spaceId, cr.id, changes);
    await merge(org.client, spaceId, cr.id);
    return update;
  }

  /** The id of the page inserted with `ref` in a batch. */
  function pageOf(update: ChangeRequestContentUpdate, ref: string): string {
    const change = update.changes.find((item) => item.ref === ref);
    if (!change) throw new Error(`no page was inserted as ${ref}`);
    return change.page;
  }

  /** Runs every queued job now (the test servers run no job runner of their own). */
  async function runJobs(): Promise<number> {
    const runner = new JobRunner({ services: server().running.services, handlers: allJobHandlers() });
    let ran = 0;
    while (await runner.runOnce()) ran++;
    return ran;
  }

  return { getSpace, createCr, editCr, merge, editMain, pageOf, runJobs };
}

/** `{ markdown }` content of a page change. */
export const md = (markdown: string) => ({ markdown });

/** An `insert_files` change of one small text file. */
export function textFile(name: string, text: string, ref?: string): ChangeRequestContentChange {
  return { operation: 'insert_files', files: [{ name, base64: Buffer.from(text, 'utf8').toString('base64'), ...(ref ? { ref } : {}) }] };
}

/** Where content is read: the main content of a space, or the content of one of its change requests. */
export interface ContentOf {
  spaceId: string;
  changeRequestId?: string;
}

/** The revision that content is (getCurrentRevision, getRevisionOfChangeRequestById). */
export async function readRevision(client: QuireClient, at: ContentOf, query: { metadata?: boolean } = {}): Promise<Revision> {
  if (at.changeRequestId === undefined) return unwrap(client.GET('/spaces/{spaceId}/content', { params: { path: { spaceId: at.spaceId }, query } }));
  return unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: crPath(at.spaceId, at.changeRequestId), query } }));
}

/** A page of the tree with its markdown (empty for pages without content: groups and links). */
export type PageWithMarkdown = Omit<RevisionPage, 'pages'> & { markdown: string; pages: PageWithMarkdown[] };

/** The markdown of one page (getPageById, getPageInChangeRequestById). */
export async function readMarkdownOf(client: QuireClient, at: ContentOf, pageId: string): Promise<string> {
  const query = { format: 'markdown' as const };
  const page = at.changeRequestId === undefined
    ? await unwrap(client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: at.spaceId, pageId }, query } }))
    : await unwrap(client.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', { params: { path: { ...crPath(at.spaceId, at.changeRequestId), pageId }, query } }));
  return page.markdown ?? '';
}

/** The page tree of the content, each page with its markdown. */
export async function readPageTree(client: QuireClient, at: ContentOf, query: { metadata?: boolean } = {}): Promise<PageWithMarkdown[]> {
  const withMarkdown = async (pages: readonly RevisionPage[]): Promise<PageWithMarkdown[]> => {
    const out: PageWithMarkdown[] = [];
    for (const page of pages) {
      const markdown = page.type === 'document' || page.type === 'computed' ? await readMarkdownOf(client, at, page.id) : '';
      out.push({ ...page, markdown, pages: await withMarkdown(page.pages) });
    }
    return out;
  };
  return withMarkdown((await readRevision(client, at, query)).pages);
}

/** Every page of the content, parents before children, each with its markdown. */
export async function readPages(client: QuireClient, at: ContentOf): Promise<PageWithMarkdown[]> {
  const out: PageWithMarkdown[] = [];
  const walk = (pages: readonly PageWithMarkdown[]) => {
    for (const page of pages) {
      out.push(page);
      walk(page.pages);
    }
  };
  walk(await readPageTree(client, at));
  return out;
}
