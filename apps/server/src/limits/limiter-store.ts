import type { Pool } from 'pg';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisConfig } from '../config.js';
import { lazyModule } from '../lazy-module.js';
import type { Logger } from '../logger.js';

/** The Redis client, loaded only when QUIRE_REDIS_URL is set. */
const ioredis = lazyModule<typeof import('ioredis')>('ioredis', { warm: false });

/*
 * Where rate limits and failed sign-ins are counted: the one place that chooses, for the API limiter
 * (http/middleware/rate-limit.ts) and the sign-in throttle (services/sign-in-throttle.ts) alike.
 *
 * - Redis when QUIRE_REDIS_URL is set, on either dialect.
 * - Otherwise PostgreSQL's `rate_limits` table (migration 0280) on PostgreSQL, so that processes behind one load
 *   balancer count one caller once, whichever process each request reaches.
 * - Otherwise (SQLite, one machine by construction) this process's memory.
 *
 * When the shared store fails (Redis down, the pool refusing), a request must not fail for it: each shared
 * limiter has an insurance limiter in this process's memory (rate-limiter-flexible's `insuranceLimiter`) that
 * counts in its place until the store answers again. Limits then hold per process, as before this store
 * existed: looser by the number of processes, never open. Every fallback is counted (`onStoreFailure`, which
 * /metrics reports) and logged, at most one line per store every 30 seconds.
 */

export type LimiterStoreKind = 'memory' | 'postgres' | 'redis';

export interface LimiterSpec {
  /** Names the counts of one limiter; keys of different limiters never meet. */
  keyPrefix: string;
  /** Points allowed per key and window. */
  points: number;
  windowSeconds: number;
}

export interface LimiterStore {
  readonly kind: LimiterStoreKind;
  /** A limiter counting in this store. */
  limiter(spec: LimiterSpec): RateLimiterAbstract;
  /** Stops the sweep and closes the Redis connection this store opened (a PostgreSQL pool is the database's). */
  close(): Promise<void>;
}

export interface LimiterStoreOptions {
  logger: Logger;
  redis?: RedisConfig;
  /** The database's pool on PostgreSQL; absent on SQLite. */
  postgres?: { pool: Pool; schema?: string };
  /** Called each time a count falls back to memory because the shared store failed. */
  onStoreFailure?: (store: LimiterStoreKind) => void;
}

/** The `rate_limits` table of migration 0280. */
const POSTGRES_TABLE = 'rate_limits';
/** Rows expired this long ago are deleted; kept a while so that no count is swept while a process still reads it. */
const SWEEP_AFTER_MS = 60 * 60 * 1000;
const SWEEP_EVERY_MS = 5 * 60 * 1000;
const FAILURE_LOG_EVERY_MS = 30_000;

/** The memory store: what SQLite installs and unit tests use. */
export function memoryLimiterStore(): LimiterStore {
  return {
    kind: 'memory',
    limiter: (spec) => new RateLimiterMemory(memoryOptions(spec)),
    close: async () => {},
  };
}

/**
 * The store the configuration asks for. With Redis it waits (a few seconds at most) for the connection, so
 * that the first requests are counted where they belong; a Redis that does not answer is logged and the
 * server starts all the same, counting in memory until it does.
 */
export async function createLimiterStore(options: LimiterStoreOptions): Promise<LimiterStore> {
  if (options.redis) return redisLimiterStore(options.redis, options);
  if (options.postgres) return postgresLimiterStore(options.postgres, options);
  return memoryLimiterStore();
}

function memoryOptions(spec: LimiterSpec) {
  return { keyPrefix: spec.keyPrefix, points: spec.points, duration: spec.windowSeconds };
}

/** Reports each fallback to memory, and logs them, one line per store at most every 30 seconds. */
function failureReporter(kind: LimiterStoreKind, options: LimiterStoreOptions): () => void {
  let lastLogged = 0;
  let unlogged = 0;
  return () => {
    options.onStoreFailure?.(kind);
    unlogged += 1;
    const now = Date.now();
    if (now - lastLogged < FAILURE_LOG_EVERY_MS) return;
    options.logger.warn({ store: kind, fallbacks: unlogged }, 'rate-limit store failed: counting in this process\'s memory until it answers');
    lastLogged = now;
    unlogged = 0;
  };
}

/**
 * The insurance of a shared limiter: counts in memory, and reports that it had to. rate-limiter-flexible calls
 * the insurance's method of the same name when the store's call fails, so each call here is one failure.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(spec: LimiterSpec, private readonly reportFailure: () => void) {
    super(memoryOptions(spec));
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>) {
    this.reportFailure();
    return super.consume(...args);
  }

  override penalty(...args: Parameters<RateLimiterMemory['penalty']>) {
    this.reportFailure();
    return super.penalty(...args);
  }

  override reward(...args: Parameters<RateLimiterMemory['reward']>) {
    this.reportFailure();
    return super.reward(...args);
  }

  override get(...args: Parameters<RateLimiterMemory['get']>) {
    this.reportFailure();
    return super.get(...args);
  }

  override set(...args: Parameters<RateLimiterMemory['set']>) {
    this.reportFailure();
    return super.set(...args);
  }

  override block(...args: Parameters<RateLimiterMemory['block']>) {
    this.reportFailure();
    return super.block(...args);
  }

  override delete(...args: Parameters<RateLimiterMemory['delete']>) {
    this.reportFailure();
    return super.delete(...args);
  }
}

function postgresLimiterStore(postgres: { pool: Pool; schema?: string }, options: LimiterStoreOptions): LimiterStore {
  const reportFailure = failureReporter('postgres', options);
  let sweeper: RateLimiterPostgres | undefined;
  // One sweep per process for the whole table, whichever limiter it goes through (each would sweep all rows).
  const sweep = setInterval(() => {
    // `clearExpired` is the library's own sweep (untyped in its declarations); it never rejects.
    void (sweeper as unknown as { clearExpired(expire: number): Promise<void> } | undefined)?.clearExpired(Date.now() - SWEEP_AFTER_MS);
  }, SWEEP_EVERY_MS);
  sweep.unref();
  return {
    kind: 'postgres',
    limiter(spec) {
      const limiter = new RateLimiterPostgres({
        ...memoryOptions(spec),
        storeClient: postgres.pool,
        storeType: 'pool',
        tableName: POSTGRES_TABLE,
        ...(postgres.schema ? { schemaName: postgres.schema } : {}),
        // Made by migration 0280: the library must not create tables at run time.
        tableCreated: true,
        // The sweep above replaces the library's timer per limiter, which nothing could stop.
        clearExpiredByTimeout: false,
        insuranceLimiter: new InsuranceLimiter(spec, reportFailure),
      });
      sweeper ??= limiter;
      return limiter;
    },
    close: async () => clearInterval(sweep),
  };
}

async function redisLimiterStore(config: RedisConfig, options: LimiterStoreOptions): Promise<LimiterStore> {
  const reportFailure = failureReporter('redis', options);
  const { Redis } = ioredis();
  const client: Redis = new Redis(config.url, {
    keyPrefix: config.keyPrefix,
    // A command sent while the connection is down fails at once (and is counted in memory) rather than
    // waiting in a queue while the request that sent it waits too.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3000,
    commandTimeout: 1000,
  });
  let lastErrorLogged = 0;
  // Without a listener ioredis prints every reconnection error to stderr; one line every 30 seconds says enough.
  client.on('error', (error: Error) => {
    if (Date.now() - lastErrorLogged < FAILURE_LOG_EVERY_MS) return;
    lastErrorLogged = Date.now();
    options.logger.warn({ err: error }, 'Redis (QUIRE_REDIS_URL) connection failed; retrying');
  });
  await new Promise<void>((resolve) => {
    if (client.status === 'ready') return resolve();
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(() => {
      options.logger.warn('Redis (QUIRE_REDIS_URL) did not answer within 3 seconds: rate limits are counted in memory until it does');
      done();
    }, 3000);
    client.once('ready', done);
  });
  return {
    kind: 'redis',
    limiter: (spec) => new RateLimiterRedis({
      ...memoryOptions(spec),
      storeClient: client,
      // Not connected: straight to the insurance limiter, no command attempted.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new InsuranceLimiter(spec, reportFailure),
    }),
    close: async () => {
      client.disconnect();
    },
  };
}
