import type { components } from '@quire/api-types';
import { appPath } from '../api/queries.js';

export type RevisionPage = components['schemas']['RevisionPage'];

/** Every page of a tree, depth first, in the order readers see them. */
export function flattenPages(pages: RevisionPage[]): RevisionPage[] {
  return pages.flatMap((page) => [page, ...flattenPages(page.pages ?? [])]);
}

/** The page at a path of the tree, or, with no path, the first page with content. */
export function pageAt(pages: RevisionPage[], path: string | undefined): RevisionPage | undefined {
  const all = flattenPages(pages);
  if (path) return all.find((page) => page.path === path);
  return all.find((page) => page.type === 'document');
}

export function pageById(pages: RevisionPage[], id: string): RevisionPage | undefined {
  return flattenPages(pages).find((page) => page.id === id);
}

/** Where each page's links lead in the app, keyed as the shared renderer looks them up. */
export function pageAddresses(pages: RevisionPage[]): Record<string, string> {
  const addresses: Record<string, string> = {};
  for (const page of flattenPages(pages)) {
    const address = appPath(page.urls.app);
    addresses[`id:${page.id}`] = address;
    if (page.path) addresses[`path:${page.path}`] = address;
  }
  return addresses;
}
