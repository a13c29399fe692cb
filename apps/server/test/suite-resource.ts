import { afterAll, beforeAll } from 'vitest';

/**
 * Starts something (a test server, a database) for the enclosing suite before its tests and stops it after
 * them. The answer stands for it: each property is read from it once it has started, so that suites use
 * the answer as they would the thing itself, without a `let` assigned in a hook.
 */
export function useForSuite<T extends object>(what: string, start: () => Promise<T>, stop: (started: T) => Promise<void>, startTimeoutMs?: number): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    if (started) await stop(started);
  });
  return new Proxy({} as T, {
    get(_target, property) {
      if (!started) throw new Error(`the ${what} is used before it started (use it inside tests or hooks)`);
      return Reflect.get(started, property);
    },
  });
}
