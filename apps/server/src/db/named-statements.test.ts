import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl, type TestDatabaseUrl } from '../../test/dialects.js';
import { parseDatabaseUrl } from '../config.js';
import { newId } from '../ids.js';
import { openDatabase, type DatabaseHandle } from './index.js';
import { nameStatement, statementNameOf } from './named-statements.js';

describe.runIf(process.env.TEST_DATABASE_URL)('named prepared statements [postgres]', () => {
  let target: TestDatabaseUrl;
  let handle: DatabaseHandle;
  const table = `named_${newId(8).toLowerCase()}`;
  beforeAll(async () => {
    target = createTestDatabaseUrl('postgres');
    handle = await openDatabase(parseDatabaseUrl(target.url));
    await handle.db.executeQuery(CompiledQuery.raw(`create table ${table} (a integer)`));
    await handle.db.executeQuery(CompiledQuery.raw(`insert into ${table} (a) values (1), (2)`));
  });
  afterAll(async () => {
    await handle?.close();
    await target?.drop();
  });

  /** The statements prepared on the one connection `run` is given, after it ran. */
  const preparedOnConnection = (run: (query: (text: string, parameters: unknown[]) => Promise<unknown[]>) => Promise<void>) =>
    handle.db.connection().execute(async (connection) => {
      await run(async (text, parameters) => (await connection.executeQuery(CompiledQuery.raw(text, parameters))).rows);
      const { rows } = await connection.executeQuery<{ name: string; statement: string }>(CompiledQuery.raw('select name, statement from pg_prepared_statements'));
      return rows;
    });

  it('runs a registered text as a statement prepared once per connection, and leaves others unnamed', async () => {
    const registered = `select a from ${table} where a = $1`;
    const other = `select a from ${table} where a <> $1`;
    nameStatement(registered);
    const prepared = await preparedOnConnection(async (query) => {
      for (const value of [1, 2, 1]) expect(await query(registered, [value])).toEqual([{ a: value }]);
      expect(await query(other, [1])).toEqual([{ a: 2 }]);
    });
    expect(prepared).toEqual([{ name: statementNameOf(registered), statement: registered }]);
  });

  it('prepares a statement again when a migration changed the columns it reads, and answers the new ones', async () => {
    const everything = `select * from ${table} where a = $1`;
    nameStatement(everything);
    const prepared = await preparedOnConnection(async (query) => {
      expect(await query(everything, [1])).toEqual([{ a: 1 }]);
      await query(`alter table ${table} add column b text default 'x'`, []);
      expect(await query(everything, [1])).toEqual([{ a: 1, b: 'x' }]);
      expect(await query(everything, [2])).toEqual([{ a: 2, b: 'x' }]);
    });
    expect(prepared.filter((row) => row.statement === everything)).toHaveLength(2);
  });
});
