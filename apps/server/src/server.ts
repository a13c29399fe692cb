import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import { createApp, type QuireApp } from './http/app.js';
import { answerClientErrors } from './http/client-error.js';
import type { OpenApiDocument } from './http/openapi/spec.js';
import type { Handlers } from './http/registry.js';
import { allJobHandlers } from './jobs/index.js';
import { JobRunner, type JobHandlers } from './jobs/runner.js';
import { warmLazyModules } from './lazy-module.js';
import type { Logger } from './logger.js';
import type { ServiceContext } from './services/context.js';
import { createFileServices } from './storage/file-services.js';
import { createReaderHandler } from '@quire/reader';

export interface StartOptions {
  config: Config;
  logger: Logger;
  spec?: OpenApiDocument;
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
  /** Graceful: stop accepting, let in-flight requests finish, stop the job runner, close the database. */
  close(): Promise<void>;
}

/**
 * Opens the database, migrates it, builds the app (compiling every validator) and only then listens, so
 * the first request a client sends is served at full speed.
 */
export async function startServer({ config, logger, spec, handlers, jobHandlers }: StartOptions): Promise<RunningServer> {
  const database = await openDatabase(config.database);
  let server: Server | undefined;
  let runner: JobRunner | undefined;
  try {
    await migrateToLatest(database);
    const files = await createFileServices(config, database.db);
    const services: ServiceContext = {
      db: database.db,
      dialect: database.dialect,
      logger,
      ...(config.jwtSecret ? { jwtSecret: config.jwtSecret } : {}),
      allowLocalUrls: config.allowLocalUrls,
      ...files,
    };
    let shuttingDown = false;
    // The reader reads the API like any client, over loopback HTTP to this same server (known once it listens).
    let loopbackUrl = '';
    // Its lookups carry no token; with this key they count against each visitor's address, not the loopback's.
    const readerForwardingKey = randomBytes(32).toString('base64url');
    const reader = createReaderHandler({ apiUrl: () => loopbackUrl, publicUrl: config.publicUrl, forwardVisitorAddress: { key: readerForwardingKey } });
    const quire = await createApp({
      services,
      logger,
      publicUrl: config.publicUrl,
      bodyLimitBytes: config.bodyLimitBytes,
      rateLimitPerMinute: config.rateLimitPerMinute,
      responseValidation: config.responseValidation,
      ...(spec ? { spec } : {}),
      ...(handlers ? { handlers } : {}),
      isShuttingDown: () => shuttingDown,
      downloads: { storage: files.blobStorage, signer: files.urlSigner },
      reader,
      readerForwardingKey,
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
    const loopbackHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
    loopbackUrl = `http://${loopbackHost}:${port}`;
    // What start-up left for later is done now, in the background, a little at a time between requests:
    // response validators when a mismatch is only logged (production), then the libraries loaded lazily and
    // the reader's Markdown renderer.
    const warmUp = async () => {
      if (config.responseValidation === 'log') logger.debug({ compiled: await quire.warmResponses() }, 'response validators compiled');
      logger.debug({ loaded: await warmLazyModules() }, 'libraries loaded');
      await reader.warm();
      logger.debug('reader renderer loaded');
    };
    warmUp().catch((error: unknown) => logger.error({ err: error }, 'background warm-up failed'));

    if (config.runJobs) {
      runner = new JobRunner({ services, handlers: jobHandlers ?? allJobHandlers() });
      runner.start();
    }
    const jobRunner = runner;

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        shuttingDown = true;
        const drained = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        // Keep-alive connections idle now, or idle once their request is answered, would hold close()
        // open until they time out; close them as soon as they have nothing in flight.
        httpServer.closeIdleConnections();
        const sweep = setInterval(() => httpServer.closeIdleConnections(), 50);
        const deadline = setTimeout(() => httpServer.closeAllConnections(), config.shutdownTimeoutMs);
        try {
          await drained;
        } finally {
          clearInterval(sweep);
          clearTimeout(deadline);
        }
        await jobRunner?.stop();
        await reader.close();
        await database.close();
      })();
      return closing;
    };

    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    return { url: `http://${host}:${port}`, port, server: httpServer, database, services, quire, runner, close };
  } catch (error) {
    await runner?.stop();
    server?.close();
    await database.close();
    throw error;
  }
}
