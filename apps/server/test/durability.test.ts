import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { bootstrap } from '../src/services/admin-service.js';
import { builtEntry, exited, freePort, untilReady } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from './dialects.js';

/** The built server as a real process on `databaseUrl`; `output` gathers its stderr for failure messages. */
async function startBuilt(databaseUrl: string): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [builtEntry('main')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'error', QUIRE_RATE_LIMIT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const base = `http://127.0.0.1:${port}`;
  await untilReady(base, () => stderr);
  return { child, base, output: () => stderr };
}

describeEachDialect('durability', (dialect) => {
  let database: TestDatabaseUrl | undefined;
  let children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children) child.kill('SIGKILL');
    children = [];
    await database?.drop();
  });

  it('keeps every acknowledged write after kill -9 during concurrent writes', async () => {
    database = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(database.url));
    await migrateToLatest(handle);
    const owner = await bootstrap({ db: handle.db, dialect: handle.dialect, logger: createLogger('silent') }, { organizationTitle: 'Durable', email: 'durable@example.com' });
    await handle.close();
    const auth = { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' };

    const first = await startBuilt(database.url);
    children.push(first.child);
    // Eight writers of two kinds (spaces, collections) run concurrently until the process dies under them; a
    // write counts as acknowledged once its 201 has arrived. One write acknowledged well before the kill too.
    const space = await (await fetch(`${first.base}/v1/orgs/${owner.organizationId}/spaces`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Pages' }) })).json() as { id: string };
    const acknowledged = { spaces: [] as string[], collections: [] as string[] };
    let refusedOrCut = 0;
    let killed = false;
    const writer = async (kind: 'spaces' | 'collections', n: number) => {
      for (let i = 0; !killed; i += 1) {
        try {
          const response = await fetch(`${first.base}/v1/orgs/${owner.organizationId}/${kind}`, { method: 'POST', headers: auth, body: JSON.stringify({ title: `${kind} ${n}.${i}` }) });
          if (response.status === 201) acknowledged[kind].push(((await response.json()) as { id: string }).id);
          else refusedOrCut += 1;
        } catch {
          refusedOrCut += 1;
        }
      }
    };
    const writers = [0, 1, 2, 3].flatMap((n) => [writer('spaces', n), writer('collections', n)]);
    // Kill once enough writes are acknowledged that many more are certainly in flight.
    const until = Date.now() + 20_000;
    while (acknowledged.spaces.length + acknowledged.collections.length < 60 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    first.child.kill('SIGKILL');
    killed = true;
    await exited(first.child);
    await Promise.all(writers);
    const total = acknowledged.spaces.length + acknowledged.collections.length;
    expect(total).toBeGreaterThanOrEqual(60);

    const second = await startBuilt(database.url);
    children.push(second.child);
    const missing: string[] = [];
    for (const id of [space.id, ...acknowledged.spaces]) {
      if ((await fetch(`${second.base}/v1/spaces/${id}`, { headers: auth })).status !== 200) missing.push(`space ${id}`);
    }
    for (const id of acknowledged.collections) {
      if ((await fetch(`${second.base}/v1/collections/${id}`, { headers: auth })).status !== 200) missing.push(`collection ${id}`);
    }
    console.log(`[durability ${dialect}] acknowledged writes: ${total} (${acknowledged.spaces.length} spaces, ${acknowledged.collections.length} collections); cut or refused by the kill: ${refusedOrCut}; missing after restart: ${missing.length}`);
    expect(missing).toEqual([]);
    // The restarted server still writes.
    expect((await fetch(`${second.base}/v1/orgs/${owner.organizationId}/spaces`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'after' }) })).status).toBe(201);
  }, 120_000);
});
