import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/dialects.js';
import { newId } from '../ids.js';
import { createLogger } from '../logger.js';
import { batchedLimiter } from './batched-limiter.js';
import { createLimiterStore, type LimiterStore } from './limiter-store.js';

/*
 * The API limiter's batching (batched-limiter.ts) against each shared store: several limiters stand for as many
 * processes (each its own memory, one store between them), and the callers' bursts go to them in turns and all
 * at once. Whatever the interleaving, they admit at least the limit and at most `processes × maxUnsettled`
 * more, and they reach the store a few times per `maxUnsettled` points instead of once per point.
 */

const logger = createLogger('silent');

interface StoreUnderTest {
  name: string;
  /** A limiter of the store as one process would make it. */
  limiter(keyPrefix: string, points: number): RateLimiterAbstract;
  close(): Promise<void>;
}

function memoryStore(): StoreUnderTest {
  // One instance shared by the "processes": memory is what they would share if they were one.
  const shared = new Map<string, RateLimiterMemory>();
  return {
    name: 'memory',
    limiter: (keyPrefix, points) => {
      let limiter = shared.get(keyPrefix);
      if (!limiter) shared.set(keyPrefix, limiter = new RateLimiterMemory({ keyPrefix, points, duration: 60 }));
      return limiter;
    },
    close: async () => {},
  };
}

async function sharedStore(name: string, open: () => Promise<{ store: LimiterStore; close(): Promise<void> }>): Promise<StoreUnderTest> {
  const { store, close } = await open();
  return { name, limiter: (keyPrefix, points) => store.limiter({ keyPrefix, points, windowSeconds: 60 }), close: async () => { await store.close(); await close(); } };
}

const stores: Array<{ name: string; open(): Promise<StoreUnderTest> }> = [
  { name: 'memory', open: async () => memoryStore() },
  { name: 'redis', open: async () => sharedStore('redis', async () => {
    const keyPrefix = `quire-test-${newId(10).toLowerCase()}:`;
    const store = await createLimiterStore({ logger, redis: { url: 'redis://127.0.0.1:6379', keyPrefix } });
    return {
      store,
      close: async () => {
        const redis = new Redis('redis://127.0.0.1:6379');
        const keys = await redis.keys(`${keyPrefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      },
    };
  }) },
  ...(process.env.TEST_DATABASE_URL
    ? [{ name: 'postgres', open: async () => sharedStore('postgres', async () => {
      const database = await openTestDatabase('postgres');
      const store = await createLimiterStore({ logger, postgres: { pool: database.pool!, ...(database.schema ? { schema: database.schema } : {}) } });
      return { store, close: () => database.drop() };
    }) }]
    : []),
];

/** Counts the store's calls, to show how often a batched limiter reaches it. */
function counting(limiter: RateLimiterAbstract): { limiter: RateLimiterAbstract; calls: () => number } {
  let calls = 0;
  const consume = limiter.consume.bind(limiter);
  limiter.consume = (key, points, options) => {
    calls += 1;
    return consume(key, points, options);
  };
  return { limiter, calls: () => calls };
}

async function admitted(attempt: Promise<RateLimiterRes>): Promise<boolean> {
  try {
    await attempt;
    return true;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return false;
    throw rejection;
  }
}

for (const { name, open } of stores) {
  describe(`batchedLimiter [${name}]`, () => {
    const state: { store?: Promise<StoreUnderTest> } = {};
    const storeOf = () => (state.store ??= open());
    afterAll(async () => (await state.store)?.close());

    it('lets processes together admit the limit and at most processes × maxUnsettled more, whatever the interleaving', async () => {
      const store = await storeOf();
      const LIMIT = 400;
      const MAX_UNSETTLED = LIMIT / 100;
      const PROCESSES = 4;
      const keyPrefix = `burst-${newId(6)}`;
      const processes = Array.from({ length: PROCESSES }, () => batchedLimiter(store.limiter(keyPrefix, LIMIT), LIMIT, { maxUnsettled: MAX_UNSETTLED, settleEveryMs: 100 }));
      let admittedCount = 0;
      // Waves of concurrent requests, each wave spread over the processes unevenly, well past the limit.
      for (let wave = 0; wave < 20; wave++) {
        const attempts = Array.from({ length: 37 }, (_, i) => processes[(i * (wave + 1)) % PROCESSES]!.consume('caller'));
        admittedCount += (await Promise.all(attempts.map(admitted))).filter(Boolean).length;
      }
      expect(admittedCount).toBeGreaterThanOrEqual(LIMIT);
      expect(admittedCount).toBeLessThanOrEqual(LIMIT + PROCESSES * MAX_UNSETTLED);
      // Every admitted request ends up counted by the store.
      await Promise.all(processes.map((process) => process.settleAll()));
      const counted = await store.limiter(keyPrefix, LIMIT).get('caller');
      expect(counted!.consumedPoints).toBeGreaterThanOrEqual(admittedCount);
      // Past the limit, every process refuses.
      for (const process of processes) expect(await admitted(process.consume('caller'))).toBe(false);
    });

    it('counts every request in the store first when maxUnsettled is 0: limits under 100 are exact', async () => {
      const store = await storeOf();
      const keyPrefix = `exact-${newId(6)}`;
      const processes = [0, 1].map(() => batchedLimiter(store.limiter(keyPrefix, 6), 6, { maxUnsettled: 0, settleEveryMs: 100 }));
      const answers: Array<number | 'refused'> = [];
      for (let i = 0; i < 8; i++) {
        try {
          answers.push((await processes[i % 2]!.consume('caller')).remainingPoints);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          answers.push('refused');
        }
      }
      expect(answers).toEqual([5, 4, 3, 2, 1, 0, 'refused', 'refused']);
    });

    it('reaches the store about once per maxUnsettled points, settles within settleEveryMs, and refuses without it once exhausted', async () => {
      const store = await storeOf();
      const keyPrefix = `calls-${newId(6)}`;
      const LIMIT = 1000;
      const { limiter, calls } = counting(store.limiter(keyPrefix, LIMIT));
      const batched = batchedLimiter(limiter, LIMIT, { maxUnsettled: 10, settleEveryMs: 100 });
      const remaining: number[] = [];
      for (let i = 0; i < 500; i++) remaining.push((await batched.consume('caller')).remainingPoints);
      // One process alone knows its caller's budget exactly.
      expect(remaining).toEqual(Array.from({ length: 500 }, (_, i) => LIMIT - 1 - i));
      expect(calls()).toBeLessThanOrEqual(1 + 500 / 10);
      // Fewer than maxUnsettled points are settled by the timer.
      await batched.consume('caller');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await store.limiter(keyPrefix, LIMIT).get('caller'))!.consumedPoints).toBe(501);
      for (let i = 501; i < LIMIT; i++) await batched.consume('caller');
      expect(await admitted(batched.consume('caller'))).toBe(false);
      const before = calls();
      for (let i = 0; i < 50; i++) expect(await admitted(batched.consume('caller'))).toBe(false);
      expect(calls()).toBe(before);
    });

    it('counts a penalty in the store at once, and lowers what the process thinks is left', async () => {
      const store = await storeOf();
      const keyPrefix = `penalty-${newId(6)}`;
      const batched = batchedLimiter(store.limiter(keyPrefix, 200), 200, { maxUnsettled: 2, settleEveryMs: 100 });
      await batched.consume('address');
      const afterPenalty = await batched.penalty('address');
      expect(afterPenalty.remainingPoints).toBe(198);
      expect((await batched.consume('address')).remainingPoints).toBe(197);
    });
  });
}
