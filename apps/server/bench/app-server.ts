import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { parseDatabaseUrl } from '#server/config.js';
import { openDatabase } from '#server/db/index.js';
import { migrateToLatest } from '#server/db/migrate.js';
import { createLogger } from '#server/logger.js';
import { bootstrap } from '#server/services/admin-service.js';
import { hashPassword } from '#server/services/password-hashing.js';
import { upsertUserPasswordHash } from '#server/stores/user-password-store.js';
import { builtServerEntry, freePort, serverNodeOptions, stop, until } from './processes.js';

/*
 * What the app's benches (app-bench.ts, editor-bench.ts) stand on: the built server in production mode on a
 * fresh SQLite file, its public URL the address Chromium uses, one organization whose admin has a password, and
 * Debian's Chromium driven by playwright-core.
 */

export const BENCH_PASSWORD = 'bench password for the app 1';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const BENCH_EMAIL = 'writer@example.com';

export interface AppBenchServer {
  base: string;
  owner: { organizationId: string; userId: string; token: string };
  browser: Browser;
  /** An API call as the owner; throws unless it answers `expected`. */
  api(method: string, path: string, body: unknown, expected: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startAppBenchServer(bench: string): Promise<AppBenchServer> {
  if (!existsSync(CHROMIUM)) throw new Error(`the ${bench} bench needs Chromium at ${CHROMIUM} (CHROMIUM_PATH)`);
  if (!existsSync(fileURLToPath(new URL('../../web/dist/index.html', import.meta.url)))) throw new Error(`the ${bench} bench needs the built app (npx turbo run build)`);
  const dir = mkdtempSync(join(tmpdir(), `quire-${bench}-bench-`));
  const databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  const handle = await openDatabase(parseDatabaseUrl(databaseUrl));
  await migrateToLatest(handle);
  const owner = await bootstrap({ db: handle.db, dialect: handle.dialect, logger: createLogger('silent') }, { organizationTitle: 'Bench', email: BENCH_EMAIL });
  await upsertUserPasswordHash(handle.db, owner.userId, await hashPassword(BENCH_PASSWORD), new Date().toISOString());
  await handle.close();

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [...serverNodeOptions(), builtServerEntry], {
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', QUIRE_PUBLIC_URL: base, QUIRE_RATE_LIMIT: '1000000' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const close = async () => {
    await browser.close();
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(async () => ((await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    base,
    owner,
    browser,
    async api(method, path, body, expected) {
      const response = await fetch(`${base}/v1${path}`, { method, headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
      return (response.status === 204 ? {} : await response.json()) as Record<string, unknown>;
    },
    close,
  };
}
