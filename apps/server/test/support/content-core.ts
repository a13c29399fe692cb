import { MemoryObjectStore, TreeWriter, type NewObject } from '../../src/content/objects.js';

/*
 * Helpers for the content core's unit tests (src/content/*.test.ts): fixed clocks and ids, and storing what a
 * tree writer made.
 */

/** A clock that answers increasing, fixed timestamps, so tests can assert createdAt/updatedAt. */
export function fixedClock(start = Date.UTC(2024, 0, 1)): () => string {
  let now = start;
  return () => new Date((now += 1000)).toISOString();
}

/** Ids `<prefix>1`, `<prefix>2`... so tests know which id a new page or file gets. */
export function sequentialIds(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${++n}`;
}

/** Stores what a writer made for `root`, as the service does at the end of a transaction; answers it. */
export function flush(store: MemoryObjectStore, writer: TreeWriter, root: string | null): NewObject[] {
  const objects = writer.collect(root);
  store.write(objects);
  return objects;
}

export function bytesOf(objects: readonly NewObject[]): number {
  return objects.reduce((sum, object) => sum + object.body.byteLength, 0);
}
