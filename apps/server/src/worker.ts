import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import { allJobHandlers } from './jobs/index.js';
import { JobRunner } from './jobs/runner.js';
import { createLogger, exitAfterLogs } from './logger.js';
import { createFileServices } from './storage/file-services.js';
import { createMailer } from './net/mailer.js';
import type { ServiceContext } from './services/context.js';

/**
 * Runs background jobs only, for deployments that separate them from API nodes (start the API with
 * QUIRE_RUN_JOBS=false). The same runner the server embeds.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`quire worker: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config.database);
  await migrateToLatest(database);
  const files = await createFileServices(config, database.db);
  const services: ServiceContext = {
    db: database.db, dialect: database.dialect, logger, allowLocalUrls: config.allowLocalUrls, ...files,
    publicUrl: config.publicUrl,
    ...(config.smtp ? { mailer: createMailer(config.smtp) } : {}),
  };
  const runner = new JobRunner({ services, handlers: allJobHandlers(), leaseMs: config.jobLeaseMs });
  runner.start();
  logger.info({ workerId: runner.workerId, database: database.dialect }, 'quire worker running');

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down');
    runner.stop(config.shutdownTimeoutMs).then(() => { services.mailer?.close(); return database.close(); }).then(
      () => { logger.info('worker stopped'); exitAfterLogs(logger, 0); },
      (error: unknown) => { logger.error({ err: error }, 'worker shutdown failed'); exitAfterLogs(logger, 1); },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`quire worker: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
