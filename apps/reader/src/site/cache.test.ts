import { describe, expect, it } from 'vitest';
import { LruCache } from './cache.js';

// The reader keeps in-flight answers (promises) here and forgets one that failed; a newer answer set under
// the same key meanwhile must survive the older one's failure.
describe('LruCache', () => {
  it('deleteIf forgets an entry only while it still holds the given value', () => {
    const cache = new LruCache<string>(10);
    cache.set('site', 'old');
    cache.set('site', 'new');
    cache.deleteIf('site', 'old');
    expect(cache.get('site')).toBe('new');
    cache.deleteIf('site', 'new');
    expect(cache.get('site')).toBeUndefined();
  });

  it('ages entries from the time they were set with, and drops them past the ttl', () => {
    const cache = new LruCache<string>(10, 1_000);
    cache.set('site', 'answer', 5_000);
    expect(cache.age('site', 5_600)).toBe(600);
    expect(cache.get('site', 6_000)).toBe('answer');
    expect(cache.get('site', 6_001)).toBeUndefined();
  });

  it('drops the least recently used entry past its limit', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
  });

  it('keeps an entry used between additions however many are added, while moving it only now and then', () => {
    const cache = new LruCache<number>(8);
    cache.set('hot', 0);
    for (let i = 0; i < 100; i++) {
      cache.set(`cold-${i}`, i);
      expect(cache.get('hot')).toBe(0);
    }
    expect(cache.size).toBe(8);
    // The oldest cold entries went first.
    expect(cache.get('cold-0')).toBeUndefined();
    expect(cache.get('cold-99')).toBe(99);
  });

  it('peek reads without counting the entry as used', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.peek('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual([undefined, 2, 3]);
  });
});
