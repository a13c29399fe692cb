import type { Doc, MaterializedFile } from '../content/index.js';
import { NotFoundError } from '../errors.js';
import { findRevisionOfSpace } from '../stores/revision-store.js';
import type { Caller, Principal } from './caller.js';
import type { ServiceContext } from './context.js';
import {
  changeRequestContentScope,
  listRevisionFiles,
  mainContentScope,
  parseDocumentId,
  readFile,
  readPage,
  readRevision,
  withMergedFrom,
  type ContentScope,
  type DocumentFormat,
  type Evaluation,
  type FilePage,
  type PageRead,
  type RevisionView,
} from './space-content-service.js';
import { readReusableDocument, reusableIdOfDocument } from './reusable-content-service.js';
import { requireSpace } from './space-access.js';

/*
 * Reading any revision of a space by its id (earlier ones, those of change requests), pages by their path,
 * and page documents. Revisions never change, so these are the content reads of space-content-service.ts
 * with the revision named by the caller instead of the space's or a request's current one.
 */

type PageQuery = { format?: DocumentFormat; evaluated?: Evaluation };
type FileQuery = { page?: string; limit?: number };

/** A revision of the space; a revision of another space is a 404, like a missing one. */
export async function revisionContentScope(context: ServiceContext, caller: Caller, spaceId: string, revisionId: string): Promise<ContentScope> {
  const access = await requireSpace(context, caller, spaceId);
  const revision = await findRevisionOfSpace(context.db, access.space.id, revisionId);
  if (!revision) throw new NotFoundError('No revision of this space matches this id');
  return { access, revision };
}

/**
 * The page whose path is `pagePath` (slugs joined by `/`; a leading or trailing slash is ignored). Link
 * entries have no path.
 */
export async function readPageByPath(context: ServiceContext, scope: ContentScope, pagePath: string, query: PageQuery): Promise<PageRead> {
  const view = await readRevision(context, scope);
  const page = view.content.byPath.get(pagePath.replace(/^\/+|\/+$/g, ''));
  if (!page) throw new NotFoundError('No page matches this path');
  return readPage(context, scope, page.id, query);
}

/** The page's content as a document; groups and links have none. */
async function readPageDocument(context: ServiceContext, scope: ContentScope, pageId: string, evaluated: Evaluation | undefined): Promise<Doc> {
  const read = await readPage(context, scope, pageId, { format: 'document', ...(evaluated === undefined ? {} : { evaluated }) });
  if (!read.document) throw new NotFoundError('This page has no document: it is a group or a link');
  return read.document;
}

// Entry points, one per operationId.

export async function getRevisionById(context: ServiceContext, caller: Caller, spaceId: string, revisionId: string): Promise<RevisionView> {
  return withMergedFrom(context, caller, await readRevision(context, await revisionContentScope(context, caller, spaceId, revisionId)));
}

export async function listPagesInRevisionById(context: ServiceContext, caller: Caller, spaceId: string, revisionId: string): Promise<RevisionView> {
  return readRevision(context, await revisionContentScope(context, caller, spaceId, revisionId));
}

export async function listFilesInRevisionById(context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, query: FileQuery): Promise<FilePage> {
  return listRevisionFiles(context, await revisionContentScope(context, caller, spaceId, revisionId), query);
}

export async function getFileInRevisionById(
  context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, fileId: string,
): Promise<{ view: RevisionView; file: MaterializedFile }> {
  return readFile(context, await revisionContentScope(context, caller, spaceId, revisionId), fileId);
}

export async function getPageInRevisionById(
  context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, pageId: string, query: PageQuery,
): Promise<PageRead> {
  return readPage(context, await revisionContentScope(context, caller, spaceId, revisionId), pageId, query);
}

export async function getPageDocumentInRevisionById(
  context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, pageId: string, query: { evaluated?: Evaluation },
): Promise<Doc> {
  return readPageDocument(context, await revisionContentScope(context, caller, spaceId, revisionId), pageId, query.evaluated);
}

export async function getPageInRevisionByPath(
  context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, pagePath: string, query: PageQuery,
): Promise<PageRead> {
  return readPageByPath(context, await revisionContentScope(context, caller, spaceId, revisionId), pagePath, query);
}

export async function getPageByPath(context: ServiceContext, caller: Principal, spaceId: string, pagePath: string, query: PageQuery): Promise<PageRead> {
  return readPageByPath(context, await mainContentScope(context, caller, spaceId), pagePath, query);
}

export async function getPageInChangeRequestByPath(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, pagePath: string, query: PageQuery,
): Promise<PageRead> {
  return readPageByPath(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), pagePath, query);
}

/**
 * A document by the id a page or a reusable content read on its own carries (`documentId`: its revision and
 * page or reusable content). The `schema`
 * query has one answer in Quire, which has one version of its document nodes.
 */
export async function getDocumentById(context: ServiceContext, caller: Caller, spaceId: string, documentId: string): Promise<Doc> {
  const access = await requireSpace(context, caller, spaceId);
  const parsed = parseDocumentId(documentId);
  const revision = parsed ? await findRevisionOfSpace(context.db, access.space.id, parsed.revisionId) : undefined;
  const scope: ContentScope | undefined = revision ? { access, revision } : undefined;
  const reusableId = parsed ? reusableIdOfDocument(parsed.pageId) : undefined;
  if (scope && reusableId !== undefined) return readReusableDocument(context, scope, reusableId);
  const page = scope && parsed ? (await readRevision(context, scope)).content.pages.get(parsed.pageId) : undefined;
  const read = scope && page ? await readPage(context, scope, page.page.id, { format: 'document' }) : undefined;
  if (!read?.document) throw new NotFoundError('No document of this space matches this id');
  return read.document;
}
