import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import { openDatabase } from './index.js';
import { migrateToLatest } from './migrate.js';

/*
 * Copies a single-machine install's SQLite database into an empty PostgreSQL database (or schema), so that
 * the install can run as several processes on one PostgreSQL (README, "Running beyond one machine").
 *
 * Generic, so that a later migration needs nothing here: both sides are migrated to the latest schema by
 * this build, then every table the target has is copied from the source table of the same name, column by
 * column, the values coerced to the target column's type. What exists on one side only is told apart by
 * kind: SQLite's FTS5 index (a virtual table and its shadow tables) is derived from `search_sections`,
 * which is copied (PostgreSQL computes its own index, a generated column, as the rows arrive); PostgreSQL's
 * rate-limit table starts empty; Kysely's bookkeeping is the target's own. Any other table or column the
 * target lacks would be data lost, so the copy refuses to start.
 *
 * All or nothing: the copy is one transaction on the target, read from one snapshot of the source, and
 * commits only once every table's row count matches the source's. Rows go in batches (by count and by
 * bytes: a file chunk is up to 1 MB), so a large database is never one value in memory.
 */

export interface CopyDatabaseProgress {
  table: string;
  /** Tables finished so far, out of `tables`. */
  tablesDone: number;
  tables: number;
  /** Rows copied into `table` so far, and in all. */
  tableRows: number;
  rows: number;
}

export interface CopyDatabaseResult {
  tables: number;
  rows: number;
}

export interface CopyDatabaseOptions {
  onProgress?: (progress: CopyDatabaseProgress) => void;
  /** Rows per INSERT at most (PostgreSQL also caps the parameters of one statement at 65,535). */
  batchRows?: number;
  /** Bytes of values per INSERT at most, roughly. */
  batchBytes?: number;
}

/** The copy cannot be made as asked (a target that is not empty, schemas that differ); nothing was written. */
export class CopyDatabaseError extends Error {
  override readonly name = 'CopyDatabaseError';
}

const MAX_PARAMETERS = 60_000;
/** Tables no copy reads or writes: each side's own migration bookkeeping. */
const isBookkeeping = (table: string) => table.startsWith('kysely_');

interface TargetColumn {
  name: string;
  dataType: string;
}

interface TargetTable {
  name: string;
  /** Columns written by the copy, in order; generated columns are left to the target. */
  columns: TargetColumn[];
}

interface ForeignKey {
  table: string;
  constraint: string;
  references: string;
  deferrable: boolean;
}

export async function copyDatabase(source: DatabaseConfig, target: DatabaseConfig, options: CopyDatabaseOptions = {}): Promise<CopyDatabaseResult> {
  if (source.dialect !== 'sqlite' || source.file === ':memory:') throw new CopyDatabaseError('the source (DATABASE_URL) must be a sqlite: database file');
  if (target.dialect !== 'postgres') throw new CopyDatabaseError('the target (--to) must be a postgres:// URL');

  // The source first: brought to this build's schema, so that both sides have the same tables and columns.
  const sourceHandle = await openDatabase(source);
  try {
    await migrateToLatest(sourceHandle);
  } finally {
    await sourceHandle.close();
  }

  const targetHandle = await openDatabase(target);
  const sqlite = new BetterSqlite3(source.file, { readonly: true, fileMustExist: true });
  try {
    await refuseUnlessEmpty(targetHandle.db);
    await migrateToLatest(targetHandle);
    // One snapshot of the source for the whole copy, so that counts and rows agree even if a process writes.
    sqlite.exec('begin');
    return await targetHandle.db.transaction().execute((trx) => copyInto(trx, sqlite, options));
  } finally {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    sqlite.close();
    await targetHandle.close();
  }
}

/** Refuses a target that holds any row (outside migration bookkeeping): a copy never merges into an install. */
async function refuseUnlessEmpty(db: Kysely<any>): Promise<void> {
  const filled: string[] = [];
  for (const table of await listTargetTables(db)) {
    const { rows } = await sql<{ filled: boolean }>`select exists (select 1 from ${sql.table(table)}) as filled`.execute(db);
    if (rows[0]?.filled) filled.push(table);
  }
  if (filled.length > 0) {
    throw new CopyDatabaseError(`the target database is not empty (${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', ...' : ''} ${filled.length === 1 ? 'has' : 'have'} rows): copy into a new, empty database or schema`);
  }
}

async function listTargetTables(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
  return rows.map((row) => row.table_name).filter((table) => !isBookkeeping(table));
}

async function readTargetTables(db: Kysely<any>): Promise<TargetTable[]> {
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string; is_generated: string }>`
    select c.table_name, c.column_name, c.data_type, c.is_generated
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position`.execute(db);
  const tables = new Map<string, TargetTable>();
  for (const row of rows) {
    if (isBookkeeping(row.table_name)) continue;
    const table = tables.get(row.table_name) ?? { name: row.table_name, columns: [] };
    tables.set(row.table_name, table);
    if (row.is_generated === 'NEVER') table.columns.push({ name: row.column_name, dataType: row.data_type });
  }
  return [...tables.values()];
}

async function readForeignKeys(db: Kysely<any>): Promise<ForeignKey[]> {
  const { rows } = await sql<{ table_name: string; constraint_name: string; referenced: string; is_deferrable: string }>`
    select tc.table_name, tc.constraint_name, ccu.table_name as referenced, tc.is_deferrable
    from information_schema.table_constraints tc
    join information_schema.constraint_column_usage ccu
      on ccu.constraint_schema = tc.constraint_schema and ccu.constraint_name = tc.constraint_name
    where tc.constraint_schema = current_schema() and tc.constraint_type = 'FOREIGN KEY'
    group by tc.table_name, tc.constraint_name, ccu.table_name, tc.is_deferrable`.execute(db);
  return rows.map((row) => ({ table: row.table_name, constraint: row.constraint_name, references: row.referenced, deferrable: row.is_deferrable === 'YES' }));
}

/**
 * Tables in an order where what a row refers to is copied before it (parents first), and the foreign keys
 * that no order satisfies (a table referring to itself, as pages to their parent, or a cycle): those are
 * checked at the end of the copy instead, when every row is in.
 */
export function copyOrder(tables: string[], keys: ForeignKey[]): { order: string[]; deferred: ForeignKey[] } {
  const left = new Set(tables);
  const order: string[] = [];
  const deferred: ForeignKey[] = keys.filter((key) => key.table === key.references);
  const pending = keys.filter((key) => key.table !== key.references && left.has(key.references));
  while (left.size > 0) {
    const ready = [...left].filter((table) => !pending.some((key) => key.table === table && left.has(key.references)));
    // A cycle: take one of its tables anyway, and check its keys into the others at the end.
    const next = ready.length > 0 ? ready : [[...left].sort()[0]!];
    for (const table of next.sort()) {
      if (ready.length === 0) deferred.push(...pending.filter((key) => key.table === table && left.has(key.references)));
      left.delete(table);
      order.push(table);
    }
  }
  return { order, deferred };
}

interface SourceTables {
  /** Tables the copy reads, with their columns. */
  columns: Map<string, Set<string>>;
  /** Tables of the source that are derived on SQLite only (the FTS5 index and its shadow tables). */
  derived: string[];
}

function readSourceTables(sqlite: BetterSqlite3.Database): SourceTables {
  const rows = sqlite.prepare(`select name, sql from sqlite_master where type = 'table' order by name`).all() as Array<{ name: string; sql: string | null }>;
  const virtual = rows.filter((row) => /^create\s+virtual\s+table/i.test(row.sql ?? '')).map((row) => row.name);
  const derived = rows.map((row) => row.name).filter((name) => virtual.some((table) => name === table || name.startsWith(`${table}_`)));
  const columns = new Map<string, Set<string>>();
  for (const { name } of rows) {
    if (name.startsWith('sqlite_') || isBookkeeping(name) || derived.includes(name)) continue;
    const info = sqlite.prepare(`select name from pragma_table_info(?)`).all(name) as Array<{ name: string }>;
    columns.set(name, new Set(info.map((column) => column.name)));
  }
  return { columns, derived };
}

/** Every difference between the two schemas that would lose data, as one message. */
function schemaDifferences(source: SourceTables, target: TargetTable[]): string[] {
  const targetByName = new Map(target.map((table) => [table.name, table]));
  const differences: string[] = [];
  for (const [table, columns] of source.columns) {
    const copied = targetByName.get(table);
    if (!copied) {
      differences.push(`table ${table} is not in the target`);
      continue;
    }
    const written = new Set(copied.columns.map((column) => column.name));
    for (const column of columns) if (!written.has(column)) differences.push(`column ${table}.${column} is not in the target`);
  }
  return differences;
}

/** A SQLite value as the PostgreSQL column of `dataType` takes it (integers are read as bigint, never rounded). */
export function coerce(value: unknown, dataType: string): unknown {
  if (value === null || value === undefined) return null;
  switch (dataType) {
    case 'boolean':
      return typeof value === 'string' ? value === 'true' || value === '1' : Number(value) !== 0;
    case 'bytea':
      return Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8');
    case 'json':
    case 'jsonb':
      return typeof value === 'string' ? value : JSON.stringify(typeof value === 'bigint' ? value.toString() : value);
    case 'timestamp with time zone':
    case 'timestamp without time zone':
    case 'date':
      // Epoch milliseconds are the only number a timestamp is kept as; text goes as it is (ISO 8601).
      return typeof value === 'bigint' || typeof value === 'number' ? new Date(Number(value)).toISOString() : value;
    default:
      if (typeof value === 'bigint') return value.toString();
      if (Buffer.isBuffer(value)) return dataType === 'text' || dataType === 'character varying' ? value.toString('utf8') : value;
      return value;
  }
}

function sizeOf(value: unknown): number {
  if (Buffer.isBuffer(value)) return value.length;
  if (typeof value === 'string') return value.length * 2;
  return 8;
}

async function copyInto(trx: Transaction<any>, sqlite: BetterSqlite3.Database, options: CopyDatabaseOptions): Promise<CopyDatabaseResult> {
  const batchRows = options.batchRows ?? 1000;
  const batchBytes = options.batchBytes ?? 16 * 1024 * 1024;
  // Checked again inside the transaction: another process may have written since the first look.
  await refuseUnlessEmpty(trx);

  const target = await readTargetTables(trx);
  const source = readSourceTables(sqlite);
  const differences = schemaDifferences(source, target);
  if (differences.length > 0) throw new CopyDatabaseError(`the source and target schemas differ: ${differences.join('; ')}`);

  const copied = target.filter((table) => source.columns.has(table.name));
  const keys = await readForeignKeys(trx);
  const { order, deferred } = copyOrder(copied.map((table) => table.name), keys);
  // Foreign keys no order satisfies are made deferrable for this transaction only (DDL in PostgreSQL is
  // transactional) and put back before it commits.
  const madeDeferrable = deferred.filter((key) => !key.deferrable);
  for (const key of madeDeferrable) {
    await sql`alter table ${sql.table(key.table)} alter constraint ${sql.id(key.constraint)} deferrable initially deferred`.execute(trx);
  }
  if (deferred.length > 0) await sql`set constraints all deferred`.execute(trx);

  const byName = new Map(copied.map((table) => [table.name, table]));
  const progress: CopyDatabaseProgress = { table: '', tablesDone: 0, tables: order.length, tableRows: 0, rows: 0 };
  const expected = new Map<string, number>();
  for (const name of order) {
    const table = byName.get(name)!;
    const columns = table.columns.filter((column) => source.columns.get(name)!.has(column.name));
    const count = sqlite.prepare(`select count(*) as n from "${name.replaceAll('"', '""')}"`).get() as { n: number };
    expected.set(name, count.n);
    progress.table = name;
    progress.tableRows = 0;
    if (columns.length > 0) {
      const rowsPerInsert = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMETERS / columns.length)));
      const select = sqlite.prepare(`select ${columns.map((column) => `"${column.name.replaceAll('"', '""')}"`).join(', ')} from "${name.replaceAll('"', '""')}"${hasRowid(sqlite, name) ? ' order by rowid' : ''}`);
      select.safeIntegers(true);
      let batch: Array<Record<string, unknown>> = [];
      let bytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await trx.insertInto(name).values(batch).execute();
        progress.tableRows += batch.length;
        progress.rows += batch.length;
        options.onProgress?.({ ...progress });
        batch = [];
        bytes = 0;
      };
      for (const row of select.iterate() as Iterable<Record<string, unknown>>) {
        const values: Record<string, unknown> = {};
        for (const column of columns) {
          const value = coerce(row[column.name], column.dataType);
          values[column.name] = value;
          bytes += sizeOf(value);
        }
        batch.push(values);
        if (batch.length >= rowsPerInsert || bytes >= batchBytes) await flush();
      }
      await flush();
    }
    progress.tablesDone++;
    options.onProgress?.({ ...progress });
  }

  if (deferred.length > 0) await sql`set constraints all immediate`.execute(trx);
  for (const key of madeDeferrable) {
    await sql`alter table ${sql.table(key.table)} alter constraint ${sql.id(key.constraint)} not deferrable`.execute(trx);
  }
  await resetSequences(trx);

  for (const [name, rows] of expected) {
    const { rows: counted } = await sql<{ n: string }>`select count(*) as n from ${sql.table(name)}`.execute(trx);
    const actual = Number(counted[0]?.n ?? 0);
    if (actual !== rows) throw new CopyDatabaseError(`table ${name} has ${actual} rows in the target but ${rows} in the source: nothing was copied`);
  }
  return { tables: order.length, rows: progress.rows };
}

/** Serial and identity columns count on from the largest value copied, so the next insert does not collide. */
async function resetSequences(trx: Transaction<any>): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and (column_default like 'nextval(%' or is_identity = 'YES')`.execute(trx);
  for (const { table_name: table, column_name: column } of rows) {
    if (isBookkeeping(table)) continue;
    const qualified = `"${table.replaceAll('"', '""')}"`;
    await sql`select setval(pg_get_serial_sequence(${qualified}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(trx);
  }
}

/**
 * Whether a SQLite table has a rowid: rows are read in rowid order (the order they were written) where there is
 * one; a `WITHOUT ROWID` table (the search postings of 0400) is stored, and so read, in its primary key's order.
 */
function hasRowid(sqlite: BetterSqlite3.Database, table: string): boolean {
  const row = sqlite.prepare('select wr from pragma_table_list where name = ?').get(table) as { wr: number } | undefined;
  return row?.wr !== 1;
}
