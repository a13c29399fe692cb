// The layers of apps/server/src, read by scripts/check-architecture.mjs (`npm run lint`, `npm test`).
// Paths are relative to apps/server/src; one ending in `/` is a folder, any other one file. A file belongs
// to the layer with the longest matching path. A layer imports its own files freely; anything else it
// imports must be a layer it lists in `mayImport` (or `mayImportTypes` for `import type` only), or a layer
// marked `shared`. Tests (`*.test.ts`; their support lives in apps/server/test/) arrange and inspect what they test and may
// import any layer and build SQL; everything else must follow the arrows below.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const sourceRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'apps', 'server', 'src');

/** Every layer name: what composition roots may import. */
const ALL = ['http', 'jobs', 'services', 'job-queue', 'policies', 'stores', 'search', 'storage', 'git', 'pdf', 'net', 'content', 'analysis', 'openapi-specs', 'db', 'limits', 'metrics'];

/** Packages that reach the database; the pure layers never load them. */
const DATABASE_PACKAGES = ['kysely', 'pg', 'better-sqlite3'];

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Apps that are clients of the contract (DESIGN.md, layout): they read and write only through `@quire/client`,
 * never the server's modules or its database. Paths relative to the repository root; tests included, since
 * the reader's tests drive a real server through its published entry point (`npm start`), not its modules.
 * They may import the shared packages below, as the server does.
 */
export const clientApps = {
  root: repositoryRoot,
  folders: ['apps/reader'],
  forbiddenPackages: ['@quire/server', ...DATABASE_PACKAGES],
  why: 'the reader holds no more rights than a visitor: it reads published content through @quire/client with the visitor token',
};

/**
 * Workspace packages of pure rules that the server and the client apps must apply alike (both import them):
 * they import neither app, nor anything outside their folder by a relative path, so through them the reader
 * reaches nothing of the server.
 */
export const sharedPackages = {
  root: repositoryRoot,
  folders: ['packages/markdown-rules'],
  forbiddenPackages: ['@quire/server', '@quire/reader', ...DATABASE_PACKAGES, 'express'],
  why: 'the server and the reader both import it, so it may depend on neither',
};

export default {
  name: 'scripts/architecture-layers.mjs',
  layers: {
    // Processes and tools: they compose everything and are imported by nothing.
    entry: { paths: ['main.ts', 'server.ts', 'cluster.ts', 'worker.ts', 'admin.ts', 'ops.ts'], mayImport: ALL },

    // Routing, handlers, presenters, middleware and the OpenAPI validation: the only HTTP-aware code.
    http: { paths: ['http/'], mayImport: ['services', 'policies', 'content', 'storage', 'limits', 'metrics'] },
    // Background job handlers and their runner: the `http/` of background work, above the services.
    jobs: { paths: ['jobs/'], mayImport: ['services', 'job-queue', 'stores'], mayImportTypes: ['db'] },

    // Business rules; they own the transactions (through the Kysely handle's methods, never by building SQL).
    services: {
      paths: ['services/'],
      mayImport: ['policies', 'stores', 'search', 'storage', 'git', 'pdf', 'net', 'content', 'analysis', 'openapi-specs', 'job-queue', 'limits'],
      mayImportTypes: ['db'],
    },
    // `enqueueJob`: services queue jobs in their own transaction, so the queue sits below them.
    'job-queue': { paths: ['jobs/queue.ts'], mayImport: ['stores'], mayImportTypes: ['db'] },

    // Permissions: pure functions over roles. Row types only from the database.
    policies: { paths: ['policies/'], mayImport: [], mayImportTypes: ['db'], forbiddenPackages: DATABASE_PACKAGES },
    // All SQL. A store may read a policy's constants to state the same rule in SQL (visibility filters).
    stores: { paths: ['stores/'], mayImport: ['db', 'policies', 'content'], mayBuildSql: true },
    // Search documents, indexing and queries over the search tables, below the services.
    search: { paths: ['search/'], mayImport: ['stores', 'content'], mayImportTypes: ['db'] },
    // Blob storage and signed download URLs: infrastructure beside the stores (its URL key is kept in a
    // table, through a store). The route that serves the URLs is http/'s.
    storage: { paths: ['storage/'], mayImport: ['stores', 'content'], mayImportTypes: ['db'], forbiddenPackages: ['express'] },
    // Git processes, repository import and export formats: content in, content out, no database.
    git: { paths: ['git/'], mayImport: ['content', 'net'], forbiddenPackages: DATABASE_PACKAGES },
    // PDF rendering of content into blob storage.
    pdf: { paths: ['pdf/'], mayImport: ['content', 'storage'], forbiddenPackages: DATABASE_PACKAGES },
    // The guard of server-side fetches.
    net: { paths: ['net/'], mayImport: [], forbiddenPackages: DATABASE_PACKAGES },
    // Markdown, page trees, revisions, merge: pure, below the services.
    content: { paths: ['content/'], mayImport: [], forbiddenPackages: [...DATABASE_PACKAGES, 'express'] },
    // Text analysis of support conversations (issues, clusters): pure like content, run in worker threads.
    analysis: { paths: ['analysis/'], mayImport: ['content'], forbiddenPackages: [...DATABASE_PACKAGES, 'express'] },
    // Parsing and validation of the OpenAPI specs users upload, run in a worker thread; external references through net/.
    'openapi-specs': { paths: ['openapi-specs/'], mayImport: ['net'], forbiddenPackages: [...DATABASE_PACKAGES, 'express'] },
    // Where rate limits and failed sign-ins are counted (memory, PostgreSQL or Redis), below http/ and services/.
    // Its PostgreSQL store queries through rate-limiter-flexible on the database's pool: no SQL of ours.
    limits: { paths: ['limits/'], mayImport: [], forbiddenPackages: ['kysely', 'better-sqlite3'] },
    // The Prometheus registry of /metrics (prom-client); what it reads at scrape time is given to it by server.ts.
    metrics: { paths: ['metrics/'], mayImport: [], forbiddenPackages: DATABASE_PACKAGES },
    // Connections, dialect differences and migrations.
    db: { paths: ['db/'], mayImport: [], mayBuildSql: true },

    // Used by every layer: errors, pagination cursors, ids, configuration, logging, lazy loading, worker threads.
    shared: {
      paths: ['errors.ts', 'pagination.ts', 'ids.ts', 'config.ts', 'logger.ts', 'lazy-module.ts', 'worker-pool.ts'],
      mayImport: [],
      shared: true,
    },
  },

  tests: [/\.test\.ts$/],

  /** Imports outside the arrows above, each with its reason. `typeOnly` ones allow `import type` only. */
  allowances: [
    { from: 'http/presenters/', to: 'stores/', typeOnly: true, why: 'presenters shape the rows stores return' },
    { from: 'http/presenters/', to: 'db/schema.ts', typeOnly: true, why: 'presenters shape column types (roles)' },
    { from: 'http/presenters/', to: 'search/', typeOnly: true, why: 'the search presenter shapes result pages' },
    { from: 'http/app.ts', to: 'db/index.ts', why: '/readyz pings the database' },
    {
      from: 'http/error-handler.ts', to: 'db/dialect.ts',
      why: 'a write that loses a race to a unique or foreign key constraint is a 409, told by the driver error code',
    },
    {
      from: 'services/transaction.ts', to: 'db/change-notices.ts',
      why: 'the one place services open transactions delivers the change notices of their writes once they commit',
    },
    {
      from: 'services/', to: 'db/dialect.ts',
      why: 'a service that retries or refuses a write which lost a race tells it by the driver error code (isUniqueViolation)',
    },
  ],

  /*
   * Violations that other work in progress removes. The check passes over these while they occur and fails
   * once one no longer does, so the list only shrinks. Do not add to it.
   */
  knownViolations: [],
};

const serverRoot = join(repositoryRoot, 'apps', 'server');

/**
 * What apps/server keeps beside src/, outside the product: benchmarks (bench/, run by `npm run bench`) and
 * test support (test/). src/ never imports them (checkArchitecture), the tsconfig that builds dist/ lists none
 * of their files and no test, and the benches' own build writes outside dist/. Benches put their data in
 * through services and stores, never with SQL of their own. Paths relative to apps/server.
 */
export const outsideProduct = {
  root: serverRoot,
  build: 'tsconfig.json',
  folders: ['bench/', 'test/'],
  benchBuild: 'bench/tsconfig.json',
  benches: 'bench/',
};

/**
 * Where a test goes (apps/server/README.md, Tests): a unit test sits beside its module under src/; a test
 * that starts a server, spawns a built process, drives a browser or goes through @quire/client lives in test/.
 * What a test under src/ may therefore not import, each with what importing it means. Paths relative to
 * apps/server, sources named as .ts.
 */
export const testPlacement = {
  root: serverRoot,
  source: 'src',
  forbiddenImports: {
    'test/server.ts': 'starts a server (startTestServer)',
    'test/helpers.ts': 'starts a server (useTestServer)',
    'test/built.ts': 'spawns a built process',
    'src/http/app.ts': 'starts the app (createApp)',
  },
  forbiddenPackages: {
    '@quire/client': 'goes through @quire/client',
    'playwright-core': 'drives a browser',
  },
  why: 'beside the code sit unit tests only',
};

/** Lines per file, tests excluded: small modules with one job. Folders relative to the repository root. */
export const fileSizes = {
  root: repositoryRoot,
  ceilings: [
    { folder: 'apps/server/src/services', maxLines: 400 },
    { folder: 'apps/reader/src', maxLines: 300 },
  ],
  tests: [/\.test\.ts$/],
  /*
   * Files over their ceiling that work in progress splits. The check passes over them while they are too long
   * and fails once one no longer is, so the list only shrinks. Empty since issue 22's splits; do not add to it.
   */
  knownViolations: [],
};
