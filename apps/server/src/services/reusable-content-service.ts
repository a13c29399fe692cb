import { ContentError, markdownToDocumentOffThread, type Doc, type MaterializedReusable } from '../content/index.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import type { Caller, Principal } from './caller.js';
import type { ServiceContext } from './context.js';
import { revisionContentScope } from './revision-service.js';
import {
  changeRequestContentScope,
  evaluateExpressions,
  evaluates,
  mainContentScope,
  pageIdsByPath,
  readRevision,
  type ContentScope,
  type Evaluation,
  type RevisionView,
} from './space-content-service.js';
import { readPageMarkdown } from './revision-content.js';

/*
 * Reading the reusable contents of a revision: blocks defined once beside the pages and inserted in them by
 * an include tag. They are read like pages, from the main content, a change request or any revision, and
 * their body is a document of its own, named by the revision and the reusable content.
 */

export interface ReusableRead {
  view: RevisionView;
  reusable: MaterializedReusable;
  markdown: string;
  /** The id of its body as a document (`getDocumentById`); absent when the body is empty. */
  documentId?: string;
}

/** Document ids of reusable contents: the revision, then this marker, then the id (see `documentIdOf`). */
const REUSABLE_DOCUMENT = 'reusable-contents.';

export function reusableDocumentIdOf(revisionId: string, reusableId: string): string {
  return `${revisionId}.${REUSABLE_DOCUMENT}${reusableId}`;
}

/** The reusable content id a document id's part after the revision names, if it names one. */
export function reusableIdOfDocument(pagePart: string): string | undefined {
  return pagePart.startsWith(REUSABLE_DOCUMENT) ? pagePart.slice(REUSABLE_DOCUMENT.length) : undefined;
}

export async function readReusable(context: ServiceContext, scope: ContentScope, reusableId: string): Promise<ReusableRead> {
  const view = await readRevision(context, scope);
  const reusable = view.content.reusables.get(reusableId);
  if (!reusable) throw new NotFoundError('No reusable content matches this id');
  const markdown = await readPageMarkdown(context.db, reusable);
  return { view, reusable, markdown, ...(reusable.contentHash === null ? {} : { documentId: reusableDocumentIdOf(scope.revision.id, reusable.id) }) };
}

/**
 * The body as a document. A reusable content has no variables of its own and a space defines none, so
 * evaluating leaves its expressions as written; it is still done, for the day spaces define some.
 */
export async function readReusableDocument(context: ServiceContext, scope: ContentScope, reusableId: string, evaluated?: Evaluation): Promise<Doc> {
  const { view, markdown } = await readReusable(context, scope, reusableId);
  try {
    return await markdownToDocumentOffThread(evaluates(evaluated) ? evaluateExpressions(markdown, {}) : markdown, {
      pageIds: pageIdsByPath(view.content.byPath),
      what: "the reusable content's markdown",
    });
  } catch (error) {
    if (error instanceof ContentError) throw new BadRequestError(`${error.message}, so it cannot be read as a document; read it as markdown`);
    throw error;
  }
}

// Entry points, one per operationId.

export async function getReusableContentById(context: ServiceContext, caller: Principal, spaceId: string, reusableContentId: string): Promise<ReusableRead> {
  return readReusable(context, await mainContentScope(context, caller, spaceId), reusableContentId);
}

export async function getReusableContentInRevisionById(
  context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, reusableContentId: string,
): Promise<ReusableRead> {
  return readReusable(context, await revisionContentScope(context, caller, spaceId, revisionId), reusableContentId);
}

export async function getReusableContentDocumentInRevisionById(
  context: ServiceContext, caller: Caller, spaceId: string, revisionId: string, reusableContentId: string, query: { evaluated?: Evaluation },
): Promise<Doc> {
  return readReusableDocument(context, await revisionContentScope(context, caller, spaceId, revisionId), reusableContentId, query.evaluated);
}

export async function getReusableContentInChangeRequestById(
  context: ServiceContext, caller: Caller, spaceId: string, changeRequestId: string, reusableContentId: string,
): Promise<ReusableRead> {
  return readReusable(context, await changeRequestContentScope(context, caller, spaceId, changeRequestId), reusableContentId);
}
