import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/db/index.js';

/**
 * The tables and columns the migrations made, as the database's own catalogue describes them (SQLite
 * `pragma table_info`, PostgreSQL `information_schema.columns`), each column's declared type reduced to a
 * storage family: `text`, `integer`, `bigint` (PostgreSQL's int8, which node-postgres answers as a string),
 * `real`, `blob`, or the type's own name when it is none of these (`tsvector`).
 */
export interface MigratedColumn {
  family: string;
  nullable: boolean;
  /** An insert may leave it out: it has a default, is generated, or is SQLite's rowid. */
  hasDefault: boolean;
}

export async function readMigratedSchema(handle: DatabaseHandle): Promise<Map<string, Map<string, MigratedColumn>>> {
  const rows = handle.dialect === 'sqlite' ? await sqliteColumns(handle) : await postgresColumns(handle);
  const tables = new Map<string, Map<string, MigratedColumn>>();
  for (const { table, column, ...described } of rows) {
    if (!tables.has(table)) tables.set(table, new Map());
    tables.get(table)!.set(column, described);
  }
  return tables;
}

type CatalogueColumn = MigratedColumn & { table: string; column: string };

async function sqliteColumns(handle: DatabaseHandle): Promise<CatalogueColumn[]> {
  // Names starting with sqlite_ are SQLite's own (sqlite_sequence, sqlite_stat1), which no migration makes.
  const { rows } = await sql<{ table_name: string; name: string; type: string; notnull: number; pk: number; dflt_value: string | null }>`
    select m.name as table_name, p.name, p.type, p."notnull", p.pk, p.dflt_value
    from sqlite_master m join pragma_table_info(m.name) p
    where m.type = 'table' and m.name not like 'sqlite\\_%' escape '\\'`.execute(handle.db);
  return rows.map((row) => {
    const family = sqliteAffinity(row.type);
    // An INTEGER PRIMARY KEY is the rowid, which SQLite fills when an insert leaves it out.
    const rowid = row.pk === 1 && row.type.toLowerCase() === 'integer' && rows.filter((other) => other.table_name === row.table_name && other.pk > 0).length === 1;
    return {
      table: row.table_name,
      column: row.name,
      family,
      // SQLite lets a primary key other than the rowid hold NULL, a compatibility quirk of its old versions;
      // PostgreSQL refuses it, the migrations declare the key alike on both, and no write gives one.
      nullable: row.notnull === 0 && row.pk === 0,
      hasDefault: row.dflt_value !== null || rowid,
    };
  });
}

/** SQLite's rules for the affinity of a declared type (https://sqlite.org/datatype3.html, 3.1). */
function sqliteAffinity(declared: string): string {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'text';
  if (type === '' || type.includes('BLOB')) return 'blob';
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'real';
  return 'numeric';
}

const POSTGRES_FAMILIES: Record<string, string> = {
  text: 'text',
  'character varying': 'text',
  character: 'text',
  smallint: 'integer',
  integer: 'integer',
  bigint: 'bigint',
  real: 'real',
  'double precision': 'real',
  numeric: 'real',
  bytea: 'blob',
};

async function postgresColumns(handle: DatabaseHandle): Promise<CatalogueColumn[]> {
  // The handle's schema is first on the search path (db/index.ts), so current_schema() is the one migrated.
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null; is_identity: string; is_generated: string }>`
    select c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default, c.is_identity, c.is_generated
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(handle.db);
  return rows.map((row) => ({
    table: row.table_name,
    column: row.column_name,
    family: POSTGRES_FAMILIES[row.data_type] ?? row.data_type,
    nullable: row.is_nullable === 'YES',
    hasDefault: row.column_default !== null || row.is_identity === 'YES' || row.is_generated === 'ALWAYS',
  }));
}
