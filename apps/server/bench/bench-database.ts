import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDatabaseUrl, type DatabaseConfig } from '#server/config.js';
import { openDatabase, type DatabaseHandle } from '#server/db/index.js';
import { dropPostgresSchema } from '#server/db/migrate.js';
import { newId } from '#server/ids.js';

/** A database a bench runs in, and how to take it away afterwards. */
export interface BenchDatabase {
  handle: DatabaseHandle;
  /** What was opened (for a `postgres://` URL, with the bench's own schema). */
  config: DatabaseConfig;
  /** The DATABASE_URL a server process opens the same database with. */
  url: string;
  cleanup(): Promise<void>;
}

/**
 * Opens the database of a bench named `name`: for a `postgres://` URL a schema of its own
 * (`<name>_bench_<random>`), dropped by `cleanup` (once no migration is listing schemas: see
 * dropPostgresSchema), or the URL's `schema` when it names one, which is the caller's to drop (tests give
 * their run's schemas, dropped when the run ends); for a `sqlite:` URL that file; without a URL a new SQLite
 * file in a temporary folder, removed by `cleanup`. With `keep`, `cleanup` only closes the database and logs
 * where it is.
 */
export async function openBenchDatabase(
  name: string,
  url: string | undefined,
  options: { keep?: boolean; log?: (line: string) => void } = {},
): Promise<BenchDatabase> {
  const log = options.log ?? (() => {});
  let config: DatabaseConfig;
  /** Where the database is, for the log, and how to take it away when the bench made it. */
  let where: string;
  let remove: (() => Promise<void>) | undefined;
  let serverUrl: string;
  if (url?.startsWith('postgres')) {
    const target = new URL(url);
    const given = target.searchParams.get('schema');
    const schema = given ?? `${name}_bench_${newId(10).toLowerCase()}`;
    target.searchParams.set('schema', schema);
    serverUrl = target.toString();
    config = parseDatabaseUrl(serverUrl);
    where = `schema ${schema}`;
    if (!given && config.dialect === 'postgres') {
      const database = config.connectionString;
      remove = () => dropPostgresSchema(database, schema);
    }
  } else {
    const dir = url ? undefined : mkdtempSync(join(tmpdir(), `quire-${name}-bench-`));
    serverUrl = url ?? `sqlite:${join(dir!, 'bench.db')}`;
    config = parseDatabaseUrl(serverUrl);
    where = config.dialect === 'sqlite' ? config.file : 'database';
    if (dir) remove = async () => rmSync(dir, { recursive: true, force: true });
  }
  const handle = await openDatabase(config);
  return {
    handle,
    config,
    url: serverUrl,
    cleanup: async () => {
      await handle.close();
      if (options.keep) return log(`kept ${where}`);
      await remove?.();
    },
  };
}
