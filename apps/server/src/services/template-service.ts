import { createHash } from 'node:crypto';
import type { operations } from '@quire/api-types';
import { ContentError, markdownHash, referencePagesOffThread, TreeWriter, WorkingTree, type PageComputedSource } from '../content/index.js';
import { BadRequestError, ConflictError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { readBlob } from '../storage/blob-storage.js';
import { addChangeRequestContributor, lockChangeRequest, updateChangeRequestRow } from '../stores/change-request-store.js';
import { putObjects, SqlObjectReader } from '../stores/content-object-store.js';
import { findRevisionOfSpace, insertRevision, type RevisionRow } from '../stores/revision-store.js';
import { lockSpaceMainRevision, moveSpaceMainRevision } from '../stores/space-content-store.js';
import type { Caller } from './caller.js';
import { requireChangeRequest } from './change-request-service.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { latestOpenApiSpecDocument } from './openapi-spec-service.js';
import { contentReader, loadRevisionContent } from './revision-content.js';
import { enqueueSearchReindex } from './search-reindex.js';
import { assertSpacePermission, requireSpace } from './space-access.js';
import { changeRequestContentScope, mainContentScope, type ContentScope } from './space-content-service.js';

/*
 * The built-in templates of `applyTemplateToSpace`. A template is a list of pages added at the end of the
 * top level of the space's main content (a new revision that becomes main) or of a change request's
 * content (a new revision of the request). Everything a template reads (an OpenAPI file's bytes) is read
 * and turned into pages before the transaction, which locks the space (or the request) and adds the pages
 * to the content as it is then; only when the file the pages were built from changed meanwhile is the
 * template built again.
 */

/** The body of `applyTemplateToSpace`. */
export type TemplateRequest = operations['applyTemplateToSpace']['requestBody']['content']['application/json'];

/** What a template adds, and the file of the content it was built from (which must still be there). */
export interface TemplateContent {
  pages: TemplatePage[];
  source?: { fileId: string; blob: string };
}

/** A page a template adds, with its children. */
export interface TemplatePage {
  id: string;
  title: string;
  markdown: string;
  type?: 'document' | 'computed';
  computed?: PageComputedSource;
  computedSeed?: string;
  pages?: TemplatePage[];
}

/** Largest OpenAPI file the template reads (files are at most 1 MB when uploaded; Git imports may hold more). */
export const MAX_SPEC_BYTES = 10 * 1024 * 1024;
/** Times the template is built again when the content it was built on moved before it could be written. */
const MAX_ATTEMPTS = 5;
const TITLE_MAX = 100;

const WELCOME = (quickstartId: string) => `Welcome to your new space. Pages hold the content of your documentation: write them in Markdown, organise them in a tree, and publish the space when it is ready.

## What's next

- Read the [Quickstart](/pages/${quickstartId}) to write your first page.
- Invite your team to review changes in change requests before they reach the main content.
`;

const QUICKSTART = `This page walks you through the first steps.

## Write a page

Edit this page or add a new one next to it. Markdown is supported: **bold**, *italic*, \`code\`, lists, tables and images.

## Link pages

Link to another page by its path, for example \`[Welcome](../)\`, and Quire keeps the link working when the page moves.
`;

/** Ids of generated pages: the same seed and name give the same id, so a recomputation keeps page ids. */
export function generatedPageId(seed: string, name: string): string {
  const digest = createHash('sha256').update(`${seed}\n${name}`, 'utf8').digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return [...digest.subarray(0, 20)].map((byte) => alphabet[byte % 62]).join('');
}

/** A tag's name as a page title: white space folded, clipped to the longest title a page may have. */
export function clipTitle(title: string): string {
  const trimmed = title.replace(/\s+/g, ' ').trim() || 'Untitled';
  const characters = [...trimmed];
  return characters.length <= TITLE_MAX ? trimmed : `${characters.slice(0, TITLE_MAX - 1).join('')}…`;
}

async function openApiReferencePages(context: ServiceContext, scope: ContentScope, request: TemplateRequest): Promise<TemplateContent> {
  const spec = request.params?.contentRefs?.spec;
  if (!spec) throw new BadRequestError('body.params.contentRefs.spec is required by the openapi-reference template');
  let text: string;
  let fileName: string;
  let dependency: NonNullable<PageComputedSource['dependencies']>[string]['ref'];
  let source: TemplateContent['source'];
  if (spec.kind === 'openapi') {
    // The organization's specification: its latest version, as processed (fetched, validated) by the spec's job.
    const latest = await latestOpenApiSpecDocument(context, scope.access.space.organization_id, spec.spec);
    if (!latest) {
      throw new BadRequestError(`body.params.contentRefs.spec: the organization has no OpenAPI specification "${spec.spec}" with a processed version`);
    }
    text = latest.text;
    fileName = latest.spec.slug;
    dependency = { kind: 'openapi', spec: latest.spec.slug };
  } else {
    const content = await loadRevisionContent(context.db, scope.revision.root);
    const file = content.files.get(spec.file);
    if (!file) throw new BadRequestError(`body.params.contentRefs.spec names no file of the ${scope.changeRequest ? 'change request' : 'space'}`);
    if (file.size > MAX_SPEC_BYTES) throw new BadRequestError(`body.params.contentRefs.spec is larger than ${MAX_SPEC_BYTES} bytes`);
    const bytes = context.blobStorage ? await readBlob(context.blobStorage, file.blob, MAX_SPEC_BYTES) : await contentReader(context.db).getBlob(file.blob);
    if (!bytes) throw new Error(`the bytes of file ${file.id} (${file.blob}) are missing`);
    text = Buffer.from(bytes).toString('utf8');
    fileName = file.name;
    dependency = { kind: 'file', file: file.id };
    source = { fileId: file.id, blob: file.blob };
  }
  // Large documents are read in the markdown worker thread (see referencePagesOffThread).
  const made = await referencePagesOffThread(text, fileName);
  if ('invalid' in made) throw new BadRequestError(`body.params.contentRefs.spec is not an OpenAPI specification: ${made.invalid}`);
  if ('refused' in made) throw new BadRequestError(`body.params.contentRefs.spec: ${made.refused}`);
  const seed = newId();
  const pages: TemplatePage[] = [{
    id: newId(),
    title: 'API reference',
    type: 'computed',
    computed: { type: 'builtin:openapi', dependencies: { spec: { ref: dependency } } },
    computedSeed: seed,
    markdown: made.intro,
    pages: made.tags.map((tag) => ({ id: generatedPageId(seed, tag.name), title: clipTitle(tag.name), markdown: tag.markdown })),
  }];
  return { pages, ...(source ? { source } : {}) };
}

/** The pages of the template, built from the scope's content. */
export async function templateContent(context: ServiceContext, scope: ContentScope, request: TemplateRequest): Promise<TemplateContent> {
  switch (request.id) {
    case 'blank':
      return { pages: [{ id: newId(), title: 'Untitled', markdown: '' }] };
    case 'getting-started': {
      const quickstartId = newId();
      return { pages: [{ id: newId(), title: 'Welcome', markdown: WELCOME(quickstartId), pages: [{ id: quickstartId, title: 'Quickstart', markdown: QUICKSTART }] }] };
    }
    case 'openapi-reference':
      return openApiReferencePages(context, scope, request);
  }
}

/**
 * Adds the pages at the end of the top level of the tree below `root`; answers the new root. The content
 * may have moved on since the template was built: that is fine unless the file it was built from changed.
 */
async function addPages(writer: TreeWriter, root: string, content: TemplateContent): Promise<string> {
  const tree = await WorkingTree.load(writer, root);
  if (content.source && tree.getFile(content.source.fileId)?.blob !== content.source.blob) throw new ContentMoved();
  const insert = (page: TemplatePage, into: string | null): void => {
    tree.insertPage({
      id: page.id,
      title: page.title,
      ...(page.type ? { type: page.type } : {}),
      ...(page.computed ? { computed: page.computed } : {}),
      ...(page.computedSeed ? { computedSeed: page.computedSeed } : {}),
      content: markdownHash(writer, page.markdown) ?? null,
    }, { into });
    for (const child of page.pages ?? []) insert(child, page.id);
  };
  try {
    for (const page of content.pages) insert(page, null);
  } catch (error) {
    if (error instanceof ContentError) throw new BadRequestError(error.message);
    throw error;
  }
  return tree.commit(writer);
}

/** Thrown inside the transaction when what the template was built from changed: build it again. */
class ContentMoved extends Error {}

export async function applyTemplateToSpace(context: ServiceContext, caller: Caller, spaceId: string, request: TemplateRequest): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    // Read access first: an invisible space or request answers 404 before anything else is checked.
    const scope = request.changeRequestId === undefined
      ? await mainContentScope(context, caller, spaceId)
      : await changeRequestContentScope(context, caller, spaceId, request.changeRequestId);
    assertSpacePermission(scope.access, 'edit');
    if (scope.changeRequest) assertRequestEditable(scope.changeRequest.status);
    const content = await templateContent(context, scope, request);
    try {
      await inTransaction(context, (tx) => writeTemplate(tx, caller, spaceId, request, content));
      return;
    } catch (error) {
      if (!(error instanceof ContentMoved)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ConflictError('The content kept changing while the template was applied; try again');
    }
  }
}

function assertRequestEditable(status: string): void {
  if (status === 'merged' || status === 'archived') throw new ConflictError(`The change request is ${status}; its content can no longer change`);
}

/** Writes the template on top of the content as it is now, holding the lock of the space or the request. */
async function writeTemplate(tx: ServiceContext, caller: Caller, spaceId: string, request: TemplateRequest, content: TemplateContent): Promise<void> {
  const now = nowIso();
  const writer = new TreeWriter(new SqlObjectReader(tx.db));
  if (request.changeRequestId === undefined) {
    const access = await requireSpace(tx, caller, spaceId);
    assertSpacePermission(access, 'edit');
    const baseId = await lockSpaceMainRevision(tx.db, tx.dialect, access.space.id);
    const base = baseId === undefined ? undefined : await findRevisionOfSpace(tx.db, access.space.id, baseId);
    if (!base) throw new Error(`space ${access.space.id} has no main revision`);
    const root = await addPages(writer, base.root, content);
    await putObjects(tx.db, writer.collect(root));
    const revision = newRevision(access.space.id, base, root, caller, now, null);
    await insertRevision(tx.db, revision);
    // The lock makes this hold on PostgreSQL; the compare-and-set says so if anything moved main regardless.
    if (!(await moveSpaceMainRevision(tx.db, access.space.id, base.id, revision.id, now))) throw new ContentMoved();
    await enqueueSearchReindex(tx.db, access.space.id);
    return;
  }
  const { access, changeRequest: found } = await requireChangeRequest(tx, caller, spaceId, request.changeRequestId, { need: 'edit' });
  const changeRequest = await lockChangeRequest(tx.db, tx.dialect, found.id);
  if (!changeRequest) throw new ContentMoved();
  assertRequestEditable(changeRequest.status);
  const base = await findRevisionOfSpace(tx.db, access.space.id, changeRequest.revision_id);
  if (!base) throw new Error(`change request ${changeRequest.id} has no revision ${changeRequest.revision_id}`);
  const root = await addPages(writer, base.root, content);
  await putObjects(tx.db, writer.collect(root));
  const revision = newRevision(access.space.id, base, root, caller, now, changeRequest.id);
  await insertRevision(tx.db, revision);
  await updateChangeRequestRow(tx.db, changeRequest.id, { revision_id: revision.id, updated_at: now });
  await addChangeRequestContributor(tx.db, changeRequest.id, caller.user.id);
}

function newRevision(spaceId: string, base: RevisionRow, root: string, caller: Caller, now: string, changeRequestId: string | null): RevisionRow {
  return {
    id: newId(),
    space_id: spaceId,
    type: 'edits',
    parents: JSON.stringify([base.id]),
    root,
    created_at: now,
    created_by: caller.user.id,
    git: null,
    change_request_id: changeRequestId,
  };
}
