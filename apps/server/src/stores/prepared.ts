import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from '../db/index.js';

/**
 * A query built and compiled once per database, then run with new parameter values. Building a Kysely
 * query (parsing references, freezing nodes, compiling to SQL) costs more than running it on SQLite, so the
 * queries every request makes (token lookup, loading the caller's organization) use this.
 *
 * `build` receives placeholder values and must use each parameter exactly as a bound value (not in SQL
 * text); the compiled query's parameters are then found by their placeholders and replaced on each call.
 */
export function prepared<P extends string[], R>(build: (db: Db, ...params: P) => Compilable<R>): (db: Db, ...params: P) => Promise<R[]> {
  const cache = new WeakMap<Db, { compiled: CompiledQuery<R>; slots: number[] }>();
  return async (db, ...params) => {
    let entry = cache.get(db);
    if (!entry) {
      const placeholders = params.map((_, index) => `\u0000prepared-parameter-${index}\u0000`) as P;
      const compiled = build(db, ...placeholders).compile();
      const slots = compiled.parameters.map((value) => placeholders.indexOf(value as string));
      entry = { compiled, slots };
      cache.set(db, entry);
    }
    const { compiled, slots } = entry;
    const parameters = compiled.parameters.map((value, index) => (slots[index]! >= 0 ? params[slots[index]!] : value));
    const result = await db.executeQuery<R>({ ...compiled, parameters });
    return result.rows;
  };
}
