import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createQuireClient, type QuireClient } from '@quire/client';
import { loadConfig } from '../src/config.js';
import type { Db, DialectName } from '../src/db/index.js';
import type { OpenApiDocument } from '../src/http/openapi/contract.js';
import type { Handlers } from '../src/http/registry.js';
import { newId } from '../src/ids.js';
import type { JobHandlers } from '../src/jobs/runner.js';
import { createLogger } from '../src/logger.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { addMember, bootstrap } from '../src/services/admin-service.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createTestDatabaseUrl } from './dialects.js';
import { recordAnswer } from './gates/wire-gate.js';

export interface TestServerOptions {
  dialect?: DialectName;
  contract?: OpenApiDocument;
  handlers?: Handlers;
  jobHandlers?: JobHandlers;
  /** Extra environment, e.g. QUIRE_BODY_LIMIT. */
  env?: Record<string, string>;
}

export interface TestServer {
  /** Root URL of the server, e.g. http://127.0.0.1:41234 (the API is under /v1). */
  url: string;
  db: Db;
  dialect: DialectName;
  /** The DATABASE_URL of this server's database, for a second process started on the same one. */
  databaseUrl: string;
  running: RunningServer;
  /** A new organization with a new admin and their token. */
  bootstrap(organizationTitle?: string): Promise<{ organizationId: string; userId: string; token: string }>;
  /** Adds a member (created if new; `null` role = guest) and returns a token for them. */
  addMember(organizationId: string, email: string, role: RoleOrGuest): Promise<{ userId: string; token: string }>;
  client(token?: string): QuireClient;
  /**
   * A client acting as a browser session: the `quire_session` cookie with `secret`, and on every request the
   * session's `csrfToken` (when given) and this server's own Origin, as Quire's pages send them.
   */
  sessionClient(secret: string, csrfToken?: string): QuireClient;
  close(): Promise<void>;
}

/**
 * Starts the real app on a fresh database (SQLite temp file, or a fresh PostgreSQL schema when the dialect
 * is postgres) on a free port, with strict response validation: an answer that breaks the contract fails
 * the request with a 500, and so the test.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dialect = options.dialect ?? 'sqlite';
  const database = createTestDatabaseUrl(dialect);
  // File bytes and PDFs of this server only, removed with it.
  const blobDir = mkdtempSync(join(tmpdir(), 'quire-blobs-'));
  const removeBlobs = () => rmSync(blobDir, { recursive: true, force: true });
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    QUIRE_ALLOW_LOCAL_URLS: 'true',
    // Suites make many requests with one token; the limiter has its own test (rate-limit.test.ts).
    QUIRE_RATE_LIMIT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    QUIRE_RESPONSE_VALIDATION: 'fail',
    QUIRE_RUN_JOBS: options.jobHandlers ? 'true' : 'false',
    QUIRE_BLOB_DIR: blobDir,
    ...options.env,
  });
  const logger = createLogger(config.logLevel, 2);
  let running: RunningServer;
  try {
    running = await startServer({
      config,
      logger,
      ...(options.contract ? { contract: options.contract } : {}),
      ...(options.handlers ? { handlers: options.handlers } : {}),
      ...(options.jobHandlers ? { jobHandlers: options.jobHandlers } : {}),
    });
  } catch (error) {
    await database.drop();
    removeBlobs();
    throw error;
  }
  const services = running.services;
  // Only a server serving Quire's own contract is held to the public API's (tests of the app pass small contracts).
  const checkWire = !options.contract && !options.handlers;
  return {
    url: running.url,
    db: running.database.db,
    dialect,
    databaseUrl: database.url,
    running,
    bootstrap: (organizationTitle = 'Test organization') =>
      bootstrap(services, { organizationTitle, email: `owner-${newId(8).toLowerCase()}@example.com`, displayName: 'Test Owner' }),
    addMember: (organizationId, email, role) => addMember(services, { organizationId, email, role }),
    client: (token) => createQuireClient({ baseUrl: running.url, ...(token ? { token } : {}), retry: false, ...(checkWire ? { fetch: wireCheckedFetch } : {}) }),
    sessionClient: (secret, csrfToken) => createQuireClient({
      baseUrl: running.url,
      headers: { cookie: `quire_session=${secret}`, origin: running.url, ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}) },
      retry: false,
      ...(checkWire ? { fetch: wireCheckedFetch } : {}),
    }),
    close: async () => {
      await running.close();
      await database.drop();
      removeBlobs();
    },
  };
}

/**
 * The global fetch, but every JSON answer also goes to the wire-compatibility gate (test/gates/wire-gate.ts)
 * before the test sees it.
 */
async function wireCheckedFetch(request: Request): Promise<Response> {
  const method = request.method;
  const response = await globalThis.fetch(request);
  if (/^application\/json\b/.test(response.headers.get('content-type') ?? '')) {
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON after all: Quire's own response validation reports that.
      return response;
    }
    recordAnswer(method, response.url || request.url, response.status, body);
  }
  return response;
}
