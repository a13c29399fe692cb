import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { OpenApiSpecsTable, OpenApiSpecVersionsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';

export type OpenApiSpecRow = Selectable<OpenApiSpecsTable>;
export type OpenApiSpecVersionRow = Selectable<OpenApiSpecVersionsTable>;
/** A version without its (large) texts: what lists and version answers need. */
export type OpenApiSpecVersionSummary = Pick<OpenApiSpecVersionRow, 'id' | 'spec_id' | 'number' | 'created_at'>;

const SPEC_ORDER: KeysetOrder<OpenApiSpecRow> = { columns: ['slug', 'id'], keyOf: (row) => [row.slug, row.id] };
export const OPENAPI_SPEC_ORDER_KEY_LENGTH = SPEC_ORDER.columns.length;

const VERSION_ORDER: KeysetOrder<OpenApiSpecVersionSummary> = { columns: ['number', 'id'], keyOf: (row) => [row.number, row.id], direction: 'desc', kinds: ['number', 'string'] };
export const OPENAPI_SPEC_VERSION_ORDER_KEY_LENGTH = VERSION_ORDER.columns.length;

export async function listOpenApiSpecs(db: Db, organizationId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<OpenApiSpecRow>> {
  return keysetPage(db.selectFrom('openapi_specs').selectAll().where('organization_id', '=', organizationId), SPEC_ORDER, after, limit);
}

export async function findOpenApiSpecBySlug(db: Db, organizationId: string, slug: string): Promise<OpenApiSpecRow | undefined> {
  return db.selectFrom('openapi_specs').selectAll().where('organization_id', '=', organizationId).where('slug', '=', slug).executeTakeFirst();
}

export async function findOpenApiSpecById(db: Db, id: string): Promise<OpenApiSpecRow | undefined> {
  return db.selectFrom('openapi_specs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertOpenApiSpec(db: Db, row: OpenApiSpecRow): Promise<void> {
  await db.insertInto('openapi_specs').values(row).execute();
}

export async function updateOpenApiSpec(db: Db, id: string, changes: Updateable<OpenApiSpecsTable>): Promise<void> {
  await db.updateTable('openapi_specs').set(changes).where('id', '=', id).execute();
}

/** Updates the spec only while its source is still `generation`; whether it was. */
export async function updateOpenApiSpecOfGeneration(db: Db, id: string, generation: number, changes: Updateable<OpenApiSpecsTable>): Promise<boolean> {
  const result = await db.updateTable('openapi_specs').set(changes).where('id', '=', id).where('generation', '=', generation).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the spec; its versions go with it (foreign key cascade, and explicitly for clarity). */
export async function deleteOpenApiSpec(db: Db, id: string): Promise<void> {
  await db.deleteFrom('openapi_spec_versions').where('spec_id', '=', id).execute();
  await db.deleteFrom('openapi_specs').where('id', '=', id).execute();
}

export async function listOpenApiSpecVersions(db: Db, specId: string, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<OpenApiSpecVersionSummary>> {
  return keysetPage(db.selectFrom('openapi_spec_versions').select(['id', 'spec_id', 'number', 'created_at']).where('spec_id', '=', specId), VERSION_ORDER, after, limit);
}

export async function findOpenApiSpecVersion(db: Db, specId: string, versionId: string): Promise<OpenApiSpecVersionSummary | undefined> {
  return db.selectFrom('openapi_spec_versions').select(['id', 'spec_id', 'number', 'created_at']).where('spec_id', '=', specId).where('id', '=', versionId).executeTakeFirst();
}

export async function findOpenApiSpecVersionContent(db: Db, specId: string, versionId: string): Promise<OpenApiSpecVersionRow | undefined> {
  return db.selectFrom('openapi_spec_versions').selectAll().where('spec_id', '=', specId).where('id', '=', versionId).executeTakeFirst();
}

export async function findOpenApiSpecVersionByHash(db: Db, specId: string, contentHash: string): Promise<OpenApiSpecVersionSummary | undefined> {
  return db.selectFrom('openapi_spec_versions').select(['id', 'spec_id', 'number', 'created_at']).where('spec_id', '=', specId).where('content_hash', '=', contentHash).executeTakeFirst();
}

export async function lastOpenApiSpecVersionNumber(db: Db, specId: string): Promise<number> {
  const row = await db.selectFrom('openapi_spec_versions').select((eb) => eb.fn.max('number').as('number')).where('spec_id', '=', specId).executeTakeFirst();
  return Number(row?.number ?? 0);
}

export async function insertOpenApiSpecVersion(db: Db, row: OpenApiSpecVersionRow): Promise<void> {
  await db.insertInto('openapi_spec_versions').values(row).execute();
}
