import { paginate, type QuireClient } from '@quire/client';
import { LruCache } from '../site/cache.js';
import { buildTree, type SiteTree } from '../site/tree.js';
import type { Lookup, RevisionFile, RevisionPage } from '../site/types.js';
import { data } from './api-failure.js';
import { expandIncludes, insertedIds, readReusableMarkdown } from './reusable-contents.js';

/** A page's content as the API answers it (`format: markdown`). */
function readPageMarkdown(client: QuireClient, spaceId: string, pageId: string) {
  return data(client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId }, query: { format: 'markdown' } } }));
}
export type PageContent = Awaited<ReturnType<typeof readPageMarkdown>>;

/** A page's content with the reusable contents it inserts in place (see reusable-contents.ts). */
export async function readPageContent(client: QuireClient, spaceId: string, pageId: string): Promise<PageContent> {
  const content = await readPageMarkdown(client, spaceId, pageId);
  const ids = content.markdown ? insertedIds(content.markdown) : [];
  if (ids.length === 0) return content;
  const bodies = new Map(await Promise.all(ids.map(async (id) => [id, await readReusableMarkdown(client, spaceId, id)] as const)));
  return { ...content, markdown: expandIncludes(content.markdown!, bodies) };
}

const treeKey = (lookup: Lookup) => `${lookup.space}|${lookup.revision}|${lookup.basePath}`;

/** Markdown past this is not kept (read again when needed): bounds the cache's memory, not its use. */
const KEPT_MARKDOWN_CHARS = 200_000;

/**
 * What a revision holds, read with the visitor's client and kept by (space, revision[, page]): revisions are
 * immutable (computed pages excepted: their spec can change under the same revision, so their Markdown is
 * read every time).
 */
export class RevisionContent {
  private readonly pageLists = new LruCache<RevisionPage[]>(200);
  private readonly fileLists = new LruCache<RevisionFile[]>(200);
  private readonly walkedTrees = new LruCache<SiteTree>(200);
  // Promises, so that concurrent first requests share one API call; a failed one is forgotten at once.
  private readonly contents = new LruCache<Promise<PageContent>>(500);

  /** Page content by (space, revision, page): immutable, except computed pages (their spec may change). */
  pageContent(client: QuireClient, spaceId: string, revision: string, page: RevisionPage): Promise<PageContent> {
    if (page.computed) return readPageContent(client, spaceId, page.id);
    const key = `${spaceId}|${revision}|${page.id}`;
    const cached = this.contents.get(key);
    if (cached) return cached;
    const content = readPageContent(client, spaceId, page.id);
    this.contents.set(key, content);
    content.then(
      (full) => {
        if (full.computed || (full.markdown?.length ?? 0) > KEPT_MARKDOWN_CHARS) this.contents.deleteIf(key, content);
      },
      () => this.contents.deleteIf(key, content),
    );
    return content;
  }

  async pages(client: QuireClient, spaceId: string, revision: string): Promise<RevisionPage[]> {
    const key = `${spaceId}|${revision}`;
    const cached = this.pageLists.get(key);
    if (cached) return cached;
    const list = await data(client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId } } }));
    this.pageLists.set(key, list.pages);
    return list.pages;
  }

  async files(client: QuireClient, spaceId: string, revision: string): Promise<RevisionFile[]> {
    const key = `${spaceId}|${revision}`;
    const cached = this.fileLists.get(key);
    if (cached) return cached;
    const files: RevisionFile[] = [];
    for await (const file of paginate((page) => client.GET('/spaces/{spaceId}/content/files', { params: { path: { spaceId }, query: { limit: 1000, ...(page ? { page } : {}) } } }))) {
      files.push(file as RevisionFile);
    }
    this.fileLists.set(key, files);
    return files;
  }

  /**
   * The looked-up site space's page tree walked at its base path, when kept. The walked tree is kept too: on a
   * cached page, walking 1,000 pages would be most of the work (and a kept one is answered without an await).
   */
  keptTree(lookup: Lookup): SiteTree | undefined {
    return this.walkedTrees.get(treeKey(lookup));
  }

  async walkTree(client: QuireClient, lookup: Lookup): Promise<SiteTree> {
    const tree = buildTree(await this.pages(client, lookup.space, lookup.revision), lookup.basePath);
    this.walkedTrees.set(treeKey(lookup), tree);
    return tree;
  }
}
