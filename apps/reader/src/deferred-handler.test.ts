import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const builtEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/*
 * In a process of its own, on the built package (`npx turbo build` first), as the server loads it: which of
 * the handler's libraries are loaded is what this checks, and a test runner's process has loaded them all.
 * Piscina (the render pool) and feed's xml-js are CommonJS, so Node lists them in require.cache once loaded.
 */
const script = `
  import { createRequire } from 'node:module';
  import { createServer } from 'node:http';
  const require = createRequire(import.meta.url);
  const handlerLibraries = () => Object.keys(require.cache).filter((file) => /node_modules\\/(piscina|xml-js)\\//.test(file)).length;
  const { createReaderHandler, isReaderPath } = await import(${JSON.stringify(builtEntry)});
  const reader = createReaderHandler({ apiUrl: 'http://127.0.0.1:9' });
  const atStart = handlerLibraries();
  const server = createServer((req, res) => reader(req, res, ['x-request-id', 'given-by-the-server']));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const response = await fetch('http://127.0.0.1:' + server.address().port + '/sites/docs/page', { method: 'PUT' });
  const afterRequest = handlerLibraries();
  await reader.close();
  server.close();
  process.stdout.write(JSON.stringify({
    atStart, afterRequest, status: response.status, allow: response.headers.get('allow'), requestId: response.headers.get('x-request-id'),
    paths: [isReaderPath('/sites/docs'), isReaderPath('/_reader/app.css'), isReaderPath('/v1/orgs')],
  }));
`;

describe('createReaderHandler (the package entry)', () => {
  it("loads the handler's modules with its first request, not with the package, and answers that request with the server's first headers", () => {
    if (!existsSync(builtEntry)) throw new Error(`the reader is not built (${builtEntry}); run npx turbo build`);
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Record<string, unknown>;
    // The headers the mounting server hands over (its request id) reach the answer through the deferred load.
    expect(result).toEqual({ atStart: 0, afterRequest: expect.any(Number), status: 405, allow: 'GET, HEAD, POST', requestId: 'given-by-the-server', paths: [true, true, false] });
    expect(result.afterRequest).toBeGreaterThan(0);
  });
});
