import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import { openDatabase } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import type { Logger } from './logger.js';

/*
 * QUIRE_PROCESSES=N: the primary process of `npm start` serves nothing itself. It migrates the database once,
 * forks N API processes that share its port (node:cluster hands each connection to one of them), restarts one
 * that dies, and on SIGTERM/SIGINT passes the signal on and waits for all of them to stop gracefully.
 */

/** A worker that lived this long before dying was healthy: its death does not count as a crash loop. */
const HEALTHY_UPTIME_MS = 30_000;
/** Longest wait between restarts of workers that keep dying soon after they start. */
const MAX_RESTART_DELAY_MS = 30_000;
/** How long past QUIRE_SHUTDOWN_TIMEOUT_MS the primary waits for a worker to exit before killing it. */
const EXIT_MARGIN_MS = 5000;

/**
 * Delay before forking again after a worker died: none after a healthy run, then 1 s, 2 s, 4 s ... capped, for
 * each death in a row of workers that did not stay up, so that a worker that cannot run is never forked in a loop.
 */
export function restartDelayMs(quickDeathsInARow: number): number {
  if (quickDeathsInARow <= 0) return 0;
  return Math.min(1000 * 2 ** (quickDeathsInARow - 1), MAX_RESTART_DELAY_MS);
}

/** Runs the primary: resolves once every worker has stopped after a signal, with the exit code to end with. */
export async function runPrimary(config: Config, logger: Logger): Promise<number> {
  // Migrations run here, once, before any worker starts; the workers' own check then finds nothing to do.
  const database = await openDatabase(config.database);
  try {
    await migrateToLatest(database);
  } finally {
    await database.close();
  }

  const startedAt = new Map<Worker, number>();
  let everListened = false;
  let quickDeaths = 0;
  let stopping = false;
  let failed = false;
  const restarts = new Set<NodeJS.Timeout>();

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.once('listening', () => {
      everListened = true;
      logger.info({ workerPid: worker.process.pid }, 'quire process listening');
    });
  };

  let allExited!: () => void;
  const exited = new Promise<void>((resolve) => { allExited = resolve; });
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? Date.now());
    startedAt.delete(worker);
    if (stopping) {
      // A worker still starting has no handler yet and ends by the signal itself: that is a stop too.
      if (code !== null && code !== 0) failed = true;
      logger.info({ workerPid: worker.process.pid, code, signal }, 'quire process stopped');
      if (startedAt.size === 0 && restarts.size === 0) allExited();
      return;
    }
    if (!everListened) {
      // A worker that could not even start (port taken, bad setting): another one would fail the same way.
      logger.error({ workerPid: worker.process.pid, code, signal }, 'quire process failed to start; stopping');
      failed = true;
      stop('SIGTERM');
      return;
    }
    quickDeaths = lived >= HEALTHY_UPTIME_MS ? 0 : quickDeaths + 1;
    const delayMs = restartDelayMs(quickDeaths);
    logger.error({ workerPid: worker.process.pid, code, signal, livedMs: lived, restartInMs: delayMs }, 'quire process died; restarting it');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delayMs);
    restarts.add(timer);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    logger.info({ signal, processes: startedAt.size }, 'shutting down');
    if (startedAt.size === 0) return allExited();
    for (const worker of startedAt.keys()) worker.process.kill(signal);
    // A worker stuck past its own bound is killed, so that the primary always exits.
    setTimeout(() => {
      for (const worker of startedAt.keys()) {
        failed = true;
        worker.process.kill('SIGKILL');
      }
    }, config.shutdownTimeoutMs + EXIT_MARGIN_MS).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let index = 0; index < config.processes; index++) fork();
  logger.info({ processes: config.processes, port: config.port, runJobs: config.runJobs }, 'quire primary started');
  await exited;
  return failed ? 1 : 0;
}
