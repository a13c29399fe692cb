import type { RevisionPage } from './types.js';

/*
 * The page tree of a site space as readers walk it: every page that has an address, in reading order, with
 * its site address, its ancestors (breadcrumbs) and its neighbours (previous/next). Hidden pages keep their
 * address (a link to one still works) but are left out of the sidebar, the order and the machine lists.
 */

export interface SitePage {
  page: RevisionPage;
  /** Path of the page in the space (`guide/install`). */
  path: string;
  /** Address of the page on the site's host (`/sites/docs/guide/install`). */
  href: string;
  ancestors: RevisionPage[];
  hidden: boolean;
}

export interface SiteTree {
  /** Top-level entries, for the sidebar. */
  roots: RevisionPage[];
  /** Pages with content (document and computed), in reading order, hidden ones included. */
  pages: SitePage[];
  /** The same without hidden pages: what readers walk with previous/next. */
  listed: SitePage[];
  byPath: Map<string, SitePage>;
  byId: Map<string, SitePage>;
  /** The first listed page: what the site space's own address shows. */
  first: SitePage | undefined;
}

export function hasContent(page: RevisionPage): boolean {
  return page.type === 'document' || page.type === 'computed';
}

/** `basePath` + `/` + page path, with the first page at the base address itself. */
export function pageHref(basePath: string, path: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return `${basePath}/${encoded}`;
}

export function buildTree(roots: RevisionPage[], basePath: string): SiteTree {
  const pages: SitePage[] = [];
  const walk = (entries: RevisionPage[], ancestors: RevisionPage[], hiddenAbove: boolean) => {
    for (const page of entries) {
      const hidden = hiddenAbove || page.hidden;
      if (hasContent(page) && page.path !== undefined) {
        pages.push({ page, path: page.path, href: pageHref(basePath, page.path), ancestors, hidden });
      }
      walk(page.pages, [...ancestors, page], hidden);
    }
  };
  walk(roots, [], false);
  const listed = pages.filter((entry) => !entry.hidden);
  const first = listed[0];
  if (first) first.href = basePath === '' ? '/' : basePath;
  return {
    roots,
    pages,
    listed,
    byPath: new Map(pages.map((entry) => [entry.path, entry])),
    byId: new Map(pages.map((entry) => [entry.page.id, entry])),
    first,
  };
}
