import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { bootstrap } from '../src/services/admin-service.js';
import { builtEntry, exited, freePort, untilReady } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from './dialects.js';

describeEachDialect('graceful shutdown', (dialect) => {
  let database: TestDatabaseUrl | undefined;
  afterEach(async () => {
    await database?.drop();
  });

  // With QUIRE_PROCESSES=2 the signal goes to the primary, which passes it on and waits: the request in flight,
  // held by one of its processes, still finishes. The cluster's part does not depend on the dialect.
  const modes = dialect === 'sqlite' ? [1, 2] : [1];
  it.each(modes)('finishes a request in flight when SIGTERM arrives, refuses new ones, and exits 0 (%i process(es))', async (processes) => {
    database = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(database.url));
    await migrateToLatest(handle);
    const owner = await bootstrap({ db: handle.db, dialect: handle.dialect, logger: createLogger('silent') }, { organizationTitle: 'Shutdown', email: 'down@example.com' });
    await handle.close();

    const port = await freePort();
    const child = spawn(process.execPath, [builtEntry('main')], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, NODE_ENV: 'test', LOG_LEVEL: 'silent', QUIRE_PROCESSES: String(processes) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    try {
      const base = `http://127.0.0.1:${port}`;
      await untilReady(base, () => stderr);

      // A request whose body is still arriving is in flight: headers sent, body not finished.
      const body = JSON.stringify({ title: 'written during shutdown' });
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${base}/v1/orgs/${owner.organizationId}/spaces`, {
          method: 'POST',
          headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => { text += chunk.toString(); });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 5));
        setTimeout(() => {
          child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(5)), 300);
        }, 200);
      });

      const { status, text } = await answer;
      // createSpace belongs to the spaces family: either it exists (201) or it answers 501; both are full answers.
      expect([201, 501]).toContain(status);
      expect(JSON.parse(text)).toBeTypeOf('object');
      expect(await exited(child)).toBe(0);
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  }, 180_000);
});
