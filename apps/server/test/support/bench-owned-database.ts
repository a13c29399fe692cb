import { afterAll, beforeAll } from 'vitest';
import { bootstrapBench, type BenchOwner } from '../../bench/bench-owner.js';
import type { Db, DialectName } from '../../src/db/index.js';
import { openTestDatabase } from '../dialects.js';

/** What a suite of service or store tests works with: its database and the organization's admin. */
export interface BenchOwnedDatabase {
  db: Db;
  owner: BenchOwner;
}

/**
 * For the enclosing suite: a migrated database of the dialect with its first organization and admin, made as
 * a bench makes them (`bootstrapBench`), handed to `opened` before the suite's tests and dropped after them.
 * For tests of the layers below the API that put their data in through the services.
 */
export function useBenchOwnedDatabase(dialect: DialectName, organizationTitle: string, opened: (suite: BenchOwnedDatabase) => void): void {
  let database: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    opened({ db: database.db, owner: await bootstrapBench(database, organizationTitle) });
  });
  afterAll(async () => {
    await database?.drop();
  });
}
