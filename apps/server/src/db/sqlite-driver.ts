import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * Kysely's own SQLite driver prepares every statement on every query and opens deferred transactions.
 * This one differs in two ways that matter here:
 * - prepared statements are cached by SQL text, so a hot request does not re-parse its SQL each time;
 * - transactions start with BEGIN IMMEDIATE, so a transaction that reads and then writes takes the write
 *   lock up front and waits (busy_timeout) instead of failing with SQLITE_BUSY when another process (the
 *   admin command line, a worker) committed in between.
 */
class CachingSqliteConnection implements DatabaseConnection {
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  #prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      // Queries are built from code, so the set is small; the bound only guards against generated SQL.
      if (this.#statements.size >= 500) this.#statements.clear();
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.#prepare(compiledQuery.sql);
    const parameters = compiledQuery.parameters as unknown[];
    if (statement.reader) return Promise.resolve({ rows: statement.all(parameters) as R[] });
    const { changes } = statement.run(parameters);
    return Promise.resolve({ numAffectedRows: BigInt(changes), rows: [] });
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with SQLite');
  }
}

/** SQLite has one connection per process; a mutex hands it to one query or transaction at a time. */
class CachingSqliteDriver implements Driver {
  readonly #db: BetterSqlite3.Database;
  readonly #connection: CachingSqliteConnection;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
    this.#connection = new CachingSqliteConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => { release = resolve; });
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

export class CachingSqliteDialect implements Dialect {
  readonly #db: BetterSqlite3.Database;

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  createDriver(): Driver {
    return new CachingSqliteDriver(this.#db);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
