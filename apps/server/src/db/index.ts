import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { lazyModule } from '../lazy-module.js';
import type { DatabaseConfig } from '../config.js';
import { pendingMigrations } from './migrate.js';
import type { Database } from './schema.js';
import { CachingSqliteDialect, type ImmediateRead } from './sqlite-driver.js';
import { registerChangeBus } from './change-notices.js';
import { namingClientClass } from './named-statements.js';

/** The PostgreSQL client, loaded only when DATABASE_URL is a postgres:// URL. */
const postgresClient = lazyModule<typeof import('pg')>('pg', { warm: false });

export type { Database } from './schema.js';
export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  /** The PostgreSQL schema holding the tables, when one was chosen; migrations keep their bookkeeping there. */
  schema?: string;
  /**
   * The PostgreSQL connection pool under Kysely: the shared rate limits query through it (rate-limiter-flexible
   * takes a pg pool) and /metrics reports its use.
   */
  pool?: import('pg').Pool;
  close(): Promise<void>;
}

function openSqlite(file: string): BetterSqlite3.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  // WAL lets readers run while one writer writes; synchronous=FULL syncs the WAL on every commit so that a
  // write acknowledged to a client survives a power cut; busy_timeout makes a second process (the admin
  // command line, a worker) wait for the write lock instead of failing at once.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return sqlite;
}

export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.dialect === 'sqlite') {
    const dialect = new CachingSqliteDialect(openSqlite(config.file));
    const db = new Kysely<Database>({ dialect });
    immediateReads.set(db, dialect.immediateRead);
    registerChangeBus(db, 'sqlite', undefined);
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const schema = config.schema;
  const pg = postgresClient();
  const pool = new pg.Pool({
    connectionString: config.connectionString,
    max: 10,
    // The queries every request makes run as named prepared statements (named-statements.ts).
    Client: namingClientClass(pg.Client),
    // The schema comes first on the search path so unqualified table names resolve to it.
    ...(schema ? { options: `-c search_path=${schema},public` } : {}),
  });
  if (schema) {
    // Created before Kysely uses the pool so that migrations can put their bookkeeping tables in it.
    await pool.query(`create schema if not exists "${schema}"`);
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  registerChangeBus(db, 'postgres', schema);
  return { db, dialect: 'postgres', ...(schema ? { schema } : {}), pool, close: () => db.destroy() };
}

const immediateReads = new WeakMap<Db, ImmediateRead>();

/**
 * How to run a read at once on this database, skipping Kysely's executor (its promises and bookkeeping
 * cost more than a primary-key read on SQLite): only for a SQLite database opened here, never for a
 * transaction (a different Kysely object) or PostgreSQL, which answer undefined.
 */
export function immediateReader(db: Db): ImmediateRead | undefined {
  return immediateReads.get(db);
}

/** Whether the database answers. */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/** What /readyz reports: whether this process can take traffic, and if not, which check failed. */
export interface Readiness {
  ready: boolean;
  database: 'reachable' | 'unreachable';
  /** `pending` when the database lacks a migration this build has (another process may be running them). */
  migrations: 'done' | 'pending' | 'unknown';
  pending?: string[];
}

export async function checkReadiness(db: Db, schema?: string): Promise<Readiness> {
  try {
    await ping(db);
  } catch {
    return { ready: false, database: 'unreachable', migrations: 'unknown' };
  }
  const pending = await pendingMigrations(db, schema);
  if (pending.length > 0) return { ready: false, database: 'reachable', migrations: 'pending', pending };
  return { ready: true, database: 'reachable', migrations: 'done' };
}

/**
 * Moves a SQLite database's write-ahead log into its main file and empties the log, so that the file's size
 * is the database's (benches report it).
 */
export async function checkpointSqlite(db: Db): Promise<void> {
  await sql`pragma wal_checkpoint(truncate)`.execute(db);
}
