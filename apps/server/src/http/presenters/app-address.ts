import type { ContentAddress } from '../../services/content-url-service.js';
import type { PresentContext } from './context.js';

/*
 * Reading back the addresses of the app that the presenters make (`urls.app`): the organization at
 * `/o/{organizationId}`, a collection at `.../c/{collectionId}`, a space at `.../s/{spaceId}`, a change request
 * at `<space>/~/changes/{number}`, a page at `<space or change request>/{page path}` or, without a path,
 * `.../~/pages/{pageId}`, a revision at `<space>/~/revisions/{revisionId}` (revision-presenter.ts,
 * collection-presenter.ts, space-presenter.ts, change-request-presenter.ts). Kept beside them so that the
 * two directions change together.
 */

export type AppAddressReading =
  | { content: ContentAddress }
  /** An address of this app that names no collection or space (an organization, a site, a specification...). */
  | { notContent: string }
  /** Not an address of this app at all. */
  | { foreign: string };

function segmentsOf(pathname: string): string[] | undefined {
  try {
    return pathname.split('/').filter((segment) => segment !== '').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/** What in a space the segments after `/o/{organizationId}/s/{spaceId}` name; undefined when no form fits. */
function withinSpace(rest: string[]): Pick<Extract<ContentAddress, { kind: 'space' }>, 'changeRequest' | 'page'> | undefined {
  if (rest.length === 0) return {};
  if (rest[0] !== '~') return { page: { path: rest.join('/') } };
  const [, what, id, ...more] = rest;
  if (id === undefined || id === '') return undefined;
  if (what === 'pages' && more.length === 0) return { page: { id } };
  // A revision's address is within its space: the space is what it points at.
  if (what === 'revisions' && more.length === 0) return {};
  if (what !== 'changes') return undefined;
  const inRequest = withinSpace(more);
  if (!inRequest || inRequest.changeRequest !== undefined) return undefined;
  return { changeRequest: id, ...(inRequest.page ? { page: inRequest.page } : {}) };
}

export function readAppAddress(context: PresentContext, url: string): AppAddressReading {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const base = new URL(context.publicUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!parsed || parsed.origin !== base.origin || (prefix !== '' && parsed.pathname !== prefix && !parsed.pathname.startsWith(`${prefix}/`))) {
    return { foreign: `url is not an address of this Quire's app (${base.origin}${prefix})` };
  }
  const segments = segmentsOf(parsed.pathname.slice(prefix.length));
  const notContent = { notContent: 'url is an address of this app that names no collection, space, change request or page' };
  if (!segments || segments[0] !== 'o' || !segments[1]) return notContent;
  const [, organizationId, kind, id, ...rest] = segments;
  if (kind === 'c' && id && rest.length === 0) return { content: { kind: 'collection', organizationId, collectionId: id } };
  if (kind !== 's' || !id) return notContent;
  const inSpace = withinSpace(rest);
  return inSpace ? { content: { kind: 'space', organizationId, spaceId: id, ...inSpace } } : notContent;
}
