import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, parseDatabaseUrl } from './config.js';
import { copyDatabase, CopyDatabaseError, type CopyDatabaseProgress } from './db/copy-database.js';
import { openDatabase, type DatabaseHandle } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import { ApiError } from './errors.js';
import { createLogger } from './logger.js';
import { ROLES, type RoleOrGuest } from './policies/roles.js';
import { addMember, bootstrap, createToken } from './services/admin-service.js';
import type { ServiceContext } from './services/context.js';
import { setVerified } from './services/integration-service.js';
import { setUserPasswordByEmail } from './services/sign-in-service.js';
import { LocalDiskBlobStorage } from './storage/blob-storage.js';
import { createBlobStore } from './storage/file-services.js';
import { moveFiles, type MoveFilesProgress } from './storage/move-files.js';

/**
 * The admin command line (`npm run -s admin -- <command> ... --json`). Each command prints exactly one JSON
 * object on stdout and nothing else (logs go to stderr), or exits non-zero with the reason on stderr. It
 * uses DATABASE_URL like the server and works while the server runs on the same database.
 */


function nonEmpty(name: string) {
  return (value: string): string => {
    if (!value.trim()) throw new InvalidArgumentError(`${name} must not be empty.`);
    return value;
  };
}

/**
 * The whole of standard input, less one line ending: the new password of `set-password`, which is never
 * taken as an argument (arguments show in the process list and the shell's history).
 */
async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function withServices<T>(run: (context: ServiceContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  let handle: DatabaseHandle | undefined;
  try {
    handle = await openDatabase(config.database);
    await migrateToLatest(handle);
    return await run({ db: handle.db, dialect: handle.dialect, logger });
  } finally {
    await handle?.close();
    logger.flush();
  }
}

function print(result: Record<string, string>, json: boolean, typed: Record<string, boolean | number> = {}): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...result, ...typed })}\n`);
    return;
  }
  for (const [key, value] of Object.entries(result)) process.stdout.write(`${key}: ${value}\n`);
}

export function buildProgram(): Command {
  const program = new Command('quire-admin')
    .description('Administer a Quire installation: organizations, members, API tokens and passwords.')
    .showHelpAfterError()
    .exitOverride();

  program.command('bootstrap')
    .description('Create an organization, its first admin (created if new) and an API token for them.')
    .requiredOption('--org <title>', 'title of the new organization', nonEmpty('--org'))
    .requiredOption('--email <email>', 'e-mail address of the admin', nonEmpty('--email'))
    .option('--name <display name>', 'display name of the admin, when the user is new')
    .option('--json', 'print the result as one JSON object', false)
    .action(async (options: { org: string; email: string; name?: string; json: boolean }) => {
      const result = await withServices((context) =>
        bootstrap(context, { organizationTitle: options.org, email: options.email, ...(options.name ? { displayName: options.name } : {}) }));
      print({ organizationId: result.organizationId, userId: result.userId, token: result.token }, options.json);
    });

  program.command('add-member')
    .description('Make a person (created if new) a member of an organization with a role, and create an API token for them.')
    .requiredOption('--org <organizationId>', 'id of the organization', nonEmpty('--org'))
    .requiredOption('--email <email>', 'e-mail address of the member', nonEmpty('--email'))
    .addOption(new Option('--role <role>', 'organization role; guest has none').choices([...ROLES, 'guest']).makeOptionMandatory())
    .option('--name <display name>', 'display name, when the user is new')
    .option('--json', 'print the result as one JSON object', false)
    .action(async (options: { org: string; email: string; role: string; name?: string; json: boolean }) => {
      const role: RoleOrGuest = options.role === 'guest' ? null : (options.role as RoleOrGuest);
      const result = await withServices((context) =>
        addMember(context, { organizationId: options.org, email: options.email, role, ...(options.name ? { displayName: options.name } : {}) }));
      // The README promises the organization too, so a script can chain commands on one parsed object.
      print({ organizationId: options.org, userId: result.userId, token: result.token }, options.json);
    });

  program.command('create-token')
    .description('Create a new API token for an existing user.')
    .requiredOption('--email <email>', 'e-mail address of the user', nonEmpty('--email'))
    .option('--label <label>', 'a note saying what the token is for')
    .option('--json', 'print the result as one JSON object', false)
    .action(async (options: { email: string; label?: string; json: boolean }) => {
      const result = await withServices((context) =>
        createToken(context, { email: options.email, ...(options.label ? { label: options.label } : {}) }));
      print({ userId: result.userId, token: result.token }, options.json);
    });

  program.command('set-password')
    .description('Set the password of an existing user, read from standard input, and end all their browser sessions.')
    .requiredOption('--email <email>', 'e-mail address of the user', nonEmpty('--email'))
    .option('--json', 'print the result as one JSON object (the default)', true)
    .action(async (options: { email: string }) => {
      const password = await readStandardInput();
      const result = await withServices((context) => setUserPasswordByEmail(context, options.email, password));
      print({ userId: result.userId }, true);
    });

  program.command('verify-integration')
    .description('Mark a published integration as verified by the operators of this installation (or, with --revoke, as not verified).')
    .requiredOption('--name <integrationName>', 'name of the integration', nonEmpty('--name'))
    .option('--revoke', 'mark it as not verified', false)
    .option('--json', 'print the result as one JSON object', false)
    .action(async (options: { name: string; revoke: boolean; json: boolean }) => {
      const result = await withServices((context) => setVerified(context, options.name, !options.revoke));
      print({ name: result.name, verified: String(result.verified) }, options.json, { verified: result.verified });
    });

  program.command('move-files')
    .description('Copy the files kept on this machine\'s disk (QUIRE_BLOB_DIR) into the configured store (QUIRE_BLOB_STORE); run again to resume or to check.')
    .option('--from <dir>', 'the folder to move files from (QUIRE_BLOB_DIR by default)')
    .option('--json', 'print the result as one JSON object', false)
    .action(async (options: { from?: string; json: boolean }) => {
      const config = loadConfig();
      const handle = await openDatabase(config.database);
      try {
        await migrateToLatest(handle);
        const target = await createBlobStore(config, handle.db);
        const source = new LocalDiskBlobStorage({ dir: options.from ?? config.blobDir });
        let lastReport = 0;
        // Progress goes to stderr (stdout is for the one result line), at most once a second and at the end.
        const report = (progress: MoveFilesProgress) => {
          const now = Date.now();
          if (progress.done < progress.files && now - lastReport < 1000) return;
          lastReport = now;
          process.stderr.write(`move-files: ${progress.done}/${progress.files} files looked at, ${progress.moved} moved (${progress.bytesMoved} bytes)\n`);
        };
        const result = await moveFiles(source, target, { onProgress: report });
        const { from, to, ...counts } = result;
        print({ from, to, ...Object.fromEntries(Object.entries(counts).map(([key, value]) => [key, String(value)])) }, options.json, counts);
      } finally {
        await handle.close();
      }
    });

  program.command('copy-database')
    .description('Copy this install\'s SQLite database (DATABASE_URL) into an empty PostgreSQL database, in one transaction, and check every table\'s row count.')
    .requiredOption('--to <postgres url>', 'the empty PostgreSQL database to copy into (postgres://...; ?schema=name for a schema)', nonEmpty('--to'))
    .option('--json', 'print the result as one JSON object', false)
    .action(async (options: { to: string; json: boolean }) => {
      const source = loadConfig().database;
      const target = parseDatabaseUrl(options.to);
      let lastReport = 0;
      // Progress goes to stderr (stdout is for the one result line), at most once a second and at the end.
      const report = (progress: CopyDatabaseProgress) => {
        const now = Date.now();
        if (progress.tablesDone < progress.tables && now - lastReport < 1000) return;
        lastReport = now;
        process.stderr.write(`copy-database: ${progress.tablesDone}/${progress.tables} tables copied, ${progress.rows} rows (${progress.table}: ${progress.tableRows})\n`);
      };
      const result = await copyDatabase(source, target, { onProgress: report });
      print({ tables: String(result.tables), rows: String(result.rows) }, options.json, { tables: result.tables, rows: result.rows });
    });

  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // Commander writes its own usage errors to stderr; stdout stays for results.
  program.configureOutput({ writeOut: (text) => process.stderr.write(text), writeErr: (text) => process.stderr.write(text) });
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2;
    if (error instanceof ConfigError) {
      process.stderr.write(`quire-admin: ${error.message}\n`);
      return 2;
    }
    if (error instanceof ApiError || error instanceof CopyDatabaseError) {
      process.stderr.write(`quire-admin: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`quire-admin: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv);
