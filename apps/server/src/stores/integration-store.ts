import { sql, type Selectable } from 'kysely';
import type { Db, DialectName } from '../db/index.js';
import type { IntegrationTagKind, IntegrationsTable, IntegrationVersionsTable, OrganizationMembersTable, OrganizationsTable } from '../db/schema.js';
import { keysetPage, type KeysetOrder, type KeysetPage } from './keyset.js';
import { containsPattern } from './member-store.js';

/** Integrations published to the installation, their versions and the tags their list filters on. */

export type IntegrationRow = Selectable<IntegrationsTable>;
export type IntegrationVersionRow = Selectable<IntegrationVersionsTable>;

/** An integration with its current version, its owner and the caller's membership in the owner (if any). */
export interface IntegrationDetailRow extends IntegrationRow {
  current: IntegrationVersionRow;
  owner: Selectable<OrganizationsTable>;
  ownerMembership: Selectable<OrganizationMembersTable> | undefined;
}

export async function findIntegration(db: Db, name: string): Promise<IntegrationRow | undefined> {
  return db.selectFrom('integrations').selectAll().where('name', '=', name).executeTakeFirst();
}

/** The integration row locked for the transaction (PostgreSQL; SQLite's one writer holds the database). */
export async function lockIntegration(db: Db, dialect: DialectName, name: string): Promise<IntegrationRow | undefined> {
  const query = db.selectFrom('integrations').selectAll().where('name', '=', name);
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

export async function insertIntegration(db: Db, row: IntegrationRow): Promise<void> {
  await db.insertInto('integrations').values(row).execute();
}

export async function updateIntegration(db: Db, name: string, patch: Partial<Omit<IntegrationRow, 'name' | 'owner_id' | 'created_at'>>): Promise<void> {
  await db.updateTable('integrations').set(patch).where('name', '=', name).execute();
}

export async function insertIntegrationVersion(db: Db, row: IntegrationVersionRow): Promise<void> {
  await db.insertInto('integration_versions').values(row).execute();
}

export async function findIntegrationVersion(db: Db, name: string, version: number): Promise<IntegrationVersionRow | undefined> {
  return db.selectFrom('integration_versions').selectAll().where('name', '=', name).where('version', '=', version).executeTakeFirst();
}

export async function replaceIntegrationTags(db: Db, name: string, tags: ReadonlyArray<{ kind: IntegrationTagKind; value: string }>): Promise<void> {
  await db.deleteFrom('integration_tags').where('name', '=', name).execute();
  const rows = [...new Map(tags.map((tag) => [`${tag.kind}\n${tag.value}`, { name, ...tag }])).values()];
  for (let start = 0; start < rows.length; start += 300) await db.insertInto('integration_tags').values(rows.slice(start, start + 300)).execute();
}

/** Deletes the integration, its versions and tags. */
export async function deleteIntegration(db: Db, name: string): Promise<void> {
  await db.deleteFrom('integration_tags').where('name', '=', name).execute();
  await db.deleteFrom('integration_versions').where('name', '=', name).execute();
  await db.deleteFrom('integrations').where('name', '=', name).execute();
}

export async function setIntegrationVerified(db: Db, name: string, verified: boolean): Promise<boolean> {
  const result = await db.updateTable('integrations').set({ verified: verified ? 1 : 0 }).where('name', '=', name).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Loads the current version, the owner and the caller's membership in it for each integration. */
export async function withDetails(db: Db, rows: readonly IntegrationRow[], callerId: string | undefined): Promise<IntegrationDetailRow[]> {
  if (rows.length === 0) return [];
  const names = rows.map((row) => row.name);
  const ownerIds = [...new Set(rows.map((row) => row.owner_id))];
  const [versions, owners, memberships] = await Promise.all([
    db.selectFrom('integration_versions as v').innerJoin('integrations as i', (join) => join.onRef('i.name', '=', 'v.name').onRef('i.version', '=', 'v.version'))
      .selectAll('v').where('v.name', 'in', names).execute(),
    db.selectFrom('organizations').selectAll().where('id', 'in', ownerIds).execute(),
    callerId === undefined ? Promise.resolve([]) : db.selectFrom('organization_members').selectAll().where('organization_id', 'in', ownerIds).where('user_id', '=', callerId).execute(),
  ]);
  const versionOf = new Map(versions.map((version) => [version.name, version]));
  const ownerOf = new Map(owners.map((owner) => [owner.id, owner]));
  const membershipOf = new Map(memberships.map((membership) => [membership.organization_id, membership]));
  return rows.map((row) => ({ ...row, current: versionOf.get(row.name)!, owner: ownerOf.get(row.owner_id)!, ownerMembership: membershipOf.get(row.owner_id) }));
}

export interface IntegrationFilter {
  search?: string;
  category?: string;
  scope?: string;
  blockDomain?: string;
  blocks?: boolean;
  contentSources?: boolean;
  owner?: string;
  target?: string;
}

const INTEGRATION_ORDER: KeysetOrder<IntegrationRow> = { columns: ['i.name'], keyOf: (row) => [row.name] };
export const INTEGRATION_ORDER_KEY_LENGTH = INTEGRATION_ORDER.columns.length;

/**
 * The integrations a caller finds, by name: `public` ones, and every one owned by an organization the caller
 * is an active member of (`private` and `unlisted` included), narrowed by the filters.
 */
export async function listIntegrations(db: Db, callerId: string, filter: IntegrationFilter, after: ReadonlyArray<string | number> | undefined, limit: number): Promise<KeysetPage<IntegrationRow>> {
  let query = db.selectFrom('integrations as i').selectAll('i').where((eb) => eb.or([
    eb('i.visibility', '=', 'public'),
    eb('i.owner_id', 'in', eb.selectFrom('organization_members as m').select('m.organization_id').where('m.user_id', '=', callerId).where('m.disabled', '=', 0)),
  ]));
  const tagged = (kind: IntegrationTagKind, value: string) => query.where((eb) => eb.exists(
    eb.selectFrom('integration_tags as t').select(sql<number>`1`.as('one')).whereRef('t.name', '=', 'i.name').where('t.kind', '=', kind).where('t.value', '=', value),
  ));
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    query = query.where((eb) => eb.or([sql<boolean>`lower(i.name) like ${pattern} escape '\\'`, sql<boolean>`lower(i.title) like ${pattern} escape '\\'`]));
  }
  if (filter.category !== undefined) query = tagged('category', filter.category);
  if (filter.scope !== undefined) query = tagged('scope', filter.scope);
  if (filter.blockDomain !== undefined) query = tagged('blockDomain', filter.blockDomain.toLowerCase());
  if (filter.blocks !== undefined) query = query.where('i.has_blocks', '=', filter.blocks ? 1 : 0);
  if (filter.contentSources !== undefined) query = query.where('i.has_content_sources', '=', filter.contentSources ? 1 : 0);
  if (filter.owner !== undefined) query = query.where('i.owner_id', '=', filter.owner);
  if (filter.target !== undefined) query = query.where('i.target', 'in', filter.target === 'all' ? ['all'] : [filter.target, 'all']);
  return keysetPage(query, INTEGRATION_ORDER, after, limit);
}
