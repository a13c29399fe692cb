import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtEntry, runCommand } from './built.js';

/*
 * Start-up is measured (first answer within 1.5 s of starting the process), and most of it is loading
 * modules: on a 2-core machine the server's imports took 1.15 s while they included the OpenAPI document
 * processor (@redocly/openapi-core, ~170 ms, only ever used in its worker thread) and the reader's Markdown
 * renderer (unified, remark, rehype, highlight.js: ~500 modules, ~320 ms, loaded by the first page or the
 * warm-up after listening), and 0.6 s without them. This keeps them, and the other libraries the server loads
 * on first use, out of what importing the server loads: since then also the handler groups (with the
 * services, stores and presenters under them), the reader's handler and the metrics, which were about 0.3 s of
 * CPU of the ~0.9 s to the first answer (apps/server/README.md, "API read path and start-up").
 */

const tracer = fileURLToPath(new URL('./fixtures/startup/trace-packages.mjs', import.meta.url));

/** What importing a module loads: packages of node_modules (ES modules or CommonJS) and files of the server's dist/. */
async function loadedBy(file: string): Promise<{ packages: Set<string>; serverFiles: Set<string> }> {
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(file)});
    for (const path of Object.keys(createRequire(import.meta.url).cache)) process.stderr.write('cjs ' + path + '\\n');
  `;
  const finished = await runCommand(process.execPath, ['--import', tracer, '--input-type=module', '-e', script], { env: process.env });
  expect(finished.code, finished.stderr).toBe(0);
  const packages = new Set<string>();
  const serverFiles = new Set<string>();
  for (const line of finished.stderr.split('\n')) {
    const found = /^(?:esm|cjs) .*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line);
    if (found) packages.add(found[1]!);
    const own = /^esm .*\/apps\/server\/dist\/(.+)$/.exec(line);
    if (own) serverFiles.add(own[1]!);
  }
  return { packages, serverFiles };
}

describe('what starting the server loads', () => {
  it('loads the libraries every request needs, and leaves those of rarer features to their first use', async () => {
    const { packages: loaded, serverFiles } = await loadedBy(builtEntry('server'));
    // The trace sees both kinds of module: these are needed from the first request.
    for (const needed of ['kysely', 'better-sqlite3', 'express', 'express-openapi-validator', 'ajv']) expect(loaded, needed).toContain(needed);
    const later = [
      '@redocly/openapi-core', // OpenAPI documents: parsed in their worker thread
      'unified', 'remark-parse', 'rehype-highlight', 'highlight.js', // the reader's renderer
      'mdast-util-from-markdown', 'mdast-util-to-markdown', // the server's Markdown (lazy-module.ts)
      'pdfkit', // PDF exports
      'pg', // only when DATABASE_URL is postgres://
      'prom-client', '@opentelemetry/api', // only when /metrics is served
      'piscina', 'feed', 'xml-js', // the reader's handler (its modules load with its first page or the warm-up)
      'otpauth', 'jsep', // handler groups other than the first request's (http/handlers/index.ts)
    ];
    expect(later.filter((name) => loaded.has(name))).toEqual([]);
    // Our own modules that no API request's start needs: loaded by their first use or the warm-up.
    expect(serverFiles).toContain('http/app.js');
    const ownLater = [
      'http/handlers/organization-handlers.js', 'http/handlers/space-handlers.js', 'services/space-service.js', // handler groups
      'jobs/index.js', 'services/search-reindex.js', // job handlers: only a process that runs jobs, once it listens
      'http/sso-routes.js', 'http/oidc-routes.js', 'http/openapi-raw-route.js', // routes outside the API
      'metrics/metrics.js',
    ];
    expect(ownLater.filter((file) => serverFiles.has(file))).toEqual([]);
  }, 90_000);
});
