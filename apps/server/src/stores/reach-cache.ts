import type { Db } from '../db/index.js';
import { prepared } from './prepared.js';

/**
 * What a viewer reaches of an organization (the spaces a member or a guest sees), computed by the SQL of
 * visibility.ts and kept in memory with the organization's `access_version`, read before computing. The
 * database's triggers bump that version in the transaction of every write a reach is computed from (migration
 * 0202 lists them), so a reach kept under the version read now is what the SQL would answer now: a grant
 * removed or a member taken out of a team shows at the next request, in every process on the database.
 * Reading the version first matters: a reach computed after a concurrent change is kept under the older
 * version, and so computed again next time, never the other way round.
 *
 * Why keep it: a list of what someone sees otherwise decides it again on every page: a guest's reads their
 * grants, walks the collections down from them, groups and sorts every space they reach; a member's reads
 * every space of the organization to keep those their levels and grants open. Either made the list of 100
 * spaces slower than the admin's list of 1,000 (`npm run bench`); with the reach kept, a page is one read of
 * its own rows by id.
 *
 * Bounds: at most MAX_REACH_ENTRIES entries per viewer, which bounds the work of computing one, once per
 * viewer and change of access: on SQLite it runs on the event loop, and on a 2-core VM a member's reach of
 * 1,000 spaces took 3-11 ms, 2,000 took 4-13 ms and 5,000 took 9-27 ms. A larger reach is not kept (that
 * too is remembered until the version moves) and its lists use the SQL, as before.
 * MAX_CACHED_ENTRIES in all per database, the least recently used reaches going first: an entry is a few
 * short strings (about 200 bytes), so the cache stays under about 40 MB.
 */
export const MAX_REACH_ENTRIES = 2_000;
export const MAX_CACHED_ENTRIES = 200_000;

export interface Reach<Entry extends { id: string }> {
  /** In the order the SQL gave them. */
  entries: readonly Entry[];
  /** Where each entry's id is in `entries`. */
  indexOf: ReadonlyMap<string, number>;
}

export interface Kept {
  version: number;
  /** undefined: too large to keep at this version (lists use the SQL until the version moves). */
  reach: Reach<{ id: string }> | undefined;
  size: number;
}

/** The reaches kept for one database, least recently used first (a Map keeps insertion order). */
export class ReachCache {
  private readonly kept = new Map<string, Kept>();
  private total = 0;

  constructor(private readonly maxEntries = MAX_CACHED_ENTRIES) {}

  /** Entries kept in all (each reach counting at least one). */
  get size(): number {
    return this.total;
  }

  get(key: string, version: number): Kept | undefined {
    const kept = this.kept.get(key);
    if (kept === undefined || kept.version !== version) return undefined;
    this.kept.delete(key);
    this.kept.set(key, kept);
    return kept;
  }

  set(key: string, kept: Kept): void {
    this.remove(key);
    this.kept.set(key, kept);
    this.total += kept.size;
    for (const [oldest, entry] of this.kept) {
      if (this.total <= this.maxEntries) break;
      this.kept.delete(oldest);
      this.total -= entry.size;
    }
  }

  private remove(key: string): void {
    const previous = this.kept.get(key);
    if (previous === undefined) return;
    this.kept.delete(key);
    this.total -= previous.size;
  }
}

const caches = new WeakMap<Db, ReachCache>();

const accessVersionOf = prepared((db: Db, organizationId: string) =>
  db.selectFrom('organizations').select('access_version').where('id', '=', organizationId));

/**
 * The viewer's reach of `kind` in the organization: kept, or computed by `compute` (asked for at most
 * `limit` + 1 entries) and kept. Undefined when it cannot be kept (too large, an organization that is gone,
 * a transaction, whose writes the version of other readers does not describe yet): the caller asks the
 * SQL directly.
 */
export async function cachedReach<Entry extends { id: string }>(
  db: Db,
  kind: string,
  organizationId: string,
  userId: string,
  compute: (limit: number) => Promise<Entry[]>,
): Promise<Reach<Entry> | undefined> {
  if (db.isTransaction) return undefined;
  const [row] = await accessVersionOf(db, organizationId);
  if (row === undefined) return undefined;
  const version = Number(row.access_version);
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new ReachCache();
    caches.set(db, cache);
  }
  const key = `${kind}\u0000${organizationId}\u0000${userId}`;
  const kept = cache.get(key, version);
  if (kept !== undefined) return kept.reach as Reach<Entry> | undefined;
  const entries = await compute(MAX_REACH_ENTRIES);
  const reach = entries.length > MAX_REACH_ENTRIES ? undefined : { entries, indexOf: new Map(entries.map((entry, index) => [entry.id, index])) };
  // An empty or refused reach still takes a place, so that the count of kept reaches is bounded too.
  cache.set(key, { version, reach, size: Math.max(1, reach?.entries.length ?? 1) });
  return reach;
}
