import { ContentError, markdownToDocumentOffThread, materialize, MemoryObjectStore, referencePagesOffThread, WorkingTree, type Doc, type MaterializedPage } from '../content/index.js';
import { BadRequestError, UnprocessableContentError } from '../errors.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { latestOpenApiSpecDocument } from './openapi-spec-service.js';
import { requireSpace, type SpaceAccess } from './space-access.js';
import { clipTitle, generatedPageId } from './template-service.js';

/*
 * Computed content: documents made from a source rather than written. Quire computes what it holds the
 * source of, the reference of an organization's OpenAPI specification (`builtin:openapi`), with the same
 * pages as the `openapi-reference` template; translations and integrations' sources are not something a
 * self-hosted Quire has, so they are a 422 that says so rather than an empty answer.
 */

export interface ComputedSource {
  type: string;
  props?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
}

const OPENAPI_SOURCE = 'builtin:openapi';

function notComputed(what: string): UnprocessableContentError {
  return new UnprocessableContentError(`Quire does not compute ${what}; it computes ${OPENAPI_SOURCE} documents (props.doc info or operations)`);
}

/** The slug in `dependencies.spec.ref` (`{kind: openapi, spec}`), unresolved or resolved alike. */
function specSlugOf(source: ComputedSource): string {
  const spec = source.dependencies?.spec as { ref?: { kind?: unknown; spec?: unknown } } | undefined;
  const ref = spec?.ref;
  if (!ref || ref.kind !== 'openapi' || typeof ref.spec !== 'string' || ref.spec === '') {
    throw new BadRequestError('body.source.dependencies.spec.ref must name an OpenAPI specification: {kind: "openapi", spec: <slug>}');
  }
  return ref.spec;
}

/** The pages of the reference of the specification the source names (its latest processed version). */
async function openApiReference(context: ServiceContext, organizationId: string, source: ComputedSource) {
  const slug = specSlugOf(source);
  const latest = await latestOpenApiSpecDocument(context, organizationId, slug);
  if (!latest) throw new UnprocessableContentError(`body.source.dependencies.spec: the organization has no OpenAPI specification "${slug}" with a processed version`);
  // Large documents are read in the markdown worker thread, as the template does.
  const made = await referencePagesOffThread(latest.text, latest.spec.slug);
  if ('invalid' in made) throw new UnprocessableContentError(`body.source.dependencies.spec is not an OpenAPI specification: ${made.invalid}`);
  if ('refused' in made) throw new UnprocessableContentError(`body.source.dependencies.spec: ${made.refused}`);
  return { slug, made };
}

/** The markdown of the document `props` asks for, from the reference of the specification. */
async function openApiDocumentMarkdown(context: ServiceContext, organizationId: string, source: ComputedSource): Promise<string> {
  const doc = source.props?.doc;
  if (doc === 'models') throw notComputed('the models document of an OpenAPI specification');
  if (doc !== 'info' && doc !== 'operations') throw new BadRequestError('body.source.props.doc must be info, operations or models');
  const page = source.props?.page;
  if (doc === 'operations' && (typeof page !== 'string' || page === '')) throw new BadRequestError('body.source.props.page must name the tag of the operations');
  const { slug, made } = await openApiReference(context, organizationId, source);
  if (doc === 'info') return made.intro;
  const tag = made.tags.find((candidate) => candidate.name === page);
  if (!tag) throw new UnprocessableContentError(`body.source.props.page: the specification "${slug}" has no tag "${String(page)}"`);
  return tag.markdown;
}

/** Computes the document the source describes for a space the caller sees; changes nothing. */
export async function getComputedDocument(context: ServiceContext, caller: Caller, spaceId: string, body: { source: ComputedSource; seed: string }): Promise<Doc> {
  const access = await requireSpace(context, caller, spaceId);
  if (body.source.type !== OPENAPI_SOURCE) throw notComputed(`sources of type ${body.source.type}`);
  const markdown = await openApiDocumentMarkdown(context, access.space.organization_id, body.source);
  try {
    return await markdownToDocumentOffThread(markdown, { what: 'the computed document' });
  } catch (error) {
    if (error instanceof ContentError) throw new UnprocessableContentError(error.message);
    throw error;
  }
}

/** A computed page with its content, as a revision below the computed page would hold it. */
export interface ComputedPage {
  page: MaterializedPage;
  markdown: string;
}

/** What a source computes: pages (files and reusable contents: `builtin:openapi` makes none). */
export interface ComputedRevision {
  access: SpaceAccess;
  pages: ComputedPage[];
}

/**
 * Computes the pages a source produces below a computed page, for a space the caller sees; changes nothing.
 * They are the child pages the `openapi-reference` template writes (one per tag, ids from the seed and the
 * tag), laid out by the same page tree, in memory, so that slugs and paths are what a revision would hold.
 */
export async function getComputedRevision(context: ServiceContext, caller: Caller, spaceId: string, body: { source: ComputedSource; seed: string }): Promise<ComputedRevision> {
  const access = await requireSpace(context, caller, spaceId);
  if (body.source.type !== OPENAPI_SOURCE) throw notComputed(`sources of type ${body.source.type}`);
  const models = body.source.props?.models;
  if (typeof models !== 'boolean') throw new BadRequestError('body.source.props.models must be true or false');
  if (models) throw notComputed('the models page of an OpenAPI specification (props.models true)');
  const { made } = await openApiReference(context, access.space.organization_id, body.source);
  const tree = await WorkingTree.load(new MemoryObjectStore(), null);
  const markdownById = new Map<string, string>();
  for (const tag of made.tags) {
    const id = generatedPageId(body.seed, tag.name);
    tree.insertPage({ id, title: clipTitle(tag.name), content: null }, { into: null });
    markdownById.set(id, tag.markdown);
  }
  const pages = materialize(tree).pages.map((page) => ({ page, markdown: markdownById.get(page.id) ?? '' }));
  return { access, pages };
}
