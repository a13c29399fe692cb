import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { checkReadiness, type Database } from '../src/db/index.js';
import { pendingMigrations } from '../src/db/migrate.js';
import { describeEachDialect } from './dialects.js';
import { startTestServer } from './server.js';
import { useForSuite } from './suite-resource.js';

describeEachDialect('/readyz', (dialect) => {
  const server = useForSuite('test server', () => startTestServer({ dialect }), (started) => started.close());
  const migrationTable = () => (server.running.database.schema ? sql.table(`${server.running.database.schema}.kysely_migration`) : sql.table('kysely_migration'));

  it('answers 200 with its checks once the database answers and every migration has run, beside /healthz', async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({ status: 'ok', database: 'reachable', migrations: 'done' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers 503 naming the migration while one of this build is not in the database, and 200 once it is', async () => {
    const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp from ${migrationTable()} order by name desc limit 1`.execute(server.db);
    const last = rows[0]!;
    await sql`delete from ${migrationTable()} where name = ${last.name}`.execute(server.db);
    try {
      const answer = await fetch(`${server.url}/readyz`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({
        status: 'unavailable',
        database: 'reachable',
        migrations: 'pending',
        error: { code: 503, message: `Migrations are pending: ${last.name}` },
      });
      // /healthz says only that the process runs.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await sql`insert into ${migrationTable()} (name, timestamp) values (${last.name}, ${last.timestamp})`.execute(server.db);
    }
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('counts every migration as pending on a database none has run on', async () => {
    const pending = await pendingMigrations(server.db, '_quire_nothing_here');
    expect(pending.length).toBeGreaterThan(20);
    expect(pending).toEqual([...pending].sort());
  });
});

it('reports an unreachable database as not ready, without throwing', async () => {
  // Nothing listens on port 1 of loopback: every connection is refused at once.
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 2000 }) }) });
  try {
    expect(await checkReadiness(db)).toEqual({ ready: false, database: 'unreachable', migrations: 'unknown' });
  } finally {
    await db.destroy();
  }
});
