import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, inject } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase, type DatabaseHandle, type DialectName } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { newId } from '../src/ids.js';
import { useForSuite } from './suite-resource.js';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export function testDialects(): DialectName[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * Runs the same suite once per available dialect: `describeEachDialect('x', (dialect) => { ... })`.
 * `options.timeout` is each test's own limit, for suites whose tests spawn processes (a cold Node start takes
 * seconds on a loaded 2-core machine, where the default 30 s would fail a test that is merely slow).
 */
export function describeEachDialect(name: string, suite: (dialect: DialectName) => void, options: { timeout?: number } = {}): void {
  for (const dialect of testDialects()) describe(`${name} [${dialect}]`, options, () => suite(dialect));
}

export interface TestDatabaseUrl {
  url: string;
  drop(): Promise<void>;
}

/**
 * A DATABASE_URL for a database nobody else uses: a file in a new temporary folder (deleted by `drop`), or a
 * new schema in the PostgreSQL database of TEST_DATABASE_URL, which test/global-setup.ts drops with the
 * others of the run when the run ends.
 */
export function createTestDatabaseUrl(dialect: DialectName): TestDatabaseUrl {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'quire-test-'));
    return { url: `sqlite:${join(dir, 'quire.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `${inject('testSchemaPrefix')}${newId(12).toLowerCase()}`;
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return { url: url.toString(), drop: async () => {} };
}

/** An open, migrated database of the dialect, for store and service tests that need no HTTP. */
export async function openTestDatabase(dialect: DialectName): Promise<DatabaseHandle & { drop(): Promise<void> }> {
  const target = createTestDatabaseUrl(dialect);
  const handle = await openDatabase(parseDatabaseUrl(target.url));
  await migrateToLatest(handle);
  return {
    ...handle,
    drop: async () => {
      await handle.close();
      await target.drop();
    },
  };
}

/** A migrated database of the dialect for the enclosing suite, opened before its tests and dropped after them. */
export function useTestDatabase(dialect: DialectName): DatabaseHandle {
  return useForSuite('test database', () => openTestDatabase(dialect), (database) => database.drop());
}
