import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { bootstrap } from '../src/services/admin-service.js';
import { builtEntry, exited, freePort, untilReady } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from './dialects.js';

const SECRET = 'whsec_never_in_any_log_91c2d7';

describeEachDialect('integration secrets', (dialect) => {
  let database: TestDatabaseUrl | undefined;
  afterEach(async () => {
    await database?.drop();
  });

  it('never appear in an answer or in the server log, at debug level, whether the publish succeeds or is refused', async () => {
    database = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(database.url));
    await migrateToLatest(handle);
    const owner = await bootstrap({ db: handle.db, dialect: handle.dialect, logger: createLogger('silent') }, { organizationTitle: 'Secrets', email: 'secrets@example.com' });
    await handle.close();
    const blobDir = mkdtempSync(join(tmpdir(), 'quire-secrets-blobs-'));
    const port = await freePort();
    const child = spawn(process.execPath, [builtEntry('main')], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, NODE_ENV: 'test', LOG_LEVEL: 'debug', QUIRE_BLOB_DIR: blobDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout!.on('data', (chunk: Buffer) => { log += chunk.toString(); });
    child.stderr!.on('data', (chunk: Buffer) => { log += chunk.toString(); });
    try {
      const base = `http://127.0.0.1:${port}`;
      await untilReady(base, () => log);
      const publish = (body: Record<string, unknown>) => fetch(`${base}/v1/integrations/secret-keeper`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ organization: owner.organizationId, title: 'Keeper', description: 'd', scopes: [], script: 'x', secrets: { KEY: SECRET }, ...body }),
      });
      const answers: string[] = [];
      for (const body of [{}, { title: 'K' }, { secrets: { KEY: SECRET, OTHER: 1 } }, { icon: Buffer.from(SECRET).toString('base64') }, { organization: SECRET }]) {
        const response = await publish(body);
        answers.push(`${response.status} ${await response.text()}`);
      }
      expect(answers.map((answer) => answer.slice(0, 3))).toEqual(['200', '400', '400', '400', '404']);
      answers.push(await (await fetch(`${base}/v1/integrations/secret-keeper`, { headers: { authorization: `Bearer ${owner.token}` } })).text());
      for (const answer of answers) expect(answer).not.toContain(SECRET);
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(log).toContain('/v1/integrations/secret-keeper');
      expect(log).not.toContain(SECRET);
    } finally {
      child.kill('SIGKILL');
      rmSync(blobDir, { recursive: true, force: true });
    }
  }, 90_000);
});
