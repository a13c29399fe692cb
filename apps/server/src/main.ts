import cluster from 'node:cluster';
import { runPrimary } from './cluster.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger, exitAfterLogs } from './logger.js';
import { startServer } from './server.js';

/**
 * `npm start`: serves the API (and runs background jobs in-process unless QUIRE_RUN_JOBS=false); with
 * QUIRE_PROCESSES=N, this process is the primary of N API processes on one port (cluster.ts), each of which
 * runs this file again as a cluster worker and serves as a single process would (jobs too: claims are
 * exclusive, SKIP LOCKED on PostgreSQL and a write transaction on SQLite, so they never run a job twice).
 */
async function main(): Promise<void> {
  const started = performance.now();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`quire: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  if (cluster.isPrimary && config.processes > 1) {
    const code = await runPrimary(config, logger);
    logger.info('stopped');
    exitAfterLogs(logger, code);
    return;
  }
  const running = await startServer({ config, logger });
  logger.info({
    url: running.url, publicUrl: config.publicUrl, database: running.database.dialect,
    operations: running.quire.operations.length, implemented: running.quire.implemented.size,
    startupMs: Math.round(performance.now() - started),
  }, 'quire listening');

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running.close().then(
      () => {
        logger.info('stopped');
        exitAfterLogs(logger, 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exitAfterLogs(logger, 1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`quire: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
