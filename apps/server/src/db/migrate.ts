import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DatabaseHandle } from './index.js';

/** Migrations are the ordered files of ./migrations (`0001_name.ts`, ...), each exporting `up(db)`. */
export const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

const MIGRATION_FILE = /^(\d{4}_[\w-]+)\.(?:js|ts)$/;

/**
 * Kysely's FileMigrationProvider imports from inside node_modules, which a test runner that compiles
 * TypeScript on the fly cannot follow; importing from here works both from dist/ (.js) and from src/ (.ts).
 */
export const folderMigrationProvider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of (await readdir(migrationsDir)).sort()) {
      const match = MIGRATION_FILE.exec(file);
      if (!match || file.endsWith('.d.ts')) continue;
      const module = (await import(pathToFileURL(path.join(migrationsDir, file)).href)) as Partial<Migration>;
      if (typeof module.up !== 'function') throw new MigrationError(`migration ${file} does not export up()`);
      migrations[match[1]!] = { up: module.up, ...(module.down ? { down: module.down } : {}) };
    }
    return migrations;
  },
};

let knownMigrations: Promise<string[]> | undefined;

/** The names of the migrations this build has, in order (read once: they do not change while it runs). */
function migrationNames(): Promise<string[]> {
  knownMigrations ??= readdir(migrationsDir).then((files) => files
    .filter((file) => !file.endsWith('.d.ts'))
    .map((file) => MIGRATION_FILE.exec(file)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort());
  return knownMigrations;
}

/**
 * The names of the migrations the database has run, from Kysely's small bookkeeping table (none when the
 * table is not there yet); `schema` is where migrateToLatest kept it.
 */
async function executedMigrations(db: Kysely<any>, schema?: string): Promise<Set<string>> {
  const table = schema ? sql.table(`${schema}.kysely_migration`) : sql.table('kysely_migration');
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
    return new Set(rows.map((row) => row.name));
  } catch (error) {
    // No bookkeeping table yet: nothing has run. Any other failure (the database went away) is the caller's.
    if (/no such table|does not exist/i.test(error instanceof Error ? error.message : '')) return new Set();
    throw error;
  }
}

/**
 * The migrations of this build that the database has not run (all of them when it has run none): what
 * /readyz waits for, since a process must not serve a schema older than its code. One read of Kysely's
 * small bookkeeping table.
 */
export async function pendingMigrations(db: Kysely<any>, schema?: string): Promise<string[]> {
  const executed = await executedMigrations(db, schema);
  return (await migrationNames()).filter((name) => !executed.has(name));
}

/**
 * Whether the database has run exactly this build's migrations: none pending, and none this build does not
 * know (which Kysely's migrator refuses, so that case goes to it for its error).
 */
async function isUpToDate(handle: DatabaseHandle): Promise<boolean> {
  const [executed, names] = await Promise.all([executedMigrations(handle.db, handle.schema), migrationNames()]);
  return executed.size === names.length && names.every((name) => executed.has(name));
}

/**
 * The PostgreSQL advisory lock between migrations and schema drops. Kysely's migrator lists the tables of
 * every schema of the database (`pg_get_serial_sequence` on each) before it takes its own lock, and a schema
 * dropped in the middle of that listing fails it with "schema ... does not exist": so every migration holds
 * this lock shared, and `dropPostgresSchema` takes it exclusively (waiting for the migrations under way).
 */
export const SCHEMA_LISTING_LOCK = 0x7175_6972; // "quir"

/**
 * Brings the schema up to date; every entry point runs this at start. Kysely's migrator takes a lock, so a
 * server and an admin command started together do not apply the same migration twice.
 */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  // Nearly every start finds nothing to run. One read of the bookkeeping table says so; Kysely's migrator
  // would first import every migration file (37 modules) and, on PostgreSQL, take the schema-listing lock,
  // create its tables if missing (listing every table of every schema of the database to find out) and take
  // its own lock: about a tenth of the time to the first answer. The check is the same (every migration of
  // this build run, no other); anything else goes to the migrator as before.
  if (await isUpToDate(handle)) return [];
  if (handle.dialect !== 'postgres') return migrate(handle);
  // The lock lives in a transaction of its own, held open while the migrator works on other connections of
  // the pool, so that it is released however the migration ends.
  return handle.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock_shared(${SCHEMA_LISTING_LOCK})`.execute(trx);
    return migrate(handle);
  });
}

async function migrate(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({
    db: handle.db,
    provider: folderMigrationProvider,
    ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    const name = failed ? ` ${failed.migrationName}` : '';
    throw new MigrationError(`migration${name} failed: ${reason}`, { cause: error });
  }
  return (results ?? []).map((result) => result.migrationName);
}

/**
 * Drops a PostgreSQL schema and everything in it, once no migration of the database is listing schemas
 * (see SCHEMA_LISTING_LOCK). `connectionString` names the database, not the schema.
 */
export async function dropPostgresSchema(connectionString: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [SCHEMA_LISTING_LOCK]);
    await client.query(`drop schema if exists "${schema.replaceAll('"', '""')}" cascade`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
