import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/index.js';
import { startChangeListener, type ChangeListenerHandle } from './db/change-listener.js';
import { changeFeedOf, type ChangeFeed } from './db/change-notices.js';
import { migrateToLatest } from './db/migrate.js';
import { createApp, type QuireApp } from './http/app.js';
import { defaultWebAppOptions } from './http/web-app-route.js';
import { answerClientErrors } from './http/client-error.js';
import type { OpenApiDocument } from './http/openapi/contract.js';
import type { Handlers } from './http/registry.js';
import { JobRunner, type JobHandlers } from './jobs/runner.js';
import { warmLazyModules } from './lazy-module.js';
import type { Logger } from './logger.js';
import type { ServiceContext } from './services/context.js';
import { decoyPasswordHash } from './services/password-hashing.js';
import { SIGN_IN_WINDOW_SECONDS } from './services/sign-in-throttle.js';
import { createFileServices } from './storage/file-services.js';
import { createMailer } from './net/mailer.js';
import { createReaderHandler, type ReaderChanges } from '@quire/reader';
import { createLimiterStore } from './limits/limiter-store.js';
import type { Metrics } from './metrics/metrics.js';
import { metricsRequestListener } from './http/metrics-route.js';
import { jobQueueStats } from './stores/job-store.js';

export interface StartOptions {
  config: Config;
  logger: Logger;
  contract?: OpenApiDocument;
  handlers?: Handlers;
  jobHandlers?: JobHandlers;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  database: DatabaseHandle;
  services: ServiceContext;
  quire: QuireApp;
  runner: JobRunner | undefined;
  /** The separate `/metrics` listener's root URL, when QUIRE_METRICS_PORT is set. */
  metricsUrl?: string;
  /**
   * Graceful: stop accepting, let in-flight requests and the running job finish (both within
   * QUIRE_SHUTDOWN_TIMEOUT_MS; a job past it is handed back to the queue), close the database.
   */
  close(): Promise<void>;
}

/**
 * Opens the database, migrates it, builds the app (compiling every validator) and only then listens, so
 * the first request a client sends is served at full speed.
 */
export async function startServer({ config, logger, contract, handlers, jobHandlers }: StartOptions): Promise<RunningServer> {
  const database = await openDatabase(config.database);
  let server: Server | undefined;
  let metricsServer: Server | undefined;
  let runner: JobRunner | undefined;
  let listener: ChangeListenerHandle | undefined;
  let limiters: Awaited<ReturnType<typeof createLimiterStore>> | undefined;
  try {
    await migrateToLatest(database);
    // Other processes on the same PostgreSQL tell this one what to forget (db/change-notices.ts).
    if (config.database.dialect === 'postgres') {
      listener = startChangeListener({ connectionString: config.database.connectionString, bus: changeFeedOf(database.db), logger });
    }
    const files = await createFileServices(config, database.db);
    const pool = database.pool;
    // Made only when /metrics is served: without a reader, counting would be work for nothing on every request.
    // Loaded only then too: prom-client and the OpenTelemetry API it loads are some 85 modules.
    const metrics: Metrics | undefined = config.metrics
      ? (await import('./metrics/metrics.js')).createMetrics({
          jobQueue: () => jobQueueStats(database.db),
          ...(pool ? { pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }) } : {}),
        })
      : undefined;
    limiters = await createLimiterStore({
      logger,
      ...(config.redis ? { redis: config.redis } : {}),
      ...(pool ? { postgres: { pool, ...(database.schema ? { schema: database.schema } : {}) } } : {}),
      ...(metrics ? { onStoreFailure: (store: string) => metrics.countLimiterStoreFailure(store) } : {}),
    });
    const limiterStore = limiters;
    const services: ServiceContext = {
      db: database.db,
      dialect: database.dialect,
      logger,
      ...(config.jwtSecret ? { jwtSecret: config.jwtSecret } : {}),
      allowLocalUrls: config.allowLocalUrls,
      ...(config.oidc ? { oidc: config.oidc } : {}),
      sessions: { idleMinutes: config.sessionIdleMinutes, maxHours: config.sessionMaxHours },
      signInLimits: { perAccount: config.signInLimitPerAccount, perAddress: config.signInLimitPerAddress, windowSeconds: SIGN_IN_WINDOW_SECONDS },
      limiters: limiterStore,
      ...files,
      publicUrl: config.publicUrl,
      ...(config.smtp ? { mailer: createMailer(config.smtp) } : {}),
    };
    let shuttingDown = false;
    // The reader reads the API like any client, over loopback HTTP to this same server (known once it listens).
    let loopbackUrl = '';
    // Its lookups carry no token; with this key they count against each visitor's address, not the loopback's.
    const readerForwardingKey = randomBytes(32).toString('base64url');
    const reader = createReaderHandler({
      apiUrl: () => loopbackUrl, publicUrl: config.publicUrl, forwardVisitorAddress: { key: readerForwardingKey }, changes: readerChanges(changeFeedOf(database.db), listener),
    });
    const quire = await createApp({
      services,
      logger,
      publicUrl: config.publicUrl,
      bodyLimitBytes: config.bodyLimitBytes,
      rateLimitPerMinute: config.rateLimitPerMinute,
      responseValidation: config.responseValidation,
      ...(contract ? { contract } : {}),
      ...(handlers ? { handlers } : {}),
      isShuttingDown: () => shuttingDown,
      ...(database.schema ? { databaseSchema: database.schema } : {}),
      downloads: { storage: files.blobStorage, signer: files.urlSigner },
      reader,
      readerForwardingKey,
      ...(metrics ? { metrics } : {}),
      ...(metrics && config.metrics?.token !== undefined ? { metricsToken: config.metrics.token } : {}),
      web: defaultWebAppOptions((name) => dirname(createRequire(import.meta.url).resolve(`${name}/package.json`))),
    });

    server = createServer(quire.handle);
    answerClientErrors(server);
    const httpServer = server;
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(config.port, config.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
    const port = (httpServer.address() as AddressInfo).port;
    let metricsUrl: string | undefined;
    const metricsListener = config.metrics?.listener;
    if (metrics && metricsListener) {
      const listening = createServer(metricsRequestListener({
        source: async () => ({ contentType: metrics.contentType, text: await metrics.text() }),
        ...(config.metrics?.token !== undefined ? { token: config.metrics.token } : {}),
        logger,
      }));
      metricsServer = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(metricsListener.port, metricsListener.host, () => {
          listening.off('error', reject);
          resolve();
        });
      });
      const metricsHost = metricsListener.host.includes(':') ? `[${metricsListener.host}]` : metricsListener.host;
      metricsUrl = `http://${metricsHost}:${(listening.address() as AddressInfo).port}`;
    }
    const metricsHttp = metricsServer;
    const loopbackHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
    loopbackUrl = `http://${loopbackHost}:${port}`;
    // What start-up left for later is done now, in the background, a step at a time when no request is in
    // flight (quire.warmUpTurn): request validators (production; a request arriving first compiles its own
    // path's), the handler groups and the routes outside the API (a request arriving first loads its own),
    // response validators when a mismatch is only logged (production), then the libraries loaded lazily, the
    // decoy password hash and the reader (its modules and its Markdown renderer).
    const warmUp = async () => {
      logger.debug({ compiled: await quire.warmRequests() }, 'request validators compiled');
      logger.debug({ loaded: await quire.warmHandlers() }, 'handler groups loaded');
      logger.debug({ built: await quire.warmRoutes() }, 'routes outside the API built');
      if (config.responseValidation === 'log') logger.debug({ compiled: await quire.warmResponses() }, 'response validators compiled');
      logger.debug({ loaded: await warmLazyModules(quire.warmUpTurn) }, 'libraries loaded');
      // Made on first use, the decoy hash would make the first failed sign-in of an unknown email cost a hash
      // more than any other failure: made now, every failed sign-in costs one verification.
      await quire.warmUpTurn();
      await decoyPasswordHash();
      await quire.warmUpTurn();
      await reader.warm();
      logger.debug('reader loaded');
    };
    warmUp().catch((error: unknown) => logger.error({ err: error }, 'background warm-up failed'));

    if (config.runJobs) {
      // The job handlers (Git sync, search reindex, OpenAPI processing...: some 60 modules) are loaded only by a
      // process that runs jobs, once it listens.
      runner = new JobRunner({ services, handlers: jobHandlers ?? (await import('./jobs/index.js')).allJobHandlers(), leaseMs: config.jobLeaseMs });
      runner.start();
    }
    const jobRunner = runner;

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        shuttingDown = true;
        // The running job gets the same bound as requests, at the same time: finished, or handed back to the
        // queue for another process.
        const jobsStopped = jobRunner?.stop(config.shutdownTimeoutMs);
        const drained = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        // Bytes that arrived with the signal (a request's headers, read in the same turn of the event loop, or
        // waiting behind a busy one) are parsed before connections are judged idle: a request already sent is
        // served, not dropped with its connection.
        await new Promise<void>((resolve) => setImmediate(resolve));
        // Keep-alive connections idle now, or idle once their request is answered, would hold close()
        // open until they time out; close them as soon as they have nothing in flight.
        httpServer.closeIdleConnections();
        const sweep = setInterval(() => httpServer.closeIdleConnections(), 50);
        const deadline = setTimeout(() => httpServer.closeAllConnections(), config.shutdownTimeoutMs);
        // Operations whose client went away run on without a connection: they finish too, within the same bound.
        let settle: ReturnType<typeof setTimeout> | undefined;
        const settled = Promise.race([quire.whenIdle(), new Promise<void>((resolve) => { settle = setTimeout(resolve, config.shutdownTimeoutMs); })]);
        try {
          await drained;
          await settled;
        } finally {
          clearInterval(sweep);
          clearTimeout(deadline);
          clearTimeout(settle);
        }
        await jobsStopped;
        metricsHttp?.close();
        await limiterStore.close();
        await reader.close();
        services.mailer?.close();
        await listener?.close();
        await database.close();
      })();
      return closing;
    };

    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    return { url: `http://${host}:${port}`, port, server: httpServer, database, services, quire, runner, ...(metricsUrl ? { metricsUrl } : {}), close };
  } catch (error) {
    await runner?.stop();
    server?.close();
    await listener?.close();
    metricsServer?.close();
    await limiters?.close();
    await database.close();
    throw error;
  }
}

/** The server's change feed as the in-process reader takes it: what to forget, by site or space. */
function readerChanges(feed: ChangeFeed, listener: ChangeListenerHandle | undefined): ReaderChanges {
  return {
    live: () => feed.live(),
    // Only other processes' changes can be unheard: on SQLite (one process) there is nothing to wait for.
    ...(listener ? { sync: () => listener.sync() } : {}),
    subscribe: (listener) => feed.subscribe((notice) => {
      if (notice.kind === 'site') listener({ siteId: notice.siteId });
      else if (notice.kind === 'space') listener({ spaceId: notice.spaceId });
      else listener({});
    }),
  };
}
