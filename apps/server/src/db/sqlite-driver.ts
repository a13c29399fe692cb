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
 * This one differs in three ways that matter here:
 * - prepared statements are cached by SQL text, so a hot request does not re-parse its SQL each time;
 * - rows are read as arrays and turned into objects by a function made once per statement (see
 *   `rowBuilder`), which is what made reads cheap enough for the request-rate goal;
 * - transactions start with BEGIN IMMEDIATE, so a transaction that reads and then writes takes the write
 *   lock up front and waits (busy_timeout) instead of failing with SQLITE_BUSY when another process (the
 *   admin command line, a worker) committed in between.
 */
interface CachedStatement {
  statement: BetterSqlite3.Statement;
  /** For statements answering rows: makes one row object from the array SQLite answered. */
  build: ((values: unknown[]) => Record<string, unknown>) | undefined;
}

/**
 * A function that turns a row array into an object with these column names, written as one object literal.
 * better-sqlite3's own row objects are built a property at a time, with every column name looked up in V8's
 * string table for every row; measured on a 24-column row, that was half the cost of a primary-key read.
 * A literal gives every row of a statement the same hidden class at once. Later columns win over earlier ones
 * of the same name, as in better-sqlite3's objects. Names are JSON-quoted, so no column name can become
 * code; `__proto__` (which a literal would treat as the prototype) keeps the library's own rows.
 */
export function rowBuilder(columns: readonly string[]): ((values: unknown[]) => Record<string, unknown>) | undefined {
  if (columns.includes('__proto__')) return undefined;
  const fields = columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => Record<string, unknown>;
}

function readRows<R>(statement: BetterSqlite3.Statement, build: CachedStatement['build'], parameters: readonly unknown[]): R[] {
  if (!build) return statement.all(parameters) as R[];
  const values = statement.all(parameters) as unknown[][];
  const rows = new Array<R>(values.length);
  for (let index = 0; index < values.length; index++) rows[index] = build(values[index]!) as R;
  return rows;
}

/**
 * Runs a read at once, outside Kysely's executor, when no query or transaction holds the connection;
 * answers undefined when one does (the caller then goes through Kysely and waits its turn).
 */
export type ImmediateRead = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

class CachingSqliteConnection implements DatabaseConnection {
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, CachedStatement>();

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  #prepare(sql: string): CachedStatement {
    let cached = this.#statements.get(sql);
    if (!cached) {
      const statement = this.#db.prepare(sql);
      const build = statement.reader ? rowBuilder(statement.columns().map((column) => column.name)) : undefined;
      if (build) statement.raw(true);
      cached = { statement, build };
      // Queries are built from code, so the set is small; the bound only guards against generated SQL.
      if (this.#statements.size >= 500) this.#statements.clear();
      this.#statements.set(sql, cached);
    }
    return cached;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { statement, build } = this.#prepare(compiledQuery.sql);
    const parameters = compiledQuery.parameters as unknown[];
    if (statement.reader) return Promise.resolve({ rows: readRows<R>(statement, build, parameters) });
    const { changes } = statement.run(parameters);
    return Promise.resolve({ numAffectedRows: BigInt(changes), rows: [] });
  }

  /** Runs a statement that answers rows, synchronously. */
  readRows<R>(sql: string, parameters: readonly unknown[]): R[] {
    const { statement, build } = this.#prepare(sql);
    if (!statement.reader) throw new Error('readRows() is for statements that answer rows');
    return readRows<R>(statement, build, parameters);
  }

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

  /**
   * better-sqlite3 runs a statement synchronously, so a read started while nobody holds the connection ends
   * before anybody else can take it: it cannot see another request's unfinished transaction.
   */
  readonly immediateRead: ImmediateRead = (sql, parameters) => (this.#release ? undefined : this.#connection.readRows(sql, parameters));

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
  #driver: CachingSqliteDriver | undefined;

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  createDriver(): Driver {
    this.#driver = new CachingSqliteDriver(this.#db);
    return this.#driver;
  }

  /** See `ImmediateRead`; undefined (always wait) until Kysely has created the driver. */
  readonly immediateRead: ImmediateRead = (sql, parameters) => this.#driver?.immediateRead(sql, parameters);

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
