import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import { ApiError } from './errors.js';
import { createLogger } from './logger.js';
import { ROLES, type RoleOrGuest } from './policies/roles.js';
import { addMember, bootstrap, createToken } from './services/admin-service.js';
import type { ServiceContext } from './services/context.js';
import { setVerified } from './services/integration-service.js';

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

function print(result: Record<string, string>, json: boolean, typed: Record<string, boolean> = {}): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...result, ...typed })}\n`);
    return;
  }
  for (const [key, value] of Object.entries(result)) process.stdout.write(`${key}: ${value}\n`);
}

export function buildProgram(): Command {
  const program = new Command('quire-admin')
    .description('Administer a Quire installation: organizations, members and API tokens.')
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

  program.command('verify-integration')
    .description('Mark a published integration as verified by the operators of this installation (or, with --revoke, as not verified).')
    .requiredOption('--name <integrationName>', 'name of the integration', nonEmpty('--name'))
    .option('--revoke', 'mark it as not verified', false)
    .option('--json', 'print the result as one JSON object', false)
    .action(async (options: { name: string; revoke: boolean; json: boolean }) => {
      const result = await withServices((context) => setVerified(context, options.name, !options.revoke));
      print({ name: result.name, verified: String(result.verified) }, options.json, { verified: result.verified });
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
    if (error instanceof ApiError) {
      process.stderr.write(`quire-admin: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`quire-admin: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv);
