import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeEachDialect, useTestDatabase } from '../../test/dialects.js';
import { declaredFamily, readDeclaredSchema, type DeclaredColumn } from '../../test/schema-declared.js';
import { readMigratedSchema, type MigratedColumn } from '../../test/schema-migrated.js';
import type { DialectName } from './index.js';

/*
 * schema.ts is written by hand and Kysely trusts it: a column typed there that the migrations never made, or
 * typed `string` where the table holds NULLs, compiles and fails only when a query runs. This test compares it
 * with the tables the migrations make on a fresh database of each dialect.
 */

/** Tables the migrations make that schema.ts deliberately leaves out, each with its reason. */
const UNTYPED_TABLES: Record<string, { dialects: DialectName[]; reason: string }> = {
  kysely_migration: { dialects: ['sqlite', 'postgres'], reason: "Kysely's record of the migrations run, read only by its Migrator" },
  kysely_migration_lock: { dialects: ['sqlite', 'postgres'], reason: "Kysely's lock against concurrent migrations" },
  rate_limits: { dialects: ['postgres'], reason: "rate-limiter-flexible's RateLimiterPostgres table (0280), read and written only by that library's queries" },
  search_fts: { dialects: ['sqlite'], reason: 'the FTS5 index over search_sections, queried only with the raw SQL of stores/search-store.ts' },
  search_fts_data: { dialects: ['sqlite'], reason: "FTS5's own storage of search_fts" },
  search_fts_idx: { dialects: ['sqlite'], reason: "FTS5's own storage of search_fts" },
  search_fts_docsize: { dialects: ['sqlite'], reason: "FTS5's own storage of search_fts" },
  search_fts_config: { dialects: ['sqlite'], reason: "FTS5's own storage of search_fts" },
};

/** Columns the migrations make that schema.ts deliberately leaves out, as `table.column`, each with its reason. */
const UNTYPED_COLUMNS: Record<string, { dialects: DialectName[]; reason: string }> = {
  'search_sections.search_vector': {
    dialects: ['postgres'],
    reason: 'the generated tsvector of PostgreSQL full-text search, never written and read only by stores/search-store.ts',
  },
};

/**
 * Columns nullable in the database that schema.ts types as never null, as `table.column`, each with its reason:
 * SQLite cannot add a `not null` column without a default to an existing table, so a migration that adds one
 * fills every row and the store always writes it.
 */
const NULL_NEVER_STORED: Record<string, string> = {
  'change_request_reviewers.requested_by': 'added by 0170, which fills it from the not-null change_requests.created_by',
  'change_request_reviewers.revision_id': 'added by 0170, which fills it from the not-null change_requests.revision_id',
};

/** Which catalogue families a declared family may be stored as. */
const STORED_AS: Record<string, string[]> = {
  text: ['text'],
  number: ['integer', 'real'],
  // number | string: SQLite answers its 64-bit integers as numbers, node-postgres answers int8 as a string.
  bigint: ['integer', 'bigint'],
  blob: ['blob'],
};

const schemaPath = fileURLToPath(new URL('./schema.ts', import.meta.url));

/** Every difference between what schema.ts declares and what the migrations made, one sentence each. */
function schemaDifferences(
  dialect: DialectName,
  declared: Map<string, Map<string, DeclaredColumn>>,
  migrated: Map<string, Map<string, MigratedColumn>>,
): string[] {
  const differences: string[] = [];
  for (const [table, allowance] of Object.entries(UNTYPED_TABLES)) {
    if (allowance.dialects.includes(dialect) && !migrated.has(table)) differences.push(`${table}: listed as deliberately untyped, but the migrations do not make it`);
  }
  for (const [name, allowance] of Object.entries(UNTYPED_COLUMNS)) {
    const [table, column] = name.split('.') as [string, string];
    if (allowance.dialects.includes(dialect) && !migrated.get(table)?.has(column)) differences.push(`${name}: listed as deliberately untyped, but the migrations do not make it`);
  }
  for (const table of migrated.keys()) {
    if (!declared.has(table) && !UNTYPED_TABLES[table]?.dialects.includes(dialect)) differences.push(`${table}: made by the migrations, missing from schema.ts`);
  }
  for (const [table, columns] of declared) {
    const made = migrated.get(table);
    if (!made) {
      differences.push(`${table}: in schema.ts, not made by the migrations`);
      continue;
    }
    for (const [column, stored] of made) {
      if (!columns.has(column) && !UNTYPED_COLUMNS[`${table}.${column}`]?.dialects.includes(dialect)) {
        differences.push(`${table}.${column}: made by the migrations (${stored.family}), missing from schema.ts`);
      }
    }
    for (const [column, typed] of columns) {
      const stored = made.get(column);
      if (!stored) {
        differences.push(`${table}.${column}: in schema.ts, not made by the migrations`);
        continue;
      }
      const family = declaredFamily(typed);
      if (!STORED_AS[family]?.includes(stored.family)) differences.push(`${table}.${column}: typed ${family} in schema.ts, stored as ${stored.family}`);
      const neverNull = NULL_NEVER_STORED[`${table}.${column}`] !== undefined;
      if (neverNull && (typed.nullable || !stored.nullable)) differences.push(`${table}.${column}: listed as never holding NULL, but is not a nullable column typed not null`);
      if (typed.nullable !== stored.nullable && !neverNull) {
        differences.push(`${table}.${column}: ${typed.nullable ? 'nullable' : 'not nullable'} in schema.ts, ${stored.nullable ? 'nullable' : 'not null'} in the database`);
      }
      if (typed.generated && !stored.hasDefault) differences.push(`${table}.${column}: Generated in schema.ts, but the database has no default for it`);
    }
  }
  return differences;
}

describeEachDialect('db/schema.ts', (dialect) => {
  const handle = useTestDatabase(dialect);

  it('declares every table and column the migrations make, with their nullability and type family', async () => {
    const differences = schemaDifferences(dialect, readDeclaredSchema(schemaPath), await readMigratedSchema(handle));
    expect(differences).toEqual([]);
  });
});
