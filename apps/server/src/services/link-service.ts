import { createHash } from 'node:crypto';
import { classifyUrl, referencesOffThread, type extractReferences, type MaterializedPage, type ReferenceTarget } from '../content/index.js';
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { nowIso } from '../ids.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import {
  countNewlyBrokenItems,
  countPageLinkItems,
  findLinkRows,
  findLinkSet,
  insertLinkSet,
  listLinkItemKeys,
  listLinkSources,
  type LinkSource,
  type RevisionLinkRow,
} from '../stores/revision-link-store.js';
import type { Caller } from './caller.js';
import { changeRequestContentScope, mainContentScope, readRevision, withMergedFrom, type ContentScope, type RevisionView } from './space-content-service.js';
import { findOrganizationForMember, type OrganizationWithMembership } from '../stores/organization-store.js';
import { openApiSpecResolves } from './openapi-spec-service.js';
import type { ServiceContext } from './context.js';
import { loadRevisionContent, readPageMarkdown, type RevisionContent } from './revision-content.js';

/*
 * Links and backlinks. The links of a revision are read out of its pages once (markdown links and images,
 * covers, link pages, the dependencies of computed pages, the specs OpenAPI blocks show), judged against the revision itself and stored
 * (`revision_links`, one row per target and page using it): a revision never changes, so neither do its
 * links, and every later list, count and backlink is a query.
 *
 * Links in Quire content resolve within their own space (`/pages/<id>`, `/files/<id>`, page paths, asset
 * paths), so the places that can link to a page or file of a space are the pages of that same revision:
 * the backlinks of a page are the pages of the revision holding a link to it.
 */

export type LinkStatus = 'ok' | 'broken' | 'in-app';
export type LinkRelation = 'reference' | 'dependsOn';

export type LinkTarget =
  | { kind: 'page'; id: string }
  | { kind: 'file'; id: string }
  | { kind: 'space' }
  | { kind: 'openapi'; id: string }
  | { kind: 'url'; url: string };

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

export interface LinkOptions {
  /** Base URL of this Quire (`QUIRE_PUBLIC_URL`): URLs below it are `in-app` links. */
  publicUrl: string;
}

interface FoundLink {
  relation: LinkRelation;
  status: LinkStatus;
  target: LinkTarget;
  /** The page holding the link. */
  pageId: string;
}

// ----- working out the links of a revision -----

/** Links of a page's markdown by (content hash, page path): unchanged pages cost nothing in later revisions. */
const extracted = new Map<string, ReturnType<typeof extractReferences>>();
const MAX_EXTRACTED = 20_000;

async function referencesOf(db: Db, page: MaterializedPage): Promise<ReturnType<typeof extractReferences>> {
  if (page.contentHash === null) return { links: [], files: [], specs: [] };
  const key = `${page.contentHash}\n${page.path ?? ''}`;
  const cached = extracted.get(key);
  if (cached) return cached;
  const references = await referencesOffThread(await readPageMarkdown(db, page), page.path !== undefined ? { pagePath: page.path } : {});
  extracted.set(key, references);
  if (extracted.size > MAX_EXTRACTED) extracted.delete(extracted.keys().next().value!);
  return references;
}

function isInApp(url: string, publicUrl: string): boolean {
  let parsed: URL;
  let base: URL;
  try {
    parsed = new URL(url);
    base = new URL(publicUrl);
  } catch {
    return false;
  }
  if (parsed.origin !== base.origin) return false;
  const prefix = base.pathname.replace(/\/+$/, '');
  return prefix === '' || parsed.pathname === prefix || parsed.pathname.startsWith(`${prefix}/`);
}

/** What a reference of the markdown points at, judged against the revision; undefined for in-page anchors. */
function judge(target: ReferenceTarget, url: string, content: RevisionContent, options: LinkOptions): Omit<FoundLink, 'relation' | 'pageId'> | undefined {
  switch (target.kind) {
    case 'anchor':
      return undefined;
    case 'page':
      return { target: { kind: 'page', id: target.page }, status: content.pages.has(target.page) ? 'ok' : 'broken' };
    case 'page-path': {
      if (target.path === '') return { target: { kind: 'space' }, status: 'ok' };
      const page = content.byPath.get(target.path);
      return page ? { target: { kind: 'page', id: page.id }, status: 'ok' } : { target: { kind: 'url', url }, status: 'broken' };
    }
    case 'file':
      return { target: { kind: 'file', id: target.file }, status: content.files.has(target.file) ? 'ok' : 'broken' };
    case 'asset': {
      const file = findAsset(content, target.path);
      return file ? { target: { kind: 'file', id: file }, status: 'ok' } : { target: { kind: 'url', url }, status: 'broken' };
    }
    case 'ref':
      // A `ref:` label only means something inside the change batch that wrote it; one left in content leads nowhere.
      return { target: { kind: 'url', url }, status: 'broken' };
    case 'url':
      return { target: { kind: 'url', url }, status: isInApp(url, options.publicUrl) ? 'in-app' : 'ok' };
  }
}

/** A file by its repository path (Git-synced content), or by its name under `.gitbook/assets/`. */
function findAsset(content: RevisionContent, path: string): string | undefined {
  const name = path.split('/').pop();
  let byName: string | undefined;
  for (const file of content.files.values()) {
    if (file.git?.path === path) return file.id;
    if (byName === undefined && path.startsWith('.gitbook/assets/') && file.name === name) byName = file.id;
  }
  return byName;
}

async function findLinks(db: Db, organizationId: string, content: RevisionContent, options: LinkOptions): Promise<FoundLink[]> {
  const found: FoundLink[] = [];
  for (const { page, parent } of content.pages.values()) {
    const add = (relation: LinkRelation, judged: Omit<FoundLink, 'relation' | 'pageId'> | undefined): void => {
      if (judged) found.push({ ...judged, relation, pageId: page.id });
    };
    if (page.type === 'link' && page.href) {
      add('reference', judge(classifyUrl(page.href, parent?.path ? `${parent.path}/x` : ''), page.href, content, options));
    }
    for (const cover of [page.cover?.ref, page.cover?.refDark]) {
      if (cover) add('reference', { target: { kind: 'file', id: cover.file }, status: content.files.has(cover.file) ? 'ok' : 'broken' });
    }
    for (const dependency of Object.values(page.computed?.dependencies ?? {})) {
      const ref = dependency.ref;
      if (ref.kind === 'file') add('dependsOn', { target: { kind: 'file', id: ref.file }, status: content.files.has(ref.file) ? 'ok' : 'broken' });
      // A spec of the organization resolves once it has a version (the content is computed from the latest one).
      else add('dependsOn', { target: { kind: 'openapi', id: ref.spec }, status: (await openApiSpecResolves(db, organizationId, ref.spec)) ? 'ok' : 'broken' });
    }
    if (page.type === 'document' || page.type === 'computed') {
      const references = await referencesOf(db, page);
      for (const reference of [...references.links, ...references.files]) {
        add('reference', judge(reference.target, reference.url, content, options));
      }
      // OpenAPI blocks show a spec of the organization: checked as computed pages' specs are.
      for (const { spec } of references.specs) {
        add('reference', { target: { kind: 'openapi', id: spec }, status: (await openApiSpecResolves(db, organizationId, spec)) ? 'ok' : 'broken' });
      }
    }
  }
  return found;
}

function itemKey(relation: LinkRelation, target: LinkTarget): string {
  switch (target.kind) {
    case 'url':
      return `${relation}:url:${createHash('sha256').update(target.url, 'utf8').digest('hex')}`;
    case 'space':
      return `${relation}:space`;
    default:
      return `${relation}:${target.kind}:${target.id}`;
  }
}

/**
 * Makes sure the links of the scope's revision are stored, working them out on first use: markdown is read
 * before the transaction, which then only inserts.
 */
async function ensureRevisionLinks(context: ServiceContext, scope: ContentScope, options: LinkOptions): Promise<{ total: number; broken: number }> {
  const revisionId = scope.revision.id;
  const existing = await findLinkSet(context.db, revisionId);
  if (existing) return existing;
  const content = await loadRevisionContent(context.db, scope.revision.root);
  const rows = new Map<string, RevisionLinkRow>();
  const items = new Map<string, LinkStatus>();
  for (const link of await findLinks(context.db, scope.access.space.organization_id, content, options)) {
    const key = itemKey(link.relation, link.target);
    items.set(key, link.status);
    rows.set(`${key}\n${link.pageId}`, {
      revision_id: revisionId,
      item_key: key,
      source_kind: 'page',
      source_id: link.pageId,
      relation: link.relation,
      status: link.status,
      target_kind: link.target.kind,
      target_id: 'id' in link.target ? link.target.id : null,
      target_url: link.target.kind === 'url' ? link.target.url : null,
    });
  }
  const set = {
    revision_id: revisionId,
    total: items.size,
    broken: [...items.values()].filter((status) => status === 'broken').length,
    computed_at: nowIso(),
  };
  await context.db.transaction().execute((trx) => insertLinkSet(trx, set, [...rows.values()]));
  return set;
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
export async function listContentLinks(
  context: ServiceContext,
  scope: ContentScope,
  query: { page?: string; limit?: number; status?: LinkStatus },
  options: LinkOptions,
): Promise<LinkList> {
  const { after, limit } = pageRequest(query, 1);
  const totals = await ensureRevisionLinks(context, scope, options);
  const baseId = await ensureBase(context, scope, options);
  const revisionId = scope.revision.id;
  const keys = await listLinkItemKeys(context.db, { revisionId, ...(query.status ? { status: query.status } : {}) }, after, limit);
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
type BacklinkQuery = { page?: string; limit?: number };

export async function listSpaceLinks(context: ServiceContext, caller: Caller, spaceId: string, query: LinkQuery, options: LinkOptions): Promise<LinkList> {
  return withEmbeds(context, caller, listContentLinks(context, await mainContentScope(context, caller, spaceId), query, options));
}

export async function listChangeRequestLinks(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, query: LinkQuery, options: LinkOptions,
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
