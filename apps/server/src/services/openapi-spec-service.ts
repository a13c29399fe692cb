import { createHash } from 'node:crypto';
import { isUniqueViolation } from '../db/dialect.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { enqueueJob } from '../jobs/queue.js';
import { checkOutboundUrl, guardedFetch, OutboundUrlError, redactUrl } from '../net/url-guard.js';
import { processSpecOffThread } from '../openapi-specs/spec-pool.js';
import { rootName, type SpecErrorCode, type SpecProblem } from '../openapi-specs/spec-types.js';
import { pageRequest } from '../pagination.js';
import { canManageOpenApiSpecs, membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import { canReadOpenApiSpecs, canReadOpenApiSpecRaw, type OpenApiSpecVisibility } from '../policies/openapi-spec-policy.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMembership } from '../stores/organization-store.js';
import {
  deleteOpenApiSpec,
  findOpenApiSpecById,
  findOpenApiSpecBySlug,
  findOpenApiSpecVersion,
  findOpenApiSpecVersionByHash,
  findOpenApiSpecVersionContent,
  insertOpenApiSpec,
  insertOpenApiSpecVersion,
  lastOpenApiSpecVersionNumber,
  listOpenApiSpecs,
  listOpenApiSpecVersions as listVersions,
  OPENAPI_SPEC_ORDER_KEY_LENGTH,
  OPENAPI_SPEC_VERSION_ORDER_KEY_LENGTH,
  updateOpenApiSpec,
  updateOpenApiSpecOfGeneration,
  type OpenApiSpecRow,
  type OpenApiSpecVersionRow,
  type OpenApiSpecVersionSummary,
} from '../stores/openapi-spec-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { organizationAccess } from './member-service.js';
import { inTransaction } from './transaction.js';

/*
 * OpenAPI specifications of an organization. A spec has a source (a URL fetched at each processing, or the
 * text itself); every new source is processed by a job queued in the transaction that set it: fetched
 * through the URL guard, parsed and validated off the event loop (openapi-specs/), and stored as a version only
 * when its files differ from every version the spec has (content-addressed). A processing that fails
 * records why and keeps the last good version.
 */

export const OPENAPI_SPEC_PROCESS_JOB = 'openapi.process';

export type OpenApiSpecSource = { url: string } | { text: string };

/** The spec with what the caller may do with it. */
export interface OpenApiSpecView {
  spec: OpenApiSpecRow;
  membership: OrganizationMembership;
}

export interface OpenApiSpecJobPayload {
  specId: string;
  generation: number;
}

function specNotFound(): NotFoundError {
  return new NotFoundError('The organization has no OpenAPI specification with this slug');
}

function versionNotFound(): NotFoundError {
  return new NotFoundError('The OpenAPI specification has no version with this id');
}

async function readAccess(context: ServiceContext, caller: Caller, organizationId: string): Promise<OrganizationMembership> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canReadOpenApiSpecs(access.membership)) throw new ForbiddenError('Guests cannot read the OpenAPI specifications of this organization');
  return access.membership;
}

async function specOf(context: ServiceContext, caller: Caller, organizationId: string, slug: string): Promise<OpenApiSpecView> {
  const membership = await readAccess(context, caller, organizationId);
  const spec = await findOpenApiSpecBySlug(context.db, organizationId, slug);
  if (!spec) throw specNotFound();
  return { spec, membership };
}

/**
 * The request-time checks of a source: a URL the guard refuses (scheme, local or private address) or that
 * carries credentials (which `sourceURL` would then show) is the caller's mistake, answered 400.
 */
async function checkedSource(context: ServiceContext, source: OpenApiSpecSource): Promise<{ source_url: string | null; source_text: string | null }> {
  if ('text' in source) {
    if (source.text.trim() === '') throw new BadRequestError('body.source.text is empty: send the whole OpenAPI document as JSON or YAML');
    return { source_url: null, source_text: source.text };
  }
  let url: URL;
  try {
    url = new URL(source.url);
  } catch {
    throw new BadRequestError('body.source.url is not a valid absolute URL');
  }
  // Sources are documents on the web; a file URL (which QUIRE_ALLOW_LOCAL_URLS would otherwise allow) is not one.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BadRequestError(`body.source.url must be an http or https URL, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username !== '' || url.password !== '') throw new BadRequestError('body.source.url must not carry credentials (user:password@)');
  try {
    await checkOutboundUrl(url, { allowLocal: context.allowLocalUrls === true });
  } catch (error) {
    if (error instanceof OutboundUrlError) throw new BadRequestError(`body.source.url: ${error.message}`);
    throw error;
  }
  return { source_url: url.href, source_text: null };
}

export async function listOpenAPISpecs(context: ServiceContext, caller: Caller, organizationId: string, query: { page?: string; limit?: number }): Promise<{ page: KeysetPage<OpenApiSpecRow>; membership: OrganizationMembership }> {
  const { after, limit } = pageRequest(query, OPENAPI_SPEC_ORDER_KEY_LENGTH);
  const membership = await readAccess(context, caller, organizationId);
  return { page: await listOpenApiSpecs(context.db, organizationId, after, limit), membership };
}

export async function getOpenAPISpecBySlug(context: ServiceContext, caller: Caller, organizationId: string, slug: string): Promise<OpenApiSpecView> {
  return specOf(context, caller, organizationId, slug);
}

async function insertSpec(tx: ServiceContext, organizationId: string, slug: string, source: { source_url: string | null; source_text: string | null }): Promise<OpenApiSpecRow> {
  const now = nowIso();
  const row: OpenApiSpecRow = {
    id: newId(),
    organization_id: organizationId,
    slug,
    ...source,
    visibility: 'private',
    processing_state: 'pending',
    generation: 1,
    last_version_id: null,
    last_processed_at: null,
    last_process_error_code: null,
    last_processed_errors: null,
    created_at: now,
    updated_at: now,
  };
  try {
    await insertOpenApiSpec(tx.db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`The organization already has an OpenAPI specification with the slug "${slug}"`);
    throw error;
  }
  await enqueueJob(tx.db, OPENAPI_SPEC_PROCESS_JOB, { specId: row.id, generation: row.generation } satisfies OpenApiSpecJobPayload);
  return row;
}

export async function createOpenAPISpec(context: ServiceContext, caller: Caller, organizationId: string, body: { slug: string; source: OpenApiSpecSource }): Promise<OpenApiSpecView> {
  const source = await checkedSource(context, body.source);
  return inTransaction(context, async (tx) => {
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canManageOpenApiSpecs(access.membership)) throw new ForbiddenError('Adding OpenAPI specifications needs the organization role create or higher');
    if (await findOpenApiSpecBySlug(tx.db, organizationId, body.slug)) {
      throw new ConflictError(`The organization already has an OpenAPI specification with the slug "${body.slug}"`);
    }
    return { spec: await insertSpec(tx, organizationId, body.slug, source), membership: access.membership };
  });
}

/** Sets a new source (creating the spec when the slug is free) and queues its processing; `created` says which. */
export async function createOrUpdateOpenAPISpecBySlug(context: ServiceContext, caller: Caller, organizationId: string, slug: string, body: { source: OpenApiSpecSource }): Promise<OpenApiSpecView & { created: boolean }> {
  const source = await checkedSource(context, body.source);
  return inTransaction(context, async (tx) => {
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canManageOpenApiSpecs(access.membership)) throw new ForbiddenError('Changing OpenAPI specifications needs the organization role create or higher');
    const existing = await findOpenApiSpecBySlug(tx.db, organizationId, slug);
    if (!existing) return { spec: await insertSpec(tx, organizationId, slug, source), membership: access.membership, created: true };
    const changes = { ...source, processing_state: 'pending', generation: existing.generation + 1, updated_at: nowIso() };
    await updateOpenApiSpec(tx.db, existing.id, changes);
    await enqueueJob(tx.db, OPENAPI_SPEC_PROCESS_JOB, { specId: existing.id, generation: changes.generation } satisfies OpenApiSpecJobPayload);
    return { spec: { ...existing, ...changes }, membership: access.membership, created: false };
  });
}

export async function updateOpenAPISpecBySlug(context: ServiceContext, caller: Caller, organizationId: string, slug: string, body: { visibility: OpenApiSpecVisibility }): Promise<OpenApiSpecView> {
  return inTransaction(context, async (tx) => {
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canManageOpenApiSpecs(access.membership)) throw new ForbiddenError('Changing OpenAPI specifications needs the organization role create or higher');
    const spec = await findOpenApiSpecBySlug(tx.db, organizationId, slug);
    if (!spec) throw specNotFound();
    const changes = { visibility: body.visibility, updated_at: nowIso() };
    await updateOpenApiSpec(tx.db, spec.id, changes);
    return { spec: { ...spec, ...changes }, membership: access.membership };
  });
}

/** Deletes the spec and its versions; a slug the organization does not have is already deleted. */
export async function deleteOpenAPISpecBySlug(context: ServiceContext, caller: Caller, organizationId: string, slug: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canManageOpenApiSpecs(access.membership)) throw new ForbiddenError('Deleting OpenAPI specifications needs the organization role create or higher');
    const spec = await findOpenApiSpecBySlug(tx.db, organizationId, slug);
    if (spec) await deleteOpenApiSpec(tx.db, spec.id);
  });
}

export async function listOpenAPISpecVersions(context: ServiceContext, caller: Caller, organizationId: string, slug: string, query: { page?: string; limit?: number }): Promise<{ spec: OpenApiSpecRow; page: KeysetPage<OpenApiSpecVersionSummary> }> {
  const { after, limit } = pageRequest(query, OPENAPI_SPEC_VERSION_ORDER_KEY_LENGTH);
  const { spec } = await specOf(context, caller, organizationId, slug);
  return { spec, page: await listVersions(context.db, spec.id, after, limit) };
}

export async function getLatestOpenAPISpecVersion(context: ServiceContext, caller: Caller, organizationId: string, slug: string): Promise<{ spec: OpenApiSpecRow; version: OpenApiSpecVersionSummary }> {
  const { spec } = await specOf(context, caller, organizationId, slug);
  const version = spec.last_version_id ? await findOpenApiSpecVersion(context.db, spec.id, spec.last_version_id) : undefined;
  if (!version) throw new NotFoundError('The OpenAPI specification has no version yet: no source of it has been processed successfully');
  return { spec, version };
}

export async function getOpenAPISpecVersionById(context: ServiceContext, caller: Caller, organizationId: string, slug: string, versionId: string): Promise<{ spec: OpenApiSpecRow; version: OpenApiSpecVersionSummary }> {
  const { spec } = await specOf(context, caller, organizationId, slug);
  const version = await findOpenApiSpecVersion(context.db, spec.id, versionId);
  if (!version) throw versionNotFound();
  return { spec, version };
}

export async function getLatestOpenAPISpecVersionContent(context: ServiceContext, caller: Caller, organizationId: string, slug: string): Promise<{ spec: OpenApiSpecRow; version: OpenApiSpecVersionRow }> {
  const { spec } = await specOf(context, caller, organizationId, slug);
  const version = spec.last_version_id ? await findOpenApiSpecVersionContent(context.db, spec.id, spec.last_version_id) : undefined;
  if (!version) throw new NotFoundError('The OpenAPI specification has no version yet: no source of it has been processed successfully');
  return { spec, version };
}

export async function getOpenAPISpecVersionContentById(context: ServiceContext, caller: Caller, organizationId: string, slug: string, versionId: string): Promise<{ spec: OpenApiSpecRow; version: OpenApiSpecVersionRow }> {
  const { spec } = await specOf(context, caller, organizationId, slug);
  const version = await findOpenApiSpecVersionContent(context.db, spec.id, versionId);
  if (!version) throw versionNotFound();
  return { spec, version };
}

/**
 * The raw root document of a version (`latest` for the spec's latest), for its public URL: anyone reads a
 * public spec's versions, members only a private one's. Undefined (404) whenever the caller may not know it exists.
 */
export async function rawOpenApiSpecVersion(context: ServiceContext, caller: Caller | undefined, organizationId: string, slug: string, versionId: string): Promise<{ text: string; format: string } | undefined> {
  const spec = await findOpenApiSpecBySlug(context.db, organizationId, slug);
  if (!spec) return undefined;
  const row = caller ? await findMembership(context.db, organizationId, caller.user.id) : undefined;
  const membership = row ? membershipFromRow(row) : undefined;
  if (!canReadOpenApiSpecRaw(spec.visibility as OpenApiSpecVisibility, membership)) return undefined;
  const id = versionId === 'latest' ? spec.last_version_id : versionId;
  const version = id ? await findOpenApiSpecVersionContent(context.db, spec.id, id) : undefined;
  return version ? { text: version.root_text, format: version.root_format } : undefined;
}

/** The organization's spec named by `ref` (slug, or id). */
async function specByRef(db: ServiceContext['db'], organizationId: string, ref: string): Promise<OpenApiSpecRow | undefined> {
  const bySlug = await findOpenApiSpecBySlug(db, organizationId, ref);
  if (bySlug) return bySlug;
  const byId = await findOpenApiSpecById(db, ref);
  return byId?.organization_id === organizationId ? byId : undefined;
}

/** Whether content may refer to the spec: the organization has it, with a version to read. */
export async function openApiSpecResolves(db: ServiceContext['db'], organizationId: string, ref: string): Promise<boolean> {
  return Boolean((await specByRef(db, organizationId, ref))?.last_version_id);
}

/**
 * The root document of the latest version of the organization's spec named by `ref` (its slug, or its id),
 * for content computed from it (the `openapi-reference` template) and for link checks. Undefined when the
 * organization has no such spec, or it has no version yet.
 */
export async function latestOpenApiSpecDocument(context: ServiceContext, organizationId: string, ref: string): Promise<{ spec: OpenApiSpecRow; text: string } | undefined> {
  const spec = await specByRef(context.db, organizationId, ref);
  if (!spec?.last_version_id) return undefined;
  const version = await findOpenApiSpecVersionContent(context.db, spec.id, spec.last_version_id);
  return version ? { spec, text: version.root_text } : undefined;
}

export interface OpenApiProcessOptions {
  /** Time for fetching the source URL, and each external file. Default 30 s. */
  fetchTimeoutMs?: number;
  /** Largest source, and largest external file, in bytes. Default 10 MiB. */
  maxBytes?: number;
  /** Time for parsing and validating, in the worker thread. Default 120 s. */
  processTimeLimitMs?: number;
  /** External files one document may refer to. Default 100. */
  maxFiles?: number;
}

type ProcessOutcome =
  | { ok: true; specVersion: string; files: Array<{ name: string; text: string }>; filesystem: string; warnings: SpecProblem[] }
  | { ok: false; code: SpecErrorCode; errors: SpecProblem[] };

async function fetchSource(context: ServiceContext, url: string, options: Required<OpenApiProcessOptions>): Promise<{ text: string } | ProcessOutcome> {
  try {
    const response = await guardedFetch(url, { allowLocal: context.allowLocalUrls === true, timeoutMs: options.fetchTimeoutMs, maxBytes: options.maxBytes });
    if (response.status < 200 || response.status > 299) {
      return { ok: false, code: 'FETCH_ERROR', errors: [{ message: `Fetching ${redactUrl(url)} answered HTTP ${response.status}; check that the URL serves the document publicly`, code: `http-${response.status}` }] };
    }
    return { text: response.body.toString('utf8') };
  } catch (error) {
    if (error instanceof OutboundUrlError) {
      return { ok: false, code: error.code === 'timeout' ? 'FETCH_TIMEOUT' : 'FETCH_ERROR', errors: [{ message: error.message, code: error.code }] };
    }
    throw error;
  }
}

function contentHash(files: ReadonlyArray<{ name: string; text: string }>): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.name.length}:${file.name}${Buffer.byteLength(file.text)}:`).update(file.text);
  return hash.digest('hex');
}

/**
 * The job: processes the spec's source of `generation`. A newer source (a PUT while this one waited) makes
 * it a no-op; its own job processes that. Idempotent: a rerun finds the version by its content hash.
 */
export async function processOpenApiSpec(context: ServiceContext, payload: OpenApiSpecJobPayload, options: OpenApiProcessOptions = {}): Promise<void> {
  const limits: Required<OpenApiProcessOptions> = {
    fetchTimeoutMs: options.fetchTimeoutMs ?? 30_000,
    maxBytes: options.maxBytes ?? 10 * 1024 * 1024,
    processTimeLimitMs: options.processTimeLimitMs ?? 120_000,
    maxFiles: options.maxFiles ?? 100,
  };
  const spec = await findOpenApiSpecById(context.db, payload.specId);
  if (!spec || spec.generation !== payload.generation) return;
  if (!(await updateOpenApiSpecOfGeneration(context.db, spec.id, spec.generation, { processing_state: 'progress' }))) return;

  let outcome: ProcessOutcome;
  const fetched = spec.source_url ? await fetchSource(context, spec.source_url, limits) : { text: spec.source_text ?? '' };
  if ('ok' in fetched) {
    outcome = fetched;
  } else if (Buffer.byteLength(fetched.text) > limits.maxBytes) {
    outcome = { ok: false, code: 'PARSE_ERROR', errors: [{ message: `The document is larger than the limit of ${limits.maxBytes} bytes`, code: 'too-large' }] };
  } else {
    outcome = await processSpecOffThread({
      text: fetched.text,
      ...(spec.source_url ? { sourceUrl: spec.source_url } : {}),
      allowLocal: context.allowLocalUrls === true,
      fetchTimeoutMs: limits.fetchTimeoutMs,
      maxBytes: limits.maxBytes,
      maxFiles: limits.maxFiles,
    }, limits.processTimeLimitMs);
  }

  const now = nowIso();
  await inTransaction(context, async (tx) => {
    if (!outcome.ok) {
      await updateOpenApiSpecOfGeneration(tx.db, spec.id, spec.generation, {
        processing_state: 'complete',
        last_processed_at: now,
        last_process_error_code: outcome.code,
        last_processed_errors: JSON.stringify(outcome.errors),
      });
      return;
    }
    const hash = contentHash(outcome.files);
    let version = await findOpenApiSpecVersionByHash(tx.db, spec.id, hash);
    if (!version) {
      const root = outcome.files[0]!;
      const row: OpenApiSpecVersionRow = {
        id: newId(),
        spec_id: spec.id,
        content_hash: hash,
        number: (await lastOpenApiSpecVersionNumber(tx.db, spec.id)) + 1,
        spec_version: outcome.specVersion,
        root_text: root.text,
        root_format: rootName(root.text) === 'openapi.json' ? 'json' : 'yaml',
        filesystem: outcome.filesystem,
        created_at: now,
      };
      await insertOpenApiSpecVersion(tx.db, row);
      version = row;
    }
    await updateOpenApiSpecOfGeneration(tx.db, spec.id, spec.generation, {
      processing_state: 'complete',
      last_version_id: version.id,
      last_processed_at: now,
      last_process_error_code: null,
      last_processed_errors: outcome.warnings.length > 0 ? JSON.stringify(outcome.warnings) : null,
    });
  });
}

/** The payload as queued by this service; anything else is a bug, not a retryable failure. */
export function parseOpenApiSpecJobPayload(payload: unknown): OpenApiSpecJobPayload {
  const value = payload as Partial<OpenApiSpecJobPayload> | null;
  if (!value || typeof value.specId !== 'string' || typeof value.generation !== 'number') throw new Error('openapi.process job payload is not {specId, generation}');
  return { specId: value.specId, generation: value.generation };
}
