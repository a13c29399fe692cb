import { PostgresAdapter, type Kysely } from 'kysely';

/*
 * Rate limits and failed sign-ins counted for every process at once (limits/limiter-store.ts), on PostgreSQL:
 * the table of rate-limiter-flexible's RateLimiterPostgres, in the shape its queries expect (`key`, `points`,
 * `expire` in epoch milliseconds). It is made here rather than by the library at run time (`tableCreated:
 * true`), so that migrations stay the only change to the schema. SQLite installs run on one machine and count
 * in memory, so they have no such table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute();
  // Expired counts are swept by `expire`.
  await db.schema.createIndex('rate_limits_expire').on('rate_limits').column('expire').execute();
}
