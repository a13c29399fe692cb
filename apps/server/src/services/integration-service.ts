import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from '@quire/api-types';
import { imageDimensions, sniffBytes } from '../content/index.js';
import { isUniqueViolation } from '../db/dialect.js';
import type { IntegrationTagKind } from '../db/schema.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { canAdministerIntegration, canSeeIntegration } from '../policies/integration-policy.js';
import { canViewOrganization, membershipFromRow, type OrganizationMembership } from '../policies/organization-policy.js';
import {
  deleteIntegration,
  findIntegration,
  findIntegrationVersion,
  insertIntegration,
  insertIntegrationVersion,
  INTEGRATION_ORDER_KEY_LENGTH,
  listIntegrations as listIntegrationRows,
  lockIntegration,
  replaceIntegrationTags,
  setIntegrationVerified,
  updateIntegration,
  withDetails,
  type IntegrationDetailRow,
  type IntegrationFilter,
} from '../stores/integration-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import { findMembership, findOrganizationById } from '../stores/organization-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { sealValue } from './sealed-values.js';
import { serverSecret } from './server-secret-service.js';

/*
 * Integrations published to this installation. A name belongs to the organization that first published it;
 * each publish stores a new version with its files (script, icon, preview images) in the blob storage and
 * its secrets sealed (services/sealed-values.ts), never answered nor logged. The files are served from a
 * base URL per version that holds a key of its own (`assetsKey`), see `integrationAsset`.
 */

type PublishBody = components['schemas']['PublishIntegrationBody'];

export interface IntegrationView extends IntegrationDetailRow {
  /** Key of the version's files' base URL (`urls.assets`). */
  assetsKey: string;
}

const SECRETS_KEY = { secretName: 'integration-secrets', info: 'quire integration secrets v1' };
const ASSETS_SECRET = 'integration-assets';
/** Decoded size limit of the icon and of each preview image. */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

function integrationNotFound(): NotFoundError {
  return new NotFoundError('No integration has this name');
}

async function assetsKeyOf(context: ServiceContext, name: string, version: number): Promise<string> {
  const secret = await serverSecret(context.db, ASSETS_SECRET);
  return createHmac('sha256', secret).update(`${name}\n${version}`).digest('base64url').slice(0, 32);
}

async function view(context: ServiceContext, rows: IntegrationDetailRow[]): Promise<IntegrationView[]> {
  return Promise.all(rows.map(async (row) => ({ ...row, assetsKey: await assetsKeyOf(context, row.name, row.version) })));
}

function ownerMembershipOf(row: IntegrationDetailRow): OrganizationMembership | undefined {
  return row.ownerMembership ? membershipFromRow(row.ownerMembership) : undefined;
}

// ----- publishing -----

interface StoredImage {
  blob: string;
  type: string;
}

/** Decodes a base64 image and checks that it really is one (a known header with sensible dimensions). */
function decodeImage(data: string, field: string): Uint8Array {
  const compact = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new BadRequestError(`${field} is not base64`);
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.byteLength === 0) throw new BadRequestError(`${field} is empty`);
  if (bytes.byteLength > MAX_IMAGE_BYTES) throw new BadRequestError(`${field} is larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MB`);
  const type = sniffBytes(bytes);
  const size = type?.startsWith('image/') ? imageDimensions(bytes, type) : undefined;
  if (!type?.startsWith('image/') || !size || !(size.width > 0) || !(size.height > 0)) {
    throw new BadRequestError(`${field} is not a PNG, JPEG, GIF, WebP or SVG image`);
  }
  return bytes;
}

/** The host names a block's URL patterns unfurl (and their parent domains), lower-cased: what `blockDomain` matches. */
export function blockDomains(patterns: readonly string[]): string[] {
  const domains = new Set<string>();
  for (const pattern of patterns) {
    const host = pattern.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/, 1)[0]!.replace(/:\d+$/, '').replace(/^\*\./, '').toLowerCase();
    if (!/^[a-z0-9-_.]+$/.test(host) || !host.includes('.')) continue;
    const labels = host.split('.').filter(Boolean);
    for (let index = 0; index < labels.length - 1; index++) domains.add(labels.slice(index).join('.'));
  }
  return [...domains].filter((domain) => domain.length <= 100);
}

function checkUniqueIds(items: ReadonlyArray<{ id: string }> | undefined, field: string): void {
  const seen = new Set<string>();
  (items ?? []).forEach((item, index) => {
    if (seen.has(item.id)) throw new BadRequestError(`${field}[${index}].id "${item.id}" is used twice`);
    seen.add(item.id);
  });
}

/** The definition kept with a version: the body without what is stored apart (files, secrets, owner). */
function definitionOf(body: PublishBody): Record<string, unknown> {
  const { icon: _icon, previewImages: _previews, script: _script, secrets: _secrets, organization: _organization, runtime: _runtime, ...definition } = body;
  return definition;
}

/**
 * How many times a publish is tried when other publishes of the same name commit between its read of the
 * current version and its write. Each round at least one of the racing publishes commits, so N publishes at
 * once all succeed within N tries; past this bound the caller is told to publish again (409).
 */
export const PUBLISH_ATTEMPTS = 32;

/** Another publish of the name committed first: this one is tried again with the next version number. */
class VersionRaced extends Error {}

/**
 * Publishes a version: checks the body, stores the files (outside the transaction), then seals the secrets
 * for the next version number and writes that version in one transaction, which checks the number again.
 * A publish of the same name committed in between (or, for a new name, the same name inserted at once) does
 * not fail the request: it is tried again, up to PUBLISH_ATTEMPTS times, with the number after it (the
 * secrets are sealed for one version number, so they are sealed again).
 */
export async function publishIntegration(context: ServiceContext, caller: Caller, name: string, body: PublishBody): Promise<IntegrationView> {
  checkUniqueIds(body.blocks, 'body.blocks');
  checkUniqueIds(body.contentSources, 'body.contentSources');
  if (body.title.trim().length < 2) throw new BadRequestError('body.title must have at least 2 characters besides spaces');
  const icon = body.icon !== undefined ? decodeImage(body.icon, 'body.icon') : undefined;
  const previews = (body.previewImages ?? []).map((image, index) => decodeImage(image, `body.previewImages[${index}]`));

  const organization = await findOrganizationById(context.db, body.organization);
  const membershipRow = organization ? await findMembership(context.db, organization.id, caller.user.id) : undefined;
  const membership = membershipRow ? membershipFromRow(membershipRow) : undefined;
  if (!organization || !canViewOrganization(membership)) throw new NotFoundError('No organization matches body.organization');
  if (!canAdministerIntegration(membership)) throw new ForbiddenError('Only admins of the organization can publish its integrations');
  const ownedByAnother = () => new ConflictError(`The integration name "${name}" belongs to another organization`);
  // Checked before the files are stored, and again at each try below.
  const owner = (await findIntegration(context.db, name))?.owner_id;
  if (owner !== undefined && owner !== organization.id) throw ownedByAnother();

  const storage = context.blobStorage;
  if (!storage) throw new Error('publishing integrations needs the blob storage');
  const script = await storage.put(Buffer.from(body.script, 'utf8'));
  const storedIcon: StoredImage | undefined = icon ? { blob: (await storage.put(icon)).hash, type: sniffBytes(icon)! } : undefined;
  const storedPreviews: StoredImage[] = [];
  for (const preview of previews) storedPreviews.push({ blob: (await storage.put(preview)).hash, type: sniffBytes(preview)! });

  const tags: Array<{ kind: IntegrationTagKind; value: string }> = [
    ...(body.categories ?? []).map((value) => ({ kind: 'category' as const, value })),
    ...body.scopes.map((value) => ({ kind: 'scope' as const, value })),
    ...blockDomains((body.blocks ?? []).flatMap((block) => block.urlUnfurl ?? [])).map((value) => ({ kind: 'blockDomain' as const, value })),
  ];

  /** One try at version `version`: VersionRaced when another publish of the name committed first. */
  const writeVersion = async (version: number) => {
    const secrets = body.secrets && Object.keys(body.secrets).length > 0
      ? await sealValue(context.db, SECRETS_KEY, JSON.stringify(body.secrets), `integration:${name}:${version}`)
      : null;
    const now = nowIso();
    const current = {
      version,
      title: body.title,
      target: body.target ?? 'all',
      has_blocks: (body.blocks?.length ?? 0) > 0 ? 1 : 0,
      has_content_sources: (body.contentSources?.length ?? 0) > 0 ? 1 : 0,
      updated_at: now,
    };
    return inTransaction(context, async (tx) => {
      const locked = await lockIntegration(tx.db, context.dialect, name);
      if (locked && locked.owner_id !== organization.id) throw ownedByAnother();
      if ((locked?.version ?? 0) + 1 !== version) throw new VersionRaced();
      if (locked) await updateIntegration(tx.db, name, { ...current, visibility: body.visibility ?? locked.visibility });
      else await insertIntegration(tx.db, { name, owner_id: organization.id, visibility: body.visibility ?? 'private', verified: 0, created_at: now, ...current });
      await insertIntegrationVersion(tx.db, {
        name,
        version,
        definition: JSON.stringify(definitionOf(body)),
        runtime: body.runtime ?? 'v1',
        script_blob: script.hash,
        icon_blob: storedIcon?.blob ?? null,
        icon_type: storedIcon?.type ?? null,
        preview_images: JSON.stringify(storedPreviews),
        secrets,
        published_by: caller.user.id,
        published_at: now,
      });
      await replaceIntegrationTags(tx.db, name, tags);
      // Read in the transaction that wrote it: once it commits, another publish may add a newer version, and the
      // answer is the version this request published.
      return getIntegrationByName(tx, caller, name);
    });
  };

  for (let attempt = 1; ; attempt += 1) {
    const existing = await findIntegration(context.db, name);
    // Two organizations publishing a new name at once: the first one to commit owns it.
    if (existing && existing.owner_id !== organization.id) throw ownedByAnother();
    try {
      return await writeVersion((existing?.version ?? 0) + 1);
    } catch (error) {
      // The same name inserted at once (unique name) or the same version written at once (unique name and version).
      if (!(error instanceof VersionRaced) && !isUniqueViolation(error)) throw error;
      if (attempt >= PUBLISH_ATTEMPTS) {
        throw new ConflictError(`More than ${PUBLISH_ATTEMPTS} versions of this integration were published at the same time as this one; publish again`);
      }
    }
  }
}

// ----- reads -----

export async function getIntegrationByName(context: ServiceContext, caller: Caller, name: string): Promise<IntegrationView> {
  const row = await findIntegration(context.db, name);
  if (!row) throw integrationNotFound();
  const [detail] = await withDetails(context.db, [row], caller.user.id);
  if (!detail || !canSeeIntegration(detail.visibility, ownerMembershipOf(detail))) throw integrationNotFound();
  return (await view(context, [detail]))[0]!;
}

export async function listIntegrations(context: ServiceContext, caller: Caller, query: IntegrationFilter & { page?: string; limit?: number }): Promise<KeysetPage<IntegrationView>> {
  const { after, limit } = pageRequest(query, INTEGRATION_ORDER_KEY_LENGTH);
  const { page: _page, limit: _limit, ...filter } = query;
  const page = await listIntegrationRows(context.db, caller.user.id, filter, after, limit);
  return { ...page, rows: await view(context, await withDetails(context.db, page.rows, caller.user.id)) };
}

/** Removes the integration; absent, or invisible to the caller, it is already gone for them. */
export async function unpublishIntegration(context: ServiceContext, caller: Caller, name: string): Promise<void> {
  await inTransaction(context, async (tx) => {
    const row = await lockIntegration(tx.db, context.dialect, name);
    if (!row) return;
    const membershipRow = await findMembership(tx.db, row.owner_id, caller.user.id);
    const membership = membershipRow ? membershipFromRow(membershipRow) : undefined;
    if (!canSeeIntegration(row.visibility, membership)) return;
    if (!canAdministerIntegration(membership)) throw new ForbiddenError('Only admins of the organization that owns the integration can unpublish it');
    await deleteIntegration(tx.db, name);
  });
}

/** For the operator (admin command line): marks the integration as verified, or not. */
export async function setVerified(context: ServiceContext, name: string, verified: boolean): Promise<{ name: string; verified: boolean }> {
  if (!(await setIntegrationVerified(context.db, name, verified))) throw integrationNotFound();
  return { name, verified };
}

// ----- files -----

export const ASSET_FILES = ['script.js', 'icon', 'preview-1', 'preview-2', 'preview-3'] as const;

/**
 * The stored file behind `<assets>/<file>` of a version, when the key is that version's: the hash, type and
 * name to sign a download URL for. Undefined for anything else (a wrong key answers like a missing file).
 */
export async function integrationAsset(context: ServiceContext, name: string, version: string, key: string, file: string): Promise<{ hash: string; contentType: string; filename: string } | undefined> {
  if (!/^[1-9]\d{0,8}$/.test(version)) return undefined;
  const expected = await assetsKeyOf(context, name, Number(version));
  if (key.length !== expected.length || !timingSafeEqual(Buffer.from(key), Buffer.from(expected))) return undefined;
  const row = await findIntegrationVersion(context.db, name, Number(version));
  if (!row) return undefined;
  if (file === 'script.js') return { hash: row.script_blob, contentType: 'text/javascript; charset=utf-8', filename: `${name}-${version}.js` };
  if (file === 'icon') return row.icon_blob && row.icon_type ? { hash: row.icon_blob, contentType: row.icon_type, filename: `${name}-icon` } : undefined;
  const preview = /^preview-([1-3])$/.exec(file);
  if (!preview) return undefined;
  const image = (JSON.parse(row.preview_images) as StoredImage[])[Number(preview[1]) - 1];
  return image ? { hash: image.blob, contentType: image.type, filename: `${name}-${file}` } : undefined;
}
