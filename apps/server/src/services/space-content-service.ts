import { ContentError, markdownToDocumentOffThread, type Doc, type MaterializedFile, type MaterializedPage } from '../content/index.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { pageRequest, type CursorKey } from '../pagination.js';
import { findChangeRequestMergedAs, type ChangeRequestRow } from '../stores/change-request-store.js';
import type { RevisionRow } from '../stores/revision-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { UrlSigner } from '../storage/signed-urls.js';
import { isVisitor, type Caller, type Principal } from './caller.js';
import { changeRequestView, requireChangeRequest, type ChangeRequestView } from './change-request-service.js';
import type { ServiceContext } from './context.js';
import { loadRevisionContent, readPageMarkdown, revisionOfSpace, type RevisionContent } from './revision-content.js';
import { publishRevisionPdf, type PdfPageQuery } from './revision-pdf.js';
import { requireSpace, type SpaceAccess } from './space-access.js';

/*
 * Reading the content of a space: its main content (the space's current revision) or the content of one of
 * its change requests (the request's current revision), which answer alike. Reading needs only to see the
 * space (`requireSpace`: 404 otherwise); a deleted space's content is not readable.
 */

/** Whose content is read: the space's main content, or a change request's. */
export interface ContentScope {
  access: SpaceAccess;
  revision: RevisionRow;
  /** The change request whose content this is; absent for the main content. */
  changeRequest?: ChangeRequestRow;
}

/** A revision's content as read by one request, with what answers need to sign download URLs. */
export interface RevisionView {
  scope: ContentScope;
  content: RevisionContent;
  signer: UrlSigner;
  /** For a merge revision read on its own, the change request whose merge made it. */
  mergedFrom?: ChangeRequestView;
}

async function revisionOf(context: ServiceContext, spaceId: string, revisionId: string): Promise<RevisionRow> {
  const revision = await revisionOfSpace(context.db, spaceId, revisionId);
  // A space or request always names one of its own revisions; anything else is corruption, not a 404.
  if (!revision) throw new Error(`space ${spaceId} has no revision ${revisionId}`);
  return revision;
}

export async function mainContentScope(context: ServiceContext, caller: Principal, spaceId: string): Promise<ContentScope> {
  const access = await requireSpace(context, caller, spaceId);
  return { access, revision: await revisionOf(context, access.space.id, access.space.revision_id) };
}

export async function changeRequestContentScope(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string): Promise<ContentScope> {
  const { access, changeRequest } = await requireChangeRequest(context, caller, spaceId, changeRequestId);
  return { access, changeRequest, revision: await revisionOf(context, access.space.id, changeRequest.revision_id) };
}

export function requireUrlSigner(context: ServiceContext): UrlSigner {
  if (!context.urlSigner) throw new Error('the service context has no URL signer (server.ts sets one)');
  return context.urlSigner;
}

export async function readRevision(context: ServiceContext, scope: ContentScope): Promise<RevisionView> {
  const signer = requireUrlSigner(context);
  return { scope, content: await loadRevisionContent(context.db, scope.revision.root), signer };
}

export type DocumentFormat = 'document' | 'markdown';
export type Evaluation = boolean | 'deterministic-only';

export interface PageRead {
  view: RevisionView;
  page: MaterializedPage;
  /** The id of the page's content as a document (`getDocumentById`); absent for pages without content. */
  documentId?: string;
  /** The content in the asked format; absent when no format was asked or the page holds no content. */
  markdown?: string;
  document?: Doc;
}

/** Pages that hold content of their own; groups and links have none. */
function holdsContent(page: MaterializedPage): boolean {
  return page.type === 'document' || page.type === 'computed';
}

/**
 * One page. Without `format` a page with content carries it as Markdown: the public API's page requires
 * either `markdown` or `document`, and Markdown is what the content is stored as, so it costs no conversion.
 */
export async function readPage(
  context: ServiceContext,
  scope: ContentScope,
  pageId: string,
  options: { format?: DocumentFormat; evaluated?: Evaluation },
): Promise<PageRead> {
  const view = await readRevision(context, scope);
  const entry = view.content.pages.get(pageId);
  if (!entry) throw new NotFoundError('No page matches this id');
  const { page } = entry;
  if (!holdsContent(page)) return { view, page };
  const documentId = documentIdOf(scope.revision.id, page.id);
  let markdown = await readPageMarkdown(context.db, page);
  if (evaluates(options.evaluated)) markdown = evaluateExpressions(markdown, page.variables ?? {});
  if (options.format !== 'document') return { view, page, documentId, markdown };
  try {
    const document = await markdownToDocumentOffThread(markdown, {
      ...(page.path !== undefined ? { pagePath: page.path } : {}),
      pageIds: pageIdsByPath(view.content.byPath),
      what: "the page's markdown",
    });
    return { view, page, documentId, document };
  } catch (error) {
    // Markdown stored before the content limits existed: readable as markdown only.
    if (error instanceof ContentError) throw new BadRequestError(`${error.message}, so it cannot be read with format=document; read it with format=markdown`);
    throw error;
  }
}

/**
 * A page's document is its content in one revision: revisions never change, so the revision and the page
 * name it for good. Revision ids are base62 (`newId`), so the first dot ends them.
 */
export function documentIdOf(revisionId: string, pageId: string): string {
  return `${revisionId}.${pageId}`;
}

export function parseDocumentId(documentId: string): { revisionId: string; pageId: string } | undefined {
  const dot = documentId.indexOf('.');
  if (dot <= 0 || dot === documentId.length - 1) return undefined;
  return { revisionId: documentId.slice(0, dot), pageId: documentId.slice(dot + 1) };
}

/**
 * The query validator cannot coerce `evaluated` (a boolean or a string), so `true` may arrive as the text
 * of the query string.
 */
export function evaluates(evaluated: Evaluation | string | undefined): boolean {
  return evaluated === true || evaluated === 'true' || evaluated === 'deterministic-only';
}

const EXPRESSION = /\{\{\s*(page|space)\.vars\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;

/**
 * The expressions Quire content can hold are variable references, `{{ page.vars.name }}` and
 * `{{ space.vars.name }}`; evaluating replaces those whose variable is defined by its value and leaves the
 * others as written. Variables are fixed inputs, so `deterministic-only` evaluates exactly what `true`
 * does. Spaces define no variables of their own (a revision's `variables` is empty), so only page
 * variables have values.
 */
export function evaluateExpressions(markdown: string, pageVariables: Readonly<Record<string, string>>, spaceVariables: Readonly<Record<string, string>> = {}): string {
  return markdown.replace(EXPRESSION, (expression, scope: string, name: string) => {
    const variables = scope === 'page' ? pageVariables : spaceVariables;
    return Object.hasOwn(variables, name) ? variables[name]! : expression;
  });
}

export interface FilePage {
  view: RevisionView;
  page: KeysetPage<MaterializedFile>;
}

/** Files of a revision listed by name then id: a stable order whose cursor still holds after later edits. */
export async function listRevisionFiles(context: ServiceContext, scope: ContentScope, query: { page?: string; limit?: number }): Promise<FilePage> {
  const { after, limit } = pageRequest(query, 2);
  const view = await readRevision(context, scope);
  const sorted = [...view.content.tree.files].sort((a, b) => compareKeys(fileKey(a), fileKey(b)));
  return { view, page: keysetOfArray(sorted, fileKey, after, limit) };
}

export async function readFile(context: ServiceContext, scope: ContentScope, fileId: string): Promise<{ view: RevisionView; file: MaterializedFile }> {
  const view = await readRevision(context, scope);
  const file = view.content.files.get(fileId);
  if (!file) throw new NotFoundError('No file matches this id');
  return { view, file };
}

function fileKey(file: MaterializedFile): CursorKey {
  return [file.name, file.id];
}

/** Code-unit order, the same on every machine (no locale). */
export function compareKeys(a: CursorKey, b: CursorKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** Keyset pagination over a list already sorted by `keyOf`, like `keysetPage` does over SQL. */
export function keysetOfArray<T>(sorted: readonly T[], keyOf: (item: T) => CursorKey, after: CursorKey | undefined, limit: number): KeysetPage<T> {
  let start = 0;
  if (after) {
    while (start < sorted.length && compareKeys(keyOf(sorted[start]!), after) <= 0) start++;
  }
  const rows = sorted.slice(start, start + limit);
  const hasMore = start + limit < sorted.length;
  return { rows, count: sorted.length, ...(hasMore && rows.length > 0 ? { nextKey: keyOf(rows[rows.length - 1]!) } : {}) };
}

// Entry points of the content operations, one per operationId. The main content of a space and the content
// of a change request answer alike, so each pair differs only in the scope it reads.

type FileQuery = { page?: string; limit?: number };
type PageQuery = { format?: DocumentFormat; evaluated?: Evaluation };

export async function getCurrentRevision(context: ServiceContext, caller: Principal, spaceId: string): Promise<RevisionView> {
  return withMergedFrom(context, caller, await readRevision(context, await mainContentScope(context, caller, spaceId)));
}

/** A merge revision names the change request it merged (`mergedFrom`), as the public API's revisions do. */
export async function withMergedFrom(context: ServiceContext, caller: Principal, view: RevisionView): Promise<RevisionView> {
  // Change requests are not published content: a visitor reads the revision without them.
  if (view.scope.revision.type !== 'merge' || isVisitor(caller)) return view;
  const changeRequest = await findChangeRequestMergedAs(context.db, view.scope.access.space.id, view.scope.revision.id);
  // Merge revisions written before merges were recorded on the request have none to name.
  if (!changeRequest) return view;
  return { ...view, mergedFrom: await changeRequestView(context, caller, { access: view.scope.access, changeRequest }) };
}

export async function getRevisionOfChangeRequestById(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string): Promise<RevisionView> {
  return readRevision(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId));
}

export async function listPages(context: ServiceContext, caller: Principal, spaceId: string): Promise<RevisionView> {
  return getCurrentRevision(context, caller, spaceId);
}

export async function listPagesInChangeRequest(context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string): Promise<RevisionView> {
  return getRevisionOfChangeRequestById(context, caller, spaceId, changeRequestId);
}

export async function getPageById(context: ServiceContext, caller: Principal, spaceId: string, pageId: string, query: PageQuery): Promise<PageRead> {
  return readPage(context, await mainContentScope(context, caller, spaceId), pageId, query);
}

export async function getPageInChangeRequestById(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, pageId: string, query: PageQuery,
): Promise<PageRead> {
  return readPage(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), pageId, query);
}

export async function listFiles(context: ServiceContext, caller: Principal, spaceId: string, query: FileQuery): Promise<FilePage> {
  return listRevisionFiles(context, await mainContentScope(context, caller, spaceId), query);
}

export async function listFilesInChangeRequestById(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, query: FileQuery,
): Promise<FilePage> {
  return listRevisionFiles(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), query);
}

export async function getFileById(context: ServiceContext, caller: Principal, spaceId: string, fileId: string): Promise<{ view: RevisionView; file: MaterializedFile }> {
  return readFile(context, await mainContentScope(context, caller, spaceId), fileId);
}

export async function getFileInChangeRequestById(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, fileId: string,
): Promise<{ view: RevisionView; file: MaterializedFile }> {
  return readFile(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), fileId);
}

/** A PDF of the space's main content (or one page of it), by the change-request PDF's path and bound. */
export async function getSpacePDF(context: ServiceContext, caller: Caller, spaceId: string, query: PdfPageQuery): Promise<{ url: string }> {
  const { access, revision } = await mainContentScope(context, caller, spaceId);
  const title = access.space.title.trim();
  return publishRevisionPdf(context, {
    spaceId: access.space.id,
    revisionId: revision.id,
    query,
    title: title === '' ? 'Untitled space' : title,
    subtitle: 'Main content',
    // Revisions never change, so a revision's PDF is the same bytes each time it is asked for.
    createdAt: revision.created_at,
    contentName: 'the space',
  });
}

/** Page ids by space path, as `markdownToDocumentOffThread` resolves links by path. */
export function pageIdsByPath(byPath: ReadonlyMap<string, { id: string }>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [path, page] of byPath) ids.set(path, page.id);
  return ids;
}
