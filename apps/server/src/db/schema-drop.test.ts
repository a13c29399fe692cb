import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabaseUrl, testDialects } from '../../test/dialects.js';
import { parseDatabaseUrl } from '../config.js';
import { openDatabase } from './index.js';
import { dropPostgresSchema, migrateToLatest, SCHEMA_LISTING_LOCK } from './migrate.js';

// Kysely's migrator lists the tables of every schema; a schema dropped during that listing failed it with
// "schema ... does not exist" (a flake of the bench tests on PostgreSQL). Drops now wait for migrations.
describe.runIf(testDialects().includes('postgres'))('dropping a PostgreSQL schema [postgres]', () => {
  it('waits until no migration holds the schema-listing lock, then drops the schema', async () => {
    const base = process.env.TEST_DATABASE_URL!;
    const target = createTestDatabaseUrl('postgres');
    const config = parseDatabaseUrl(target.url);
    const schema = config.dialect === 'postgres' ? config.schema! : '';
    const handle = await openDatabase(config);
    await migrateToLatest(handle);
    await handle.close();

    const schemaExists = async (client: pg.Client): Promise<boolean> =>
      (await client.query('select 1 from pg_namespace where nspname = $1', [schema])).rowCount === 1;
    // A migration under way, as migrateToLatest holds it.
    const migration = new pg.Client({ connectionString: base });
    await migration.connect();
    try {
      await migration.query('begin');
      await migration.query('select pg_advisory_xact_lock_shared($1)', [SCHEMA_LISTING_LOCK]);
      let dropped = false;
      const drop = dropPostgresSchema(base, schema).then(() => (dropped = true));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(dropped).toBe(false);
      expect(await schemaExists(migration)).toBe(true);

      await migration.query('commit');
      await drop;
      expect(await schemaExists(migration)).toBe(false);
    } finally {
      await migration.end();
    }
  });
});
