import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findOrganizationForMember, type OrganizationWithMembership } from '../stores/organization-store.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import {
  countNewlyBrokenItems,
  countPageLinkItems,
  findLinkRows,
  listLinkItemKeys,
  listLinkSources,
  type LinkSource,
  type RevisionLinkRow,
} from '../stores/revision-link-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { ensureRevisionLinks, type LinkOptions, type LinkRelation, type LinkStatus, type LinkTarget } from './revision-links.js';
import { loadRevisionContent } from './revision-content.js';
import { changeRequestContentScope, mainContentScope, readRevision, withMergedFrom, type ContentScope, type RevisionView } from './space-content-service.js';

/*
 * Links and backlinks. The links of a revision are worked out and stored once (`revision-links.ts`): a
 * revision never changes, so neither do its links, and every list, count and backlink here is a query.
 *
 * Links in Quire content resolve within their own space (`/pages/<id>`, `/files/<id>`, page paths, asset
 * paths), so the places that can link to a page or file of a space are the pages of that same revision:
 * the backlinks of a page are the pages of the revision holding a link to it.
 */

export type { LinkOptions, LinkRelation, LinkStatus, LinkTarget } from './revision-links.js';

/** One item of a link list: a target, how it is used, whether it works, and the places using it. */
export interface LinkItem {
  key: string;
  status: LinkStatus;
  relation: LinkRelation;
  target: LinkTarget;
  sources: LinkSource[];
}

/**
 * What link and backlink answers embed, as the public API does: the organization (as the caller sees it)
 * and the revision read (its pages and files too). Loaded once per answer, whatever the number of items.
 */
export interface LinkEmbeds {
  organization: OrganizationWithMembership | undefined;
  revision: RevisionView;
}

async function embedsOf(context: ServiceContext, caller: Caller, scope: ContentScope): Promise<LinkEmbeds> {
  const organization = await findOrganizationForMember(context.db, scope.access.space.organization_id, caller.user.id);
  const revision = await withMergedFrom(context, caller, await readRevision(context, scope));
  return { organization, revision };
}

async function withEmbeds<T extends { scope: ContentScope }>(context: ServiceContext, caller: Caller, list: Promise<T>): Promise<T & { embeds: LinkEmbeds }> {
  const answer = await list;
  return { ...answer, embeds: await embedsOf(context, caller, answer.scope) };
}

export interface LinkList {
  scope: ContentScope;
  /** Set by the entry points (the operations). */
  embeds?: LinkEmbeds;
  page: KeysetPage<LinkItem>;
  stats: { total: number; broken: { total: number; changeRequest?: number } };
}

// ----- lists -----

function targetOf(row: RevisionLinkRow): LinkTarget {
  switch (row.target_kind) {
    case 'page':
    case 'file':
    case 'openapi':
      return { kind: row.target_kind, id: row.target_id ?? '' };
    case 'space':
      return { kind: 'space' };
    default:
      return { kind: 'url', url: row.target_url ?? '' };
  }
}

async function itemsOf(db: Db, revisionId: string, keys: readonly string[], sourcePageId?: string): Promise<LinkItem[]> {
  const rows = await findLinkRows(db, revisionId, keys, sourcePageId);
  const items = new Map<string, LinkItem>();
  for (const row of rows) {
    let item = items.get(row.item_key);
    if (!item) {
      item = { key: row.item_key, status: row.status as LinkStatus, relation: row.relation as LinkRelation, target: targetOf(row), sources: [] };
      items.set(row.item_key, item);
    }
    item.sources.push({ source_kind: row.source_kind, source_id: row.source_id });
  }
  return keys.map((key) => items.get(key)).filter((item): item is LinkItem => item !== undefined);
}

/** The revision a change request's new broken links are counted against: the main content it last took in. */
function baseRevisionOf(scope: ContentScope): string | undefined {
  const request = scope.changeRequest;
  return request ? (request.revision_merged_ancestor ?? request.revision_initial) : undefined;
}

async function ensureBase(context: ServiceContext, scope: ContentScope, options: LinkOptions): Promise<string | undefined> {
  const baseId = baseRevisionOf(scope);
  if (baseId === undefined) return undefined;
  const base = await findRevisionOfSpace(context.db, scope.access.space.id, baseId);
  if (!base) return undefined;
  await ensureRevisionLinks(context, { access: scope.access, revision: base }, options);
  return base.id;
}

/** The links of the scope's content (`status` filters the items, never the stats). */
/**
 * `brokenContext` of a change request's links: `space`, every broken link; `change-request`, those broken since
 * its base (without a base to compare with, every broken link is new to it).
 */
function brokenFilter(brokenContext: BrokenContext | undefined, baseId: string | undefined): { brokenOnly?: true; brokenSince?: string } {
  if (brokenContext === undefined) return {};
  return { brokenOnly: true, ...(brokenContext === 'change-request' && baseId !== undefined ? { brokenSince: baseId } : {}) };
}

export async function listContentLinks(
  context: ServiceContext,
  scope: ContentScope,
  query: { page?: string; limit?: number; status?: LinkStatus; brokenContext?: BrokenContext },
  options: LinkOptions,
): Promise<LinkList> {
  const { after, limit } = pageRequest(query, 1);
  const totals = await ensureRevisionLinks(context, scope, options);
  const baseId = await ensureBase(context, scope, options);
  const revisionId = scope.revision.id;
  const keys = await listLinkItemKeys(context.db, { revisionId, ...(query.status ? { status: query.status } : {}), ...brokenFilter(query.brokenContext, baseId) }, after, limit);
  const rows = await itemsOf(context.db, revisionId, keys.rows.map((row) => row.item_key));
  const introduced = baseId === undefined ? undefined : await countNewlyBrokenItems(context.db, revisionId, baseId);
  return {
    scope,
    page: { ...keys, rows },
    stats: { total: totals.total, broken: { total: totals.broken, ...(introduced !== undefined ? { changeRequest: introduced } : {}) } },
  };
}

/** The links used in one page of the scope's content. */
export async function listPageLinks(
  context: ServiceContext,
  scope: ContentScope,
  pageId: string,
  query: { page?: string; limit?: number; status?: LinkStatus },
  options: LinkOptions,
): Promise<LinkList> {
  const { after, limit } = pageRequest(query, 1);
  const content = await loadRevisionContent(context.db, scope.revision.root);
  if (!content.pages.has(pageId)) throw new NotFoundError('No page matches this id');
  await ensureRevisionLinks(context, scope, options);
  const baseId = await ensureBase(context, scope, options);
  const revisionId = scope.revision.id;
  const keys = await listLinkItemKeys(context.db, { revisionId, sourcePageId: pageId, ...(query.status ? { status: query.status } : {}) }, after, limit);
  const rows = await itemsOf(context.db, revisionId, keys.rows.map((row) => row.item_key), pageId);
  const totals = await countPageLinkItems(context.db, revisionId, pageId);
  const introduced = baseId === undefined ? undefined : await countNewlyBrokenItems(context.db, revisionId, baseId, pageId);
  return {
    scope,
    page: { ...keys, rows },
    stats: { total: totals.total, broken: { total: totals.broken, ...(introduced !== undefined ? { changeRequest: introduced } : {}) } },
  };
}

export interface BacklinkList {
  scope: ContentScope;
  /** Set by the entry points (the operations). */
  embeds?: LinkEmbeds;
  page: KeysetPage<LinkSource>;
}

/** The places of the scope's content linking to one of its pages or files (404 when it has no such one). */
export async function listBacklinks(
  context: ServiceContext,
  scope: ContentScope,
  target: { kind: 'page' | 'file'; id: string },
  query: { page?: string; limit?: number },
  options: LinkOptions,
): Promise<BacklinkList> {
  const { after, limit } = pageRequest(query, 2);
  const content = await loadRevisionContent(context.db, scope.revision.root);
  if (target.kind === 'page' ? !content.pages.has(target.id) : !content.files.has(target.id)) {
    throw new NotFoundError(target.kind === 'page' ? 'No page matches this id' : 'No file matches this id');
  }
  await ensureRevisionLinks(context, scope, options);
  return { scope, page: await listLinkSources(context.db, scope.revision.id, target, after, limit) };
}

// Entry points of the link operations, one per operationId: the main content of a space and the content of a
// change request answer alike, so each differs from its sibling only in the scope it reads.

type LinkQuery = { page?: string; limit?: number; status?: LinkStatus };
type BrokenContext = 'change-request' | 'space';
type BacklinkQuery = { page?: string; limit?: number };

export async function listSpaceLinks(context: ServiceContext, caller: Caller, spaceId: string, query: LinkQuery, options: LinkOptions): Promise<LinkList> {
  return withEmbeds(context, caller, listContentLinks(context, await mainContentScope(context, caller, spaceId), query, options));
}

export async function listChangeRequestLinks(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, query: LinkQuery & { brokenContext?: BrokenContext }, options: LinkOptions,
): Promise<LinkList> {
  return withEmbeds(context, caller, listContentLinks(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), query, options));
}

export async function listPageLinksInSpace(
  context: ServiceContext, caller: Caller, spaceId: string, pageId: string, query: LinkQuery, options: LinkOptions,
): Promise<LinkList> {
  return withEmbeds(context, caller, listPageLinks(context, await mainContentScope(context, caller, spaceId), pageId, query, options));
}

export async function listPageLinksInChangeRequest(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, pageId: string, query: LinkQuery, options: LinkOptions,
): Promise<LinkList> {
  return withEmbeds(context, caller, listPageLinks(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), pageId, query, options));
}

export async function listSpacePageBacklinks(
  context: ServiceContext, caller: Caller, spaceId: string, pageId: string, query: BacklinkQuery, options: LinkOptions,
): Promise<BacklinkList> {
  return withEmbeds(context, caller, listBacklinks(context, await mainContentScope(context, caller, spaceId), { kind: 'page', id: pageId }, query, options));
}

export async function listSpaceFileBacklinks(
  context: ServiceContext, caller: Caller, spaceId: string, fileId: string, query: BacklinkQuery, options: LinkOptions,
): Promise<BacklinkList> {
  return withEmbeds(context, caller, listBacklinks(context, await mainContentScope(context, caller, spaceId), { kind: 'file', id: fileId }, query, options));
}

export async function listChangeRequestPageBacklinks(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, pageId: string, query: BacklinkQuery, options: LinkOptions,
): Promise<BacklinkList> {
  return withEmbeds(context, caller, listBacklinks(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), { kind: 'page', id: pageId }, query, options));
}

export async function listChangeRequestFileBacklinks(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, fileId: string, query: BacklinkQuery, options: LinkOptions,
): Promise<BacklinkList> {
  return withEmbeds(context, caller, listBacklinks(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), { kind: 'file', id: fileId }, query, options));
}
