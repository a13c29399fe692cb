import type { Compilable, CompiledQuery } from 'kysely';
import { immediateReader, type Db } from '../db/index.js';
import { nameStatement } from '../db/named-statements.js';

/**
 * A query built and compiled once per database, then run with new parameter values. Building a Kysely
 * query (parsing references, freezing nodes, compiling to SQL) costs more than running it on SQLite, so the
 * queries every request makes (token lookup, loading the caller's organization) use this.
 *
 * `build` receives placeholder values and must use each parameter exactly as a bound value (not in SQL
 * text); the compiled query's parameters are then found by their placeholders and replaced on each call.
 * On SQLite, a select runs at once when the connection is free (see `immediateReader`), which halves the
 * cost of the reads every request makes. On PostgreSQL it runs as a named prepared statement
 * (db/named-statements.ts).
 */
export function prepared<P extends string[], R>(build: (db: Db, ...params: P) => Compilable<R>, options: { read?: boolean } = {}): (db: Db, ...params: P) => Promise<R[]> {
  const cache = new WeakMap<Db, { compiled: CompiledQuery<R>; slots: number[]; isSelect: boolean }>();
  return async (db, ...params) => {
    let entry = cache.get(db);
    if (!entry) {
      const placeholders = params.map((_, index) => `\u0000prepared-parameter-${index}\u0000`) as P;
      const compiled = build(db, ...placeholders).compile();
      const slots = compiled.parameters.map((value) => placeholders.indexOf(value as string));
      // On PostgreSQL, parsed and planned once per connection instead of on every run.
      nameStatement(compiled.sql);
      // A raw statement (`sql`) says itself whether it only reads.
      entry = { compiled, slots, isSelect: compiled.query.kind === 'SelectQueryNode' || options.read === true };
      cache.set(db, entry);
    }
    const { compiled, slots, isSelect } = entry;
    const parameters = compiled.parameters.map((value, index) => (slots[index]! >= 0 ? params[slots[index]!] : value));
    if (isSelect) {
      const rows = immediateReader(db)?.(compiled.sql, parameters);
      if (rows) return rows as R[];
    }
    const result = await db.executeQuery<R>({ ...compiled, parameters });
    return result.rows;
  };
}
