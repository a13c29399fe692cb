import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { migrateToLatest } from '#server/db/migrate.js';
import { createLogger } from '#server/logger.js';
import { bootstrap } from '#server/services/admin-service.js';
import type { ServiceContext } from '#server/services/context.js';
import { createOpenAPISpec, getOpenAPISpecBySlug, processOpenApiSpec } from '#server/services/openapi-spec-service.js';
import { closeSpecPool } from '#server/openapi-specs/spec-pool.js';
import { findUserById } from '#server/stores/user-store.js';
import { openBenchDatabase } from './bench-database.js';
import { printReport, runIfScript, stringOption } from './report.js';

/*
 * OpenAPI processing: the time from a queued source to a stored version (parse, validate with
 * @redocly/openapi-core in the worker thread, store) for the project's own bundled spec and for a generated
 * 5 MB spec, on a fresh database. Each document is processed twice: the first run includes starting the
 * worker thread and loading the parser; the second is a refresh of the same text (one version, no insert).
 * Standalone: `node bench-dist/openapi-bench.js [--database-url url] [--json]`.
 */

export interface OpenApiMeasure {
  name: string;
  bytes: number;
  paths: number;
  firstMs: number;
  againMs: number;
  ok: boolean;
}

export interface OpenApiBenchReport {
  documents: OpenApiMeasure[];
}

/** A valid OpenAPI 3.1 document of about `targetBytes`: resources, each with two operations and a schema. */
export function generateLargeSpec(targetBytes: number): string {
  const document = { openapi: '3.1.0', info: { title: 'Generated', version: '1.0.0' }, paths: {} as Record<string, unknown>, components: { schemas: {} as Record<string, unknown> } };
  let size = 200;
  for (let index = 0; size < targetBytes; index++) {
    const name = `Resource${index}`;
    const schema = {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'string', description: `Identifier of the ${name}.` },
        name: { type: 'string', maxLength: 100, description: `Name of the ${name}, shown to people.` },
        count: { type: 'integer', minimum: 0 },
        tags: { type: 'array', items: { type: 'string' } },
        createdAt: { type: 'string', format: 'date-time' },
      },
    };
    const ref = { $ref: `#/components/schemas/${name}` };
    const item = {
      get: {
        operationId: `get${name}`,
        summary: `Get a ${name}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'expand', in: 'query', schema: { type: 'boolean' } }],
        responses: { '200': { description: 'The resource.', content: { 'application/json': { schema: ref } } }, '404': { description: 'Not found.' } },
      },
      put: {
        operationId: `put${name}`,
        summary: `Replace a ${name}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: { 'application/json': { schema: ref } } },
        responses: { '200': { description: 'The new resource.', content: { 'application/json': { schema: ref } } } },
      },
    };
    document.paths[`/resources-${index}/{id}`] = item;
    document.components.schemas[name] = schema;
    size += JSON.stringify(item).length + JSON.stringify(schema).length + 60;
  }
  // Compact, as generated and bundled specs are usually published.
  return JSON.stringify(document);
}

async function measure(context: ServiceContext, caller: Parameters<typeof createOpenAPISpec>[1], organizationId: string, name: string, text: string): Promise<OpenApiMeasure> {
  const created = await createOpenAPISpec(context, caller, organizationId, { slug: name, source: { text } });
  const time = async (generation: number) => {
    const started = performance.now();
    await processOpenApiSpec(context, { specId: created.spec.id, generation });
    return Math.round(performance.now() - started);
  };
  const firstMs = await time(1);
  const { spec } = await getOpenAPISpecBySlug(context, caller, organizationId, name);
  // The same text again, as a refresh would process it.
  const againMs = await time(1);
  const paths = Object.keys((JSON.parse(text) as { paths: object }).paths).length;
  return { name, bytes: Buffer.byteLength(text), paths, firstMs, againMs, ok: spec.last_process_error_code === null && spec.last_version_id !== null };
}

export async function runOpenApiBench(options: { databaseUrl?: string; log?: (line: string) => void } = {}): Promise<OpenApiBenchReport> {
  const log = options.log ?? (() => {});
  const bench = await openBenchDatabase('openapi', options.databaseUrl);
  try {
    await migrateToLatest(bench.handle);
    const context: ServiceContext = { db: bench.handle.db, dialect: bench.handle.dialect, logger: createLogger('silent') };
    const owner = await bootstrap(context, { organizationTitle: 'Bench', email: 'bench@example.com' });
    const caller = { user: (await findUserById(context.db, owner.userId))!, tokenId: 'bench' };
    const documents: OpenApiMeasure[] = [];
    log('openapi bench: the bundled spec...');
    const bundled = readFileSync(createRequire(import.meta.url).resolve('@quire/api-types/openapi.json'), 'utf8');
    documents.push(await measure(context, caller, owner.organizationId, 'quire-bundled', bundled));
    log('openapi bench: a generated 5 MB spec...');
    documents.push(await measure(context, caller, owner.organizationId, 'generated-5mb', generateLargeSpec(5 * 1024 * 1024)));
    return { documents };
  } finally {
    await closeSpecPool();
    await bench.cleanup();
  }
}

export function formatOpenApiBenchReport(report: OpenApiBenchReport): string {
  return [
    'openapi: processing a source into a version (parse + validate with @redocly/openapi-core in a worker thread + store)',
    ...report.documents.map((doc) =>
      `${doc.name.padEnd(14)} ${(doc.bytes / 1024 / 1024).toFixed(2)} MB, ${doc.paths} paths: first ${doc.firstMs} ms (worker start included), again ${doc.againMs} ms${doc.ok ? '' : '  (FAILED: no version)'}`),
  ].join('\n');
}

runIfScript(import.meta.url, 'openapi-bench', async () => {
  const report = await runOpenApiBench({ ...(stringOption('database-url') ? { databaseUrl: stringOption('database-url')! } : {}), log: (line) => process.stderr.write(`${line}\n`) });
  printReport(report, formatOpenApiBenchReport);
});
