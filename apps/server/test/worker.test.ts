import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { enqueueJob } from '../src/jobs/queue.js';
import { findJob } from '../src/stores/job-store.js';
import { builtEntry, exited } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from './dialects.js';

describeEachDialect('worker process', (dialect) => {
  let database: TestDatabaseUrl | undefined;
  afterEach(async () => {
    await database?.drop();
  });

  it('claims queued jobs from the shared database and stops cleanly on SIGTERM', async () => {
    database = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(database.url));
    try {
      await migrateToLatest(handle);
      // No job kinds are registered yet, so the worker must record this one as failed: proof it ran it.
      const id = await enqueueJob(handle.db, 'kind-without-handler', { x: 1 });
      const worker = spawn(process.execPath, [builtEntry('worker')], {
        env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent', NODE_ENV: 'test' },
        stdio: 'ignore',
      });
      try {
        let job = await findJob(handle.db, id);
        for (let tries = 0; job?.status !== 'failed' && tries < 400; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          job = await findJob(handle.db, id);
        }
        expect(job).toMatchObject({ status: 'failed', attempts: 1, last_error: 'no handler for job kind kind-without-handler' });
        worker.kill('SIGTERM');
        expect(await exited(worker)).toBe(0);
      } finally {
        worker.kill('SIGKILL');
      }
    } finally {
      await handle.close();
    }
  });
}, { timeout: 120_000 });
