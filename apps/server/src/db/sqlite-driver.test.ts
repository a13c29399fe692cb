import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { CachingSqliteDialect, rowBuilder } from './sqlite-driver.js';

describe('SQLite rows built from arrays', () => {
  const sqlite = new BetterSqlite3(':memory:');
  const db = new Kysely<Record<string, never>>({ dialect: new CachingSqliteDialect(sqlite) });
  afterAll(() => db.destroy());

  const queries = [
    "select 1 as a, 'x' as b, null as c, 2.5 as d, x'00ff' as e",
    // The same name twice: the later column wins, as in better-sqlite3's own objects.
    'select 1 as id, 2 as id',
    // Names that are not identifiers stay names, never code.
    'select 1 as "count(*)", 2 as "a""b", 3 as "}; throw 1; //", 4 as "constructor"',
    "select 1 as x where 0",
  ];

  it.each(queries)('answers the same objects as better-sqlite3 for %s', async (query) => {
    const expected = sqlite.prepare(query).all();
    const { rows } = await sql.raw(query).execute(db);
    expect(rows).toEqual(expected);
    // Twice, so that the cached statement (now in raw mode) is exercised too.
    expect((await sql.raw(query).execute(db)).rows).toEqual(expected);
  });

  it('leaves a column named __proto__ to the library rather than making it a prototype', async () => {
    expect(rowBuilder(['__proto__'])).toBeUndefined();
    const { rows } = await sql.raw('select 1 as "__proto__", 2 as b').execute(db);
    expect(rows).toEqual(sqlite.prepare('select 1 as "__proto__", 2 as b').all());
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
  });
});

describe('reads at once while the connection is free', () => {
  const sqlite = new BetterSqlite3(':memory:');
  const dialect = new CachingSqliteDialect(sqlite);
  const db = new Kysely<{ notes: { id: number; body: string } }>({ dialect });
  afterAll(() => db.destroy());

  it('reads at once when nobody holds the connection, and waits (undefined) while a transaction does', async () => {
    await sql`create table notes (id integer primary key, body text not null)`.execute(db);
    await db.insertInto('notes').values({ id: 1, body: 'committed' }).execute();
    const read = () => dialect.immediateRead('select body from notes order by id', []);
    expect(read()).toEqual([{ body: 'committed' }]);

    let seenInside: unknown;
    let release!: () => void;
    const holding = new Promise<void>((resolve) => { release = resolve; });
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ id: 2, body: 'uncommitted' }).execute();
      await holding; // other requests run here, while the transaction is open
      seenInside = await trx.selectFrom('notes').select('body').execute();
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The transaction holds the connection: an immediate read would see its uncommitted row, so it declines.
    expect(read()).toBeUndefined();
    release();
    await transaction;
    expect(seenInside).toEqual([{ body: 'committed' }, { body: 'uncommitted' }]);
    expect(read()).toEqual([{ body: 'committed' }, { body: 'uncommitted' }]);
  });
});
