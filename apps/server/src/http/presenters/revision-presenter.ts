import type { components } from '@quire/api-types';
import type { Doc, MaterializedFile, MaterializedPage } from '../../content/index.js';
import type { ComputedRevision } from '../../services/computed-content-service.js';
import type { ContentScope, PageRead, RevisionView } from '../../services/space-content-service.js';
import type { UrlSigner } from '../../storage/signed-urls.js';
import { presentChangeRequest } from './change-request-presenter.js';
import { appUrl, type PresentContext } from './context.js';
import { presentReusableContentShape } from './reusable-content-presenter.js';

export type ApiRevision = components['schemas']['Revision'];
export type ApiRevisionPage = components['schemas']['RevisionPage'];
export type ApiRevisionFile = components['schemas']['RevisionFile'];
export type ApiJSONDocument = components['schemas']['JSONDocument'];

/** The `metadata` and `computed` queries of the content reads (both default to true in the contract). */
export interface ContentPresentOptions {
  metadata?: boolean;
  computed?: boolean;
}

const REVISION_TYPES: ReadonlySet<string> = new Set(['edits', 'merge', 'rollback', 'update', 'computed']);

/** Where the scope's content lives in the app: the space, or the change request (`~/changes/<number>`). */
export function contentAppUrl(context: PresentContext, scope: ContentScope): string {
  const space = `/o/${encodeURIComponent(scope.access.space.organization_id)}/s/${encodeURIComponent(scope.access.space.id)}`;
  return appUrl(context, scope.changeRequest ? `${space}/~/changes/${scope.changeRequest.number}` : space);
}

/** A page in the app: by its path (what readers see in the address bar), or by id for link entries, which have none. */
export function pageAppUrl(base: string, page: { id: string; path?: string | undefined }): string {
  if (page.path !== undefined && page.path !== '') return `${base}/${page.path.split('/').map(encodeURIComponent).join('/')}`;
  return `${base}/~/pages/${encodeURIComponent(page.id)}`;
}

/**
 * The public API's deprecated `kind` of each page type, which its typed clients still require: `sheet` for
 * document pages. Computed pages shown as their definition have none there either.
 */
const PAGE_KINDS: Record<string, ApiRevisionPage['kind']> = { document: 'sheet', group: 'group', link: 'link' };

/**
 * Every layout option of a document page, as the public API requires them all: what a page shows when it
 * was never given a layout (the published site's defaults), overridden by what was set.
 */
const DEFAULT_LAYOUT = {
  width: 'default', cover: true, coverSize: 'hero', title: true, description: true, tableOfContents: true, outline: true, pagination: true, metadata: true,
} as const satisfies Required<NonNullable<ApiRevisionPage['layout']>>;

/** Every layout option of a document page: what was set over the defaults. */
export function completeLayout(layout: ApiRevisionPage['layout']): Required<NonNullable<ApiRevisionPage['layout']>> {
  return { ...DEFAULT_LAYOUT, ...layout };
}

/** The type a page is shown as: a computed page as the document it produces, unless `computed` is false. */
export function shownPageType(type: ApiRevisionPage['type'], options: ContentPresentOptions): ApiRevisionPage['type'] {
  return type === 'computed' && options.computed !== false ? 'document' : type;
}

/**
 * A page without its content. Computed pages are shown as the pages they produce (a document page with its
 * generated children) unless `computed` is false, when they are shown as their definition: type
 * `computed` with `computed` and `computedSeed`. `metadata` false leaves out `git`.
 */
function presentPageShape(page: MaterializedPage, base: string, options: ContentPresentOptions): ApiRevisionPage {
  const { contentHash: _contentHash, pages, git, computed, computedSeed, type, layout, ...fields } = page;
  const showDefinition = type === 'computed' && options.computed === false;
  const shownType = shownPageType(type, options);
  const kind = PAGE_KINDS[shownType];
  return {
    ...fields,
    type: shownType,
    ...(kind ? { kind } : {}),
    ...(shownType === 'document' ? { layout: completeLayout(layout) } : {}),
    ...(showDefinition && computed ? { computed } : {}),
    ...(showDefinition && computedSeed !== undefined ? { computedSeed } : {}),
    ...(git && options.metadata !== false ? { git } : {}),
    pages: pages.map((child) => presentPageShape(child, base, options)),
    urls: { app: pageAppUrl(base, page) },
  };
}

export function presentRevisionPages(context: PresentContext, view: RevisionView, options: ContentPresentOptions): ApiRevisionPage[] {
  const base = contentAppUrl(context, view.scope);
  return view.content.tree.pages.map((page) => presentPageShape(page, base, options));
}

/** One page of the revision read, without its content; undefined when the revision has no such page. */
export function presentPageOfRevision(context: PresentContext, view: RevisionView, pageId: string): ApiRevisionPage | undefined {
  const entry = view.content.pages.get(pageId);
  return entry ? presentPageShape(entry.page, contentAppUrl(context, view.scope), {}) : undefined;
}

export function presentRevisionPage(context: PresentContext, read: PageRead, options: ContentPresentOptions): ApiRevisionPage {
  const page = presentPageShape(read.page, contentAppUrl(context, read.view.scope), options);
  return {
    ...page,
    ...(read.documentId !== undefined ? { documentId: read.documentId } : {}),
    ...(read.markdown !== undefined ? { markdown: read.markdown } : {}),
    ...(read.document !== undefined ? { document: read.document } : {}),
  };
}

/**
 * What a source computes (getComputedRevision): its pages, each with its markdown, addressed in the app
 * below the space, as the pages of a revision are. `builtin:openapi` makes no files or reusable contents.
 */
export function presentComputedRevision(context: PresentContext, computed: ComputedRevision): components['schemas']['ComputedRevision'] {
  const { space } = computed.access;
  const base = appUrl(context, `/o/${encodeURIComponent(space.organization_id)}/s/${encodeURIComponent(space.id)}`);
  return {
    pages: computed.pages.map(({ page, markdown }) => ({ ...presentPageShape(page, base, {}), markdown })),
    files: [],
    reusableContents: [],
  };
}

/** A page's content alone as a document (getPageDocumentInRevisionById, getDocumentById). */
export function presentDocument(document: Doc): ApiJSONDocument {
  return document;
}

export function presentRevisionFile(signer: UrlSigner, file: MaterializedFile, options: ContentPresentOptions): ApiRevisionFile {
  const { blob, git, ...fields } = file;
  return {
    ...fields,
    downloadURL: signer.sign({ hash: blob, filename: file.name, contentType: file.contentType }),
    ...(git && options.metadata !== false ? { git } : {}),
  };
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The Git commit a revision was imported from or exported to, as stored with it; absent when incomplete. */
function revisionGit(text: string | null): ApiRevision['git'] {
  const value = parseJson(text) as Record<string, unknown> | undefined;
  if (typeof value !== 'object' || value === null || typeof value.oid !== 'string' || typeof value.message !== 'string') return undefined;
  const createdByService = value.createdByService ?? value.createdByGitBook;
  return {
    oid: value.oid,
    message: value.message,
    createdByService: createdByService === true,
    ...(typeof value.url === 'string' && URL.canParse(value.url) ? { url: value.url } : {}),
    ...(typeof value.ref === 'string' ? { ref: value.ref } : {}),
  };
}

function parents(text: string): string[] {
  const value = parseJson(text);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Spaces and revisions define no variables of their own yet: `variables` is empty. */
export function presentRevision(context: PresentContext, view: RevisionView, options: ContentPresentOptions): ApiRevision {
  const { revision } = view.scope;
  const space = `/o/${encodeURIComponent(view.scope.access.space.organization_id)}/s/${encodeURIComponent(view.scope.access.space.id)}`;
  const git = options.metadata === false ? undefined : revisionGit(revision.git);
  return {
    object: 'revision',
    id: revision.id,
    type: (REVISION_TYPES.has(revision.type) ? revision.type : 'edits') as ApiRevision['type'],
    ...(view.mergedFrom ? { mergedFrom: presentChangeRequest(context, view.mergedFrom) } : {}),
    parents: parents(revision.parents),
    pages: presentRevisionPages(context, view, options),
    files: view.content.tree.files.map((file) => presentRevisionFile(view.signer, file, options)),
    reusableContents: view.content.tree.reusableContents.map((reusable) => presentReusableContentShape(revision.id, reusable, options)),
    variables: {},
    createdAt: revision.created_at,
    ...(git ? { git } : {}),
    urls: { app: appUrl(context, `${space}/~/revisions/${encodeURIComponent(revision.id)}`) },
  };
}
