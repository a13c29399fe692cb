import { createHash } from 'node:crypto';
import { classifyUrl, referencesOffThread, type extractReferences, type MaterializedPage, type ReferenceTarget } from '../content/index.js';
import type { Db } from '../db/index.js';
import { nowIso } from '../ids.js';
import { findLinkSet, insertLinkSet, type RevisionLinkRow } from '../stores/revision-link-store.js';
import type { ServiceContext } from './context.js';
import { openApiSpecResolves } from './openapi-spec-service.js';
import { loadRevisionContent, readPageMarkdown, type RevisionContent } from './revision-content.js';
import type { ContentScope } from './space-content-service.js';
import { inTransaction } from './transaction.js';

/*
 * Working out the links of a revision, once: they are read out of its pages (markdown links and images,
 * covers, link pages, the dependencies of computed pages, the specs OpenAPI blocks show), judged against the
 * revision itself and stored (`revision_links`, one row per target and page using it). A revision never
 * changes, so neither do its links; the lists and backlinks of `link-service.ts` are queries over them.
 */

export type LinkStatus = 'ok' | 'broken' | 'in-app';
export type LinkRelation = 'reference' | 'dependsOn';

export type LinkTarget =
  | { kind: 'page'; id: string }
  | { kind: 'file'; id: string }
  | { kind: 'space' }
  | { kind: 'openapi'; id: string }
  | { kind: 'url'; url: string };

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
export async function ensureRevisionLinks(context: ServiceContext, scope: ContentScope, options: LinkOptions): Promise<{ total: number; broken: number }> {
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
  await inTransaction(context, (tx) => insertLinkSet(tx.db, set, [...rows.values()]));
  return set;
}
