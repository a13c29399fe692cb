import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The loaders `warmLazyModules` runs. */
const registered: Array<() => unknown> = [];

/**
 * A library loaded the first time it is used rather than when the server starts. Start-up is measured
 * (first answer within 1.5 s of starting the process): the markdown stack, YAML, JWT signing and the
 * PostgreSQL client together took ~300 ms to load on this 2-core machine, for features most requests never
 * touch. Loading is synchronous (`require` of an ES module, Node >= 20.19), so callers stay synchronous;
 * the first caller pays the load once (tens of milliseconds), and `warmLazyModules` loads them all in the
 * background once the server is up.
 *
 * `specifier` must be a package the server depends on; the type comes from `typeof import(...)`. With
 * `warm: false` it is only ever loaded by its first use (a database client the configuration may not need).
 */
export function lazyModule<T>(specifier: string, options: { warm?: boolean } = {}): () => T {
  let loaded: T | undefined;
  const load = (): T => (loaded ??= require(specifier) as T);
  if (options.warm !== false) registered.push(load);
  return load;
}

/**
 * Loads every lazy library not loaded yet, one per `turn` (a turn of the event loop by default; the server's
 * waits for requests in flight too), so that requests arriving meanwhile wait for at most one library.
 * Answers how many libraries are now loaded.
 */
export async function warmLazyModules(turn: () => Promise<void> = () => new Promise<void>((resolve) => setImmediate(resolve))): Promise<number> {
  let count = 0;
  for (const load of registered) {
    await turn();
    load();
    count++;
  }
  return count;
}
