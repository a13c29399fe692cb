import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { dropPostgresSchema } from '../src/db/migrate.js';

declare module 'vitest' {
  interface ProvidedContext {
    /** Every PostgreSQL schema this test run creates starts with it (see test/dialects.ts). */
    testSchemaPrefix: string;
    /** Where each test file leaves its wire-compatibility figures (see test/gates/wire-setup.ts). */
    wireGateDir: string;
  }
}

/**
 * PostgreSQL test schemas are dropped once, when the whole run ends, not by each test file: Kysely's
 * migrator lists the tables of every schema (`pg_get_serial_sequence` on each), and a schema another file
 * dropped in the middle of that listing failed the migration with "schema ... does not exist". Benches run
 * by tests are given such a schema too (createTestDatabaseUrl). Drops wait for migrations under way
 * (dropPostgresSchema), which keeps another run on the same database safe as well.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const prefix = `test_${randomBytes(4).toString('hex')}_`;
  project.provide('testSchemaPrefix', prefix);
  const wireGateDir = mkdtempSync(join(tmpdir(), 'quire-wire-gate-'));
  project.provide('wireGateDir', wireGateDir);
  return async () => {
    await reportWireGate(wireGateDir);
    await dropTestSchemas(prefix);
  };
}

/**
 * The wire-compatibility report of the whole run, from the figures every test file left: printed, and
 * written to test/reports/wire-compatibility.md (git ignores it). The gate itself fails in each file.
 */
async function reportWireGate(dir: string): Promise<void> {
  const { mergeFigures, renderReport, REPORT_FILE } = await import('./gates/wire-gate.js');
  const all = readdirSync(dir).filter((name) => name.endsWith('.json')).map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
  rmSync(dir, { recursive: true, force: true });
  if (all.length === 0) return;
  const { text, summary } = renderReport(mergeFigures(all));
  mkdirSync(dirname(REPORT_FILE), { recursive: true });
  writeFileSync(REPORT_FILE, text);
  console.log(`\n${summary}\nreport: ${REPORT_FILE}`);
}

async function dropTestSchemas(prefix: string): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'select nspname as name from pg_namespace where starts_with(nspname, $1)', [prefix],
    );
    // Another run on the same database may be migrating: each drop waits until no migration lists schemas.
    for (const { name } of rows) await dropPostgresSchema(url, name);
  } finally {
    await client.end();
  }
}
