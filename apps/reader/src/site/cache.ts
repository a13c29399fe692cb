/** A map that forgets its least recently used entries past `limit` and entries older than `ttlMs`. */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  constructor(private readonly limit: number, private readonly ttlMs = Infinity) {}

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** How long ago the entry was set, or undefined when there is none (or it expired). */
  age(key: string, now = Date.now()): number | undefined {
    const entry = this.entries.get(key);
    return entry && now - entry.at <= this.ttlMs ? now - entry.at : undefined;
  }

  set(key: string, value: V, now = Date.now()): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: now });
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Forgets the entry, only if it still holds `value` (a newer one set meanwhile is kept). */
  deleteIf(key: string, value: V): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
