/**
 * A map that forgets its least recently used entries past `limit` and entries older than `ttlMs`.
 * Recency is kept by moving a used entry to the end of the map's order, except when it is already among the
 * last quarter of the limit moved or added: such an entry cannot be dropped before three quarters of the
 * limit are added after it, so moving it again changes nothing that matters, and a hot entry (the cached
 * page a busy site answers thousands of times a second) then costs one map read per use instead of a delete
 * and an insert.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; at: number; moved: number }>();
  /** Moves and additions so far: an entry's `moved` is this count when it last went to the end. */
  private moves = 0;
  constructor(private readonly limit: number, private readonly ttlMs = Infinity) {}

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    if (this.moves - entry.moved > this.limit / 4) {
      this.entries.delete(key);
      entry.moved = ++this.moves;
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  /** The value, without counting it as used (and undefined when expired). */
  peek(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    return entry && now - entry.at <= this.ttlMs ? entry.value : undefined;
  }

  /** How long ago the entry was set, or undefined when there is none (or it expired). */
  age(key: string, now = Date.now()): number | undefined {
    const entry = this.entries.get(key);
    return entry && now - entry.at <= this.ttlMs ? now - entry.at : undefined;
  }

  set(key: string, value: V, now = Date.now()): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: now, moved: ++this.moves });
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Forgets the entry, only if it still holds `value` (a newer one set meanwhile is kept). */
  deleteIf(key: string, value: V): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  /** Forgets every entry whose key and value `matches`. */
  deleteWhere(matches: (key: string, value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(key, entry.value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
