import { createQuireClient, type QuireClient } from '@quire/client';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DialectName } from '../src/db/index.js';
import { newId } from '../src/ids.js';
import { setUserPasswordByEmail } from '../src/services/sign-in-service.js';
import { startLoggedServer, type LoggedServer } from './built.js';
import { startTestServer, type TestServer } from './server.js';
import { useForSuite } from './suite-resource.js';

/*
 * Rate limits and failed sign-ins counted once for every process (issue 26): two server processes on one
 * database (this test's server, and a built `dist/main.js` spawned beside it), with the shared store of each
 * kind. Requests alternate between the two, so a store kept in each process's memory would allow each its own
 * budget and these tests would fail. PostgreSQL's store needs TEST_DATABASE_URL; Redis (127.0.0.1:6379, which
 * this machine runs) is tested on SQLite, where without it counts would stay in memory.
 */

const LIMIT = 6;
const SIGN_IN_LIMIT = 3;
const PASSWORD = 'correct horse battery staple 42';
const REDIS_URL = 'redis://127.0.0.1:6379';
/** Two starts in a row, the second a new Node process: on a busy 2-core machine each can take half a minute. */
const TWO_STARTS_MS = 150_000;

interface Variant {
  store: 'postgres' | 'redis';
  dialect: DialectName;
  env: Record<string, string>;
  /** How many counts the store holds now: proof that it, not memory, counted. */
  countsStored(server: TestServer): Promise<number>;
  cleanUp(): Promise<void>;
}

function postgresVariant(): Variant {
  return {
    store: 'postgres',
    dialect: 'postgres',
    env: {},
    countsStored: async (server) => Number((await sql<{ n: string }>`select count(*) as n from rate_limits`.execute(server.db)).rows[0]!.n),
    cleanUp: async () => {},
  };
}

function redisVariant(): Variant {
  // Keys of this run only, deleted at the end: other runs may share the machine's Redis.
  const keyPrefix = `quire-test-${newId(10).toLowerCase()}:`;
  const keys = async () => {
    const redis = new Redis(REDIS_URL);
    try {
      return { redis, found: await redis.keys(`${keyPrefix}*`) };
    } catch (error) {
      redis.disconnect();
      throw error;
    }
  };
  return {
    store: 'redis',
    dialect: 'sqlite',
    env: { QUIRE_REDIS_URL: REDIS_URL, QUIRE_REDIS_KEY_PREFIX: keyPrefix },
    countsStored: async () => {
      const { redis, found } = await keys();
      redis.disconnect();
      return found.length;
    },
    cleanUp: async () => {
      const { redis, found } = await keys();
      if (found.length > 0) await redis.del(...found);
      redis.disconnect();
    },
  };
}

const variants = [...(process.env.TEST_DATABASE_URL ? [postgresVariant()] : []), redisVariant()];

for (const variant of variants) {
  describe(`limits shared by two processes [${variant.store} store, ${variant.dialect}]`, () => {
    const env = { ...variant.env, QUIRE_RATE_LIMIT: String(LIMIT), QUIRE_SIGNIN_LIMIT_ACCOUNT: String(SIGN_IN_LIMIT) };
    const pair = useForSuite('two processes', async () => {
      const first = await startTestServer({ dialect: variant.dialect, env });
      let second: LoggedServer;
      try {
        second = await startLoggedServer(first.databaseUrl, { ...env, QUIRE_RUN_JOBS: 'false' });
      } catch (error) {
        await first.close();
        throw error;
      }
      return { first, second };
    }, async ({ first, second }) => {
      await second.stop();
      second.dispose();
      await first.close();
      await variant.cleanUp();
    }, TWO_STARTS_MS);

    /** Clients of the two processes, taking turns: request i goes to process i % 2. */
    const alternating = (token?: string): QuireClient[] => [pair.first.url, pair.second.base]
      .map((baseUrl) => createQuireClient({ baseUrl, retry: false, ...(token ? { token } : {}) }));

    it('limits a burst spread over both processes as one caller: 429 once the limit is used up across them', async () => {
      const { token } = await pair.first.bootstrap('Burst org');
      const clients = alternating(token);
      const answers: Array<[number, string | null]> = [];
      for (let i = 0; i < LIMIT + 2; i++) {
        const { response } = await clients[i % 2]!.GET('/user');
        answers.push([response.status, response.headers.get('ratelimit-remaining')]);
      }
      expect(answers).toEqual([
        [200, '5'], [200, '4'], [200, '3'], [200, '2'], [200, '1'], [200, '0'],
        [429, '0'], [429, '0'],
      ]);
      expect(await variant.countsStored(pair.first)).toBeGreaterThan(0);
    });

    it('locks an account after failed sign-ins spread over both processes, on both', async () => {
      const org = await pair.first.bootstrap('Sign-in org');
      const email = `person-${newId(8).toLowerCase()}@example.com`;
      await pair.first.addMember(org.organizationId, email, 'read');
      await setUserPasswordByEmail(pair.first.running.services, email, PASSWORD);
      const clients = alternating();
      for (let i = 0; i < SIGN_IN_LIMIT; i++) {
        const { response } = await clients[i % 2]!.POST('/auth/sign-in', { body: { email, password: 'a wrong password' } });
        expect(response.status).toBe(401);
      }
      // The right password now, on each process: the account is locked for both.
      for (const client of clients) {
        const { response } = await client.POST('/auth/sign-in', { body: { email, password: PASSWORD } });
        expect(response.status).toBe(429);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    });
  });
}
