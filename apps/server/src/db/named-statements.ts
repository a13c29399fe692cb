import type { Client, ClientConfig, QueryConfig } from 'pg';

/*
 * Named prepared statements on PostgreSQL for the queries every request makes (`stores/prepared.ts`: the token
 * lookup, the space with its collections...). Kysely sends each query as an unnamed statement, which PostgreSQL
 * parses and plans again every time: measured on the 2-core machine (PostgreSQL 15 on it, one connection,
 * 3,000 runs), the space-with-collections CTE cost its backend 347-350 µs of CPU per run unnamed and 93-100 µs
 * named, and the client 107-188 µs against 73-99 µs. The CPU PostgreSQL saves is the API's too on a machine
 * where both run.
 *
 * Only SQL texts registered here are named: they are fixed by the code (one per `prepared()` query and
 * database), so each connection holds at most that many statements. Every other query stays unnamed, as
 * Kysely sends it (lists with `in (...)` of any length would otherwise fill connections with statements).
 */

const names = new Map<string, string>();

/** Runs `text` as a named prepared statement on every PostgreSQL connection from now on. */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `quire_${names.size + 1}`);
}

/** The name a connection gives `text` (undefined: sent unnamed); for tests. */
export function statementNameOf(text: string): string | undefined {
  return names.get(text);
}

/** PostgreSQL's `feature_not_supported`: a prepared statement's result columns changed under it (a migration). */
const CACHED_PLAN_CHANGED = '0A000';

type PgClientClass = typeof Client;

/**
 * The pool's client class: `query(text, values)` of a registered text runs as a named statement. When a
 * migration changes what a statement's `*` reads while a connection holds it prepared, PostgreSQL refuses it
 * ("cached plan must not change result type"); the connection then prepares it again under a new name and
 * runs it once more (nothing ran: the refusal comes before execution).
 */
export function namingClientClass(Base: PgClientClass): PgClientClass {
  class NamingClient extends Base {
    /** Bumped when a prepared statement went stale, so that each is prepared again under a fresh name. */
    #generation = 0;

    constructor(config?: string | ClientConfig) {
      super(config);
    }

    // pg's overloads cannot be restated one by one here; the arguments go through unchanged unless named.
    override query(...args: unknown[]): never {
      const [text, values, callback] = args;
      const name = typeof text === 'string' && typeof values !== 'function' && callback === undefined ? names.get(text) : undefined;
      if (name === undefined) return (super.query as (...a: unknown[]) => never)(...args);
      const run = () => (super.query as (config: QueryConfig) => Promise<unknown>)({
        name: this.#generation === 0 ? name : `${name}_${this.#generation}`,
        text: text as string,
        values: (values ?? []) as unknown[],
      });
      return run().catch((error: unknown) => {
        if ((error as { code?: unknown }).code !== CACHED_PLAN_CHANGED) throw error;
        this.#generation++;
        return run();
      }) as never;
    }
  }
  return NamingClient as unknown as PgClientClass;
}
