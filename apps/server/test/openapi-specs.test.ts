import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unwrap, type QuireClient } from '@quire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledContractFile } from '../src/http/openapi/contract.js';
import { OPENAPI_SPEC_PROCESS_JOB, openApiSpecJob } from '../src/jobs/openapi-spec-job.js';
import { JobRunner } from '../src/jobs/runner.js';
import { describeEachDialect } from './dialects.js';
import { contentFixtures, md } from './content-fixtures.js';
import { createSpace, expectError, organizationWithPeople, useTestServer } from './helpers.js';
import { sendVerbatimPath } from './verbatim-path.js';
import { startTestServer, type TestServer } from './server.js';

const PETSTORE_30 = `openapi: 3.0.3
info:
  title: Petstore
  version: 1.0.0
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          description: The pets
          content:
            application/json:
              schema:
                type: array
                items:
                  $ref: '#/components/schemas/Pet'
components:
  schemas:
    Pet:
      type: object
      properties:
        name:
          type: string
`;

const PETSTORE_31 = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Petstore 3.1', version: '2.0.0' },
  paths: { '/pets/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: ['string', 'null'] } }], responses: { '200': { description: 'A pet' } } } } },
});

const SWAGGER_20 = `swagger: "2.0"
info:
  title: Legacy
  version: "1"
paths:
  /things:
    get:
      responses:
        200:
          description: The things
`;

/** A small HTTP server standing for the web: documents, one that refers to another, one that never answers. */
async function startDocumentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    if (req.url === '/petstore.yaml') return send('application/yaml', PETSTORE_30);
    if (req.url === '/with-ref.yaml') {
      return send('application/yaml', PETSTORE_30.replace("$ref: '#/components/schemas/Pet'", "$ref: 'schemas/pet.yaml'"));
    }
    if (req.url === '/schemas/pet.yaml') return send('application/yaml', 'type: object\nproperties:\n  name:\n    type: string\n');
    if (req.url === '/hang') {
      // Never answers: the processing must give up at its time limit.
      hanging.push(res);
      return undefined;
    }
    res.writeHead(404).end('not found');
    return undefined;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describeEachDialect('OpenAPI specifications', (dialect) => {
  const server = useTestServer({ dialect });
  let web: Awaited<ReturnType<typeof startDocumentServer>>;
  beforeAll(async () => {
    web = await startDocumentServer();
  });
  afterAll(async () => {
    await web.close();
  });

  const org = (title = 'API org') => organizationWithPeople(server, title, { creator: 'create', editor: 'edit', guest: null });
  const path = (organizationId: string, specSlug: string) => ({ path: { organizationId, specSlug } });
  const create = (client: QuireClient, organizationId: string, body: unknown) =>
    client.POST('/orgs/{organizationId}/openapi', { params: { path: { organizationId } }, body: body as never });
  const put = (client: QuireClient, organizationId: string, specSlug: string, body: unknown) =>
    client.PUT('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, specSlug), body: body as never });
  const get = (client: QuireClient, organizationId: string, specSlug: string) =>
    unwrap(client.GET('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, specSlug) }));
  const versions = (client: QuireClient, organizationId: string, specSlug: string, query: { page?: string; limit?: number } = {}) =>
    unwrap(client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions', { params: { ...path(organizationId, specSlug), query } }));
  const latestContent = (client: QuireClient, organizationId: string, specSlug: string) =>
    unwrap(client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', { params: path(organizationId, specSlug) }));
  /**
   * Fetches a raw-document URL the API answered. Those URLs are built on QUIRE_PUBLIC_URL, which the test
   * server does not listen on; the path is the same.
   */
  const fetchRaw = (url: string, token?: string) => {
    const parsed = new URL(url);
    return fetch(new URL(`${parsed.pathname}${parsed.search}`, server.url), token ? { headers: { authorization: `Bearer ${token}` } } : {});
  };
  /** Runs the queued processing jobs, with a short fetch time limit so that a URL that never answers fails fast. */
  const process = async () => {
    const runner = new JobRunner({ services: server.running.services, handlers: { [OPENAPI_SPEC_PROCESS_JOB]: openApiSpecJob({ fetchTimeoutMs: 700 }) }, backoffMs: () => 60_000 });
    while (await runner.runOnce()) { /* drain */ }
  };

  describe('createOpenAPISpec', () => {
    it('creates a spec from text (201, pending), and processing makes a 3.0 version with its content', async () => {
      const { organizationId, admin } = await org();
      const created = await create(admin.client, organizationId, { slug: 'petstore', source: { text: PETSTORE_30 } });
      expect(created.response.status).toBe(201);
      expect(created.data).toMatchObject({ object: 'openapi-spec', slug: 'petstore', processingState: 'pending', visibility: 'private', permissions: { view: true, edit: true } });
      expect(created.data!.sourceURL).toBeUndefined();
      expect(created.data!.lastVersion).toBeUndefined();
      expect(created.data!.urls.location).toMatch(new RegExp(`/v1/orgs/${organizationId}/openapi/petstore$`));

      await process();
      const spec = await get(admin.client, organizationId, 'petstore');
      expect(spec.processingState).toBe('complete');
      expect(spec.lastProcessErrorCode).toBeUndefined();
      expect(spec.lastProcessedAt).toBeDefined();
      expect(spec.lastVersion).toBeDefined();
      const content = await latestContent(admin.client, organizationId, 'petstore');
      expect(content.filesystem).toEqual({ 'openapi.yaml': expect.objectContaining({ openapi: '3.0.3', info: { title: 'Petstore', version: '1.0.0' } }) });
      // The raw document is served to members at the version's URL, exactly as it was sent.
      const raw = await fetchRaw(content.url, admin.token);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toMatch(/yaml/);
      expect(await raw.text()).toBe(PETSTORE_30);
    });

    it('processes OpenAPI 3.1 and Swagger 2.0 documents', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'v31', source: { text: PETSTORE_31 } }));
      await unwrap(create(admin.client, organizationId, { slug: 'v20', source: { text: SWAGGER_20 } }));
      await process();
      for (const [slug, name, field] of [['v31', 'openapi.json', 'openapi'], ['v20', 'openapi.yaml', 'swagger']] as const) {
        const spec = await get(admin.client, organizationId, slug);
        expect(spec.lastProcessErrorCode, JSON.stringify(spec.lastProcessedErrors)).toBeUndefined();
        const content = await latestContent(admin.client, organizationId, slug);
        expect(Object.keys(content.filesystem)).toEqual([name]);
        expect((content.filesystem[name] as Record<string, unknown>)[field]).toBe(slug === 'v31' ? '3.1.0' : '2.0');
      }
    });

    it('processes the project\'s own bundled spec (a large real-world document)', async () => {
      const { organizationId, admin } = await org();
      // Sent without the file's indentation: the pretty-printed contract (~970 KB) passes the API's 1 MiB body limit
      // once escaped into a JSON string; the document is the same.
      const text = JSON.stringify(JSON.parse(readFileSync(bundledContractFile(), 'utf8')));
      await unwrap(create(admin.client, organizationId, { slug: 'quire', source: { text } }));
      await process();
      const spec = await get(admin.client, organizationId, 'quire');
      expect(spec.lastProcessErrorCode, JSON.stringify(spec.lastProcessedErrors)).toBeUndefined();
      const content = await latestContent(admin.client, organizationId, 'quire');
      expect(content.filesystem['openapi.json']).toEqual(JSON.parse(text));
    });

    it('records broken YAML as PARSE_ERROR with the line of the fault, and makes no version', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'broken', source: { text: 'openapi: 3.0.3\ninfo:\n  title: [unclosed\n  version: 1\npaths: {}\n' } }));
      await process();
      const spec = await get(admin.client, organizationId, 'broken');
      expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
      expect(spec.lastVersion).toBeUndefined();
      expect(spec.lastProcessedErrors!.length).toBeGreaterThan(0);
      expect(spec.lastProcessedErrors![0]!.message).toMatch(/^Line \d+, column \d+: /);
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/latest', { params: path(organizationId, 'broken') }), 404);
    });

    it('records a document that is not OpenAPI, and validation faults with their JSON pointer, as PARSE_ERROR', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'notopenapi', source: { text: 'name: my-package\nversion: 1.0.0\n' } }));
      await unwrap(create(admin.client, organizationId, { slug: 'invalid', source: { text: 'openapi: 3.0.3\ninfo:\n  title: No version\npaths:\n  /a:\n    get:\n      responses: 5\n' } }));
      await process();
      const notOpenApi = await get(admin.client, organizationId, 'notopenapi');
      expect(notOpenApi.lastProcessErrorCode).toBe('PARSE_ERROR');
      expect(notOpenApi.lastProcessedErrors![0]).toMatchObject({ code: 'not-openapi', message: expect.stringMatching(/not an OpenAPI document/) });
      const invalid = await get(admin.client, organizationId, 'invalid');
      expect(invalid.lastProcessErrorCode).toBe('PARSE_ERROR');
      const messages = invalid.lastProcessedErrors!.map((error) => error.message);
      expect(messages).toContainEqual(expect.stringMatching(/^Line 2, column 1 \(\/info\): .*`version`/));
      expect(messages).toContainEqual(expect.stringMatching(/\(\/paths\/~1a\/get\/responses\): /));
    });

    it('fetches a URL source and the external $ref it makes through the guard; both files are in the content', async () => {
      const { organizationId, admin } = await org();
      const created = await unwrap(create(admin.client, organizationId, { slug: 'remote', source: { url: `${web.url}/with-ref.yaml` } }));
      expect(created.sourceURL).toBe(`${web.url}/with-ref.yaml`);
      await process();
      const spec = await get(admin.client, organizationId, 'remote');
      expect(spec.lastProcessErrorCode, JSON.stringify(spec.lastProcessedErrors)).toBeUndefined();
      const content = await latestContent(admin.client, organizationId, 'remote');
      expect(Object.keys(content.filesystem)).toEqual([`${web.url}/with-ref.yaml`, `${web.url}/schemas/pet.yaml`]);
      expect(content.filesystem[`${web.url}/schemas/pet.yaml`]).toEqual({ type: 'object', properties: { name: { type: 'string' } } });
    });

    it('refuses an external $ref to a local file, even with local URLs allowed, and never reads it', async () => {
      const { organizationId, admin } = await org();
      const withFileRef = PETSTORE_30.replace("$ref: '#/components/schemas/Pet'", "$ref: 'file:///etc/hostname'");
      const withPathRef = PETSTORE_30.replace("$ref: '#/components/schemas/Pet'", "$ref: '../../../etc/hostname'");
      await unwrap(create(admin.client, organizationId, { slug: 'fileref', source: { text: withFileRef } }));
      await unwrap(create(admin.client, organizationId, { slug: 'pathref', source: { text: withPathRef } }));
      await process();
      for (const slug of ['fileref', 'pathref']) {
        const spec = await get(admin.client, organizationId, slug);
        expect(spec.lastProcessErrorCode).toBe('FETCH_ERROR');
        expect(spec.lastVersion).toBeUndefined();
        expect(spec.lastProcessedErrors![0]!.message).toMatch(/local file|file scheme/);
        expect(spec.lastProcessedErrors![0]!.message).toMatch(/^Line \d+, column \d+ \(\/paths\/~1pets\/get\/responses\/200\/content\/application~1json\/schema\/items\)/);
      }
    });

    it('records FETCH_TIMEOUT for a URL that never answers, and FETCH_ERROR for one that answers 404', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'slow', source: { url: `${web.url}/hang` } }));
      await unwrap(create(admin.client, organizationId, { slug: 'missing', source: { url: `${web.url}/nothing.yaml` } }));
      await process();
      const slow = await get(admin.client, organizationId, 'slow');
      expect(slow).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_TIMEOUT' });
      expect(slow.lastProcessedErrors![0]!.message).toMatch(/took longer than the limit of 700 ms/);
      const missing = await get(admin.client, organizationId, 'missing');
      expect(missing.lastProcessErrorCode).toBe('FETCH_ERROR');
      expect(missing.lastProcessedErrors![0]!.message).toMatch(/HTTP 404/);
    });

    it('answers 400 for a slug or source that breaks the contract, 409 for a used slug, and changes nothing', async () => {
      const { organizationId, admin } = await org();
      for (const body of [
        { slug: 'has space', source: { text: PETSTORE_30 } },
        { slug: 'trailing-', source: { text: PETSTORE_30 } },
        { slug: 'a'.repeat(101), source: { text: PETSTORE_30 } },
        { slug: '', source: { text: PETSTORE_30 } },
        { slug: 'ok', source: { text: '' } },
        { slug: 'ok', source: { text: '   ' } },
        { slug: 'ok', source: { url: 'not a url' } },
        { slug: 'ok', source: { url: `https://example.com/${'a'.repeat(2048)}` } },
        { slug: 'ok', source: { url: 'ftp://example.com/spec.yaml' } },
        { slug: 'ok', source: { url: 'file:///etc/hostname' } },
        { slug: 'ok', source: { url: 'https://user:secret@example.com/spec.yaml' } },
        { slug: 'ok', source: { url: 'https://example.com/a.yaml', text: PETSTORE_30 } },
        { slug: 'ok' },
        { source: { text: PETSTORE_30 } },
      ]) {
        expectError(await create(admin.client, organizationId, body), 400);
      }
      expect((await unwrap(admin.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId } } }))).count).toBe(0);
      await unwrap(create(admin.client, organizationId, { slug: 'Taken', source: { text: PETSTORE_30 } }));
      expectError(await create(admin.client, organizationId, { slug: 'Taken', source: { text: SWAGGER_20 } }), 409);
    });

    it('answers 403 below the create role, and 404 for another organization', async () => {
      const { organizationId, people } = await org();
      expectError(await create(people.editor!.client, organizationId, { slug: 'x', source: { text: PETSTORE_30 } }), 403);
      expectError(await create(people.guest!.client, organizationId, { slug: 'x', source: { text: PETSTORE_30 } }), 403);
      const created = await create(people.creator!.client, organizationId, { slug: 'x', source: { text: PETSTORE_30 } });
      expect(created.response.status).toBe(201);
      const other = await org('Other org');
      expectError(await create(other.admin.client, organizationId, { slug: 'y', source: { text: PETSTORE_30 } }), 404);
    });
  });

  describe('createOpenAPISpec processing limits', () => {
    const processWith = async (options: Parameters<typeof openApiSpecJob>[0]) => {
      const runner = new JobRunner({ services: server.running.services, handlers: { [OPENAPI_SPEC_PROCESS_JOB]: openApiSpecJob(options) }, backoffMs: () => 60_000 });
      while (await runner.runOnce()) { /* drain */ }
    };

    it('records a source larger than the size limit as FETCH_ERROR, and processing over the time limit as PARSE_ERROR', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'big', source: { url: `${web.url}/petstore.yaml` } }));
      await processWith({ maxBytes: 100 });
      const big = await get(admin.client, organizationId, 'big');
      expect(big).toMatchObject({ lastProcessErrorCode: 'FETCH_ERROR', lastProcessedErrors: [{ code: 'too-large', message: expect.stringMatching(/larger than the limit of 100 bytes/) }] });

      // A document of 4,000 operations takes the worker far longer than a millisecond to validate (a small one
      // could be answered before a busy main thread runs the timer): the limit ends it, and the next document
      // gets a new worker.
      const paths = Array.from({ length: 4000 }, (_, i) => `  /items${i}:\n    get:\n      operationId: getItem${i}\n      responses:\n        '200':\n          description: Item ${i}\n`).join('');
      const large = `openapi: 3.0.3\ninfo: {title: Large, version: "1"}\npaths:\n${paths}`;
      await unwrap(create(admin.client, organizationId, { slug: 'slowparse', source: { text: large } }));
      await processWith({ processTimeLimitMs: 1 });
      const slow = await get(admin.client, organizationId, 'slowparse');
      expect(slow).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR', lastProcessedErrors: [{ code: 'too-slow' }] });
      expect(slow.lastVersion).toBeUndefined();
      await unwrap(put(admin.client, organizationId, 'slowparse', { source: { text: PETSTORE_30 } }));
      await process();
      expect((await get(admin.client, organizationId, 'slowparse')).lastVersion).toBeDefined();
    });

    it('ends a YAML alias bomb (a small text that expands into billions of nodes) at the time limit', async () => {
      const { organizationId, admin } = await org();
      let text = 'openapi: 3.0.3\ninfo: {title: Bomb, version: "1"}\npaths: {}\nx-a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
      for (let level = 1; level < 10; level++) text += `x-a${level}: &a${level} [${Array(9).fill(`*a${level - 1}`).join(', ')}]\n`;
      await unwrap(create(admin.client, organizationId, { slug: 'bomb', source: { text } }));
      const started = Date.now();
      await processWith({ processTimeLimitMs: 2000 });
      expect(Date.now() - started).toBeLessThan(30_000);
      const bomb = await get(admin.client, organizationId, 'bomb');
      expect(bomb).toMatchObject({ lastProcessErrorCode: 'PARSE_ERROR' });
      expect(bomb.lastVersion).toBeUndefined();
    });
  });

  describe('createOpenAPISpec without QUIRE_ALLOW_LOCAL_URLS', () => {
    let strict: TestServer;
    beforeAll(async () => {
      strict = await startTestServer({ dialect, env: { QUIRE_ALLOW_LOCAL_URLS: 'false' } });
    });
    afterAll(async () => {
      await strict?.close();
    });

    it('refuses a source URL the guard refuses (a loopback address) with 400, and stores nothing', async () => {
      const owner = await strict.bootstrap('Strict org');
      const client = strict.client(owner.token);
      expectError(await create(client, owner.organizationId, { slug: 'local', source: { url: `${web.url}/petstore.yaml` } }), 400, /QUIRE_ALLOW_LOCAL_URLS/);
      expectError(await put(client, owner.organizationId, 'local', { source: { url: 'http://169.254.169.254/latest/meta-data' } }), 400, /link-local|QUIRE_ALLOW_LOCAL_URLS/);
      expect((await unwrap(client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId: owner.organizationId } } }))).count).toBe(0);
    });
  });

  describe('createOrUpdateOpenAPISpecBySlug', () => {
    it('creates (201) then updates (200); the same text twice makes one version, a new text a second one', async () => {
      const { organizationId, admin } = await org();
      const first = await put(admin.client, organizationId, 'orders', { source: { text: PETSTORE_30 } });
      expect(first.response.status).toBe(201);
      await process();
      const v1 = (await get(admin.client, organizationId, 'orders')).lastVersion;
      const again = await put(admin.client, organizationId, 'orders', { source: { text: PETSTORE_30 } });
      expect(again.response.status).toBe(200);
      expect(again.data).toMatchObject({ processingState: 'pending', lastVersion: v1 });
      await process();
      expect((await get(admin.client, organizationId, 'orders')).lastVersion).toBe(v1);
      expect((await versions(admin.client, organizationId, 'orders')).count).toBe(1);

      await unwrap(put(admin.client, organizationId, 'orders', { source: { text: SWAGGER_20 } }));
      await process();
      const spec = await get(admin.client, organizationId, 'orders');
      expect(spec.lastVersion).not.toBe(v1);
      const list = await versions(admin.client, organizationId, 'orders');
      expect(list.items.map((item) => item.id)).toEqual([spec.lastVersion, v1]);
    });

    it('refreshes a URL source; a refresh that fails keeps the last good version', async () => {
      const { organizationId, admin } = await org();
      await unwrap(put(admin.client, organizationId, 'pets', { source: { url: `${web.url}/petstore.yaml` } }));
      await process();
      const good = await get(admin.client, organizationId, 'pets');
      expect(good.lastVersion).toBeDefined();
      // The same URL again: fetched again, same content, same version.
      expect((await put(admin.client, organizationId, 'pets', { source: { url: `${web.url}/petstore.yaml` } })).response.status).toBe(200);
      await process();
      expect((await get(admin.client, organizationId, 'pets')).lastVersion).toBe(good.lastVersion);

      await unwrap(put(admin.client, organizationId, 'pets', { source: { url: `${web.url}/gone.yaml` } }));
      await process();
      const failed = await get(admin.client, organizationId, 'pets');
      expect(failed).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR', lastVersion: good.lastVersion, sourceURL: `${web.url}/gone.yaml` });
      expect((await latestContent(admin.client, organizationId, 'pets')).filesystem).toHaveProperty([`${web.url}/petstore.yaml`]);
    });

    it('answers 400 for a bad source or slug, 403 below the create role, 404 for another organization', async () => {
      const { organizationId, admin, people } = await org();
      expectError(await put(admin.client, organizationId, 'ok', { source: {} }), 400);
      expectError(await put(admin.client, organizationId, 'ok', {}), 400);
      expectError(await put(admin.client, organizationId, 'bad--slug', { source: { text: PETSTORE_30 } }), 400);
      expectError(await put(people.editor!.client, organizationId, 'ok', { source: { text: PETSTORE_30 } }), 403);
      const other = await org('Other org');
      expectError(await put(other.admin.client, organizationId, 'ok', { source: { text: PETSTORE_30 } }), 404);
    });
  });

  describe('listOpenAPISpecs', () => {
    it('lists the specs by slug, page by page; guests get 403, another organization 404', async () => {
      const { organizationId, admin, people } = await org();
      for (const slug of ['charlie', 'alpha', 'bravo']) await unwrap(create(admin.client, organizationId, { slug, source: { text: PETSTORE_30 } }));
      const all = await unwrap(people.editor!.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId } } }));
      expect(all.items.map((item) => item.slug)).toEqual(['alpha', 'bravo', 'charlie']);
      expect(all.items[0]!.permissions).toEqual({ view: true, edit: false });
      const first = await unwrap(admin.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId }, query: { limit: 2 } } }));
      expect(first.items).toHaveLength(2);
      const second = await unwrap(admin.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId }, query: { limit: 2, page: first.next!.page } } }));
      expect(second.items.map((item) => item.slug)).toEqual(['charlie']);
      expect(second.next).toBeUndefined();
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId }, query: { limit: 0 } } }), 400);
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId }, query: { page: 'garbage!' } } }), 400);
      expectError(await people.guest!.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId } } }), 403);
      const other = await org('Other org');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId } } }), 404);
    });
  });

  describe('getOpenAPISpecBySlug', () => {
    it('answers the spec to members, 404 for an unknown slug or another organization, 400 for a bad slug', async () => {
      const { organizationId, admin, people } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'MixedCase-1', source: { text: PETSTORE_30 } }));
      expect((await get(people.editor!.client, organizationId, 'MixedCase-1')).slug).toBe('MixedCase-1');
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'mixedcase-1') }), 404);
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'bad_slug') }), 400);
      expectError(await people.guest!.client.GET('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'MixedCase-1') }), 403);
      const other = await org('Other org');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'MixedCase-1') }), 404);
    });
  });

  describe('createOrUpdateOpenAPISpecBySlug slugs', () => {
    it('refuses slugs that are not one plain address segment (`.`, `..`, slashes, percent-encodings, control characters) with 400, storing nothing', async () => {
      const { organizationId, admin } = await org();
      // Sent byte for byte: fetch would resolve `..` and `%2e` segments before the request left.
      for (const segment of ['..', '.', '%2E%2E', '.%2e', 'a%2Fb', 'a%5Cb', '%252E%252E', 'a%00b', 'a%0Ab', 'a.b', '-a']) {
        const answer = await sendVerbatimPath(server.url, 'PUT', `/v1/orgs/${organizationId}/openapi/${segment}`, { token: admin.token, body: { source: { text: PETSTORE_30 } } });
        expect(answer.status, segment).toBe(400);
        expect(answer.json.error?.code, segment).toBe(400);
      }
      for (const slug of ['..', '.', 'a/b', 'a%2Fb', 'a\u0000b']) expectError(await create(admin.client, organizationId, { slug, source: { text: PETSTORE_30 } }), 400);
      expect((await unwrap(admin.client.GET('/orgs/{organizationId}/openapi', { params: { path: { organizationId } } }))).items).toEqual([]);
    });
  });

  describe('updateOpenAPISpecBySlug', () => {
    it('makes a spec public (its latest raw document readable by anyone) and private again', async () => {
      const { organizationId, admin, people } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'pub', source: { text: PETSTORE_30 } }));
      await process();
      const content = await latestContent(admin.client, organizationId, 'pub');
      expect((await fetchRaw(content.url)).status).toBe(404);
      const updated = await unwrap(admin.client.PATCH('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'pub'), body: { visibility: 'public' } }));
      expect(updated.visibility).toBe('public');
      expect(updated.urls.published).toMatch(/\/openapi\/.+\/pub\/latest$/);
      const anonymous = await fetchRaw(updated.urls.published!);
      expect(anonymous.status).toBe(200);
      expect(await anonymous.text()).toBe(PETSTORE_30);
      expect((await fetchRaw(content.url)).status).toBe(200);

      expectError(await people.editor!.client.PATCH('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'pub'), body: { visibility: 'private' } }), 403);
      expectError(await admin.client.PATCH('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'pub'), body: { visibility: 'secret' } as never }), 400);
      expectError(await admin.client.PATCH('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'nope'), body: { visibility: 'private' } }), 404);
      const other = await org('Other org');
      expectError(await other.admin.client.PATCH('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'pub'), body: { visibility: 'private' } }), 404);
      // Another organization's member cannot read a private spec's raw document either.
      await unwrap(admin.client.PATCH('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'pub'), body: { visibility: 'private' } }));
      expect((await fetchRaw(content.url)).status).toBe(404);
      expect((await fetchRaw(content.url, other.admin.token)).status).toBe(404);
      expect((await fetchRaw(content.url, people.editor!.token)).status).toBe(200);
    });
  });

  describe('deleteOpenAPISpecBySlug', () => {
    it('deletes the spec and its versions (204, also when absent); 403 below the create role, 404 for another organization', async () => {
      const { organizationId, admin, people } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'gone', source: { text: PETSTORE_30 } }));
      await process();
      const content = await latestContent(admin.client, organizationId, 'gone');
      expectError(await people.editor!.client.DELETE('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'gone') }), 403);
      const other = await org('Other org');
      expectError(await other.admin.client.DELETE('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'gone') }), 404);
      expect((await admin.client.DELETE('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'gone') })).response.status).toBe(204);
      expect((await admin.client.DELETE('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'gone') })).response.status).toBe(204);
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'gone') }), 404);
      expect((await fetchRaw(content.url, admin.token)).status).toBe(404);
      // A new spec with the slug starts without the old one's versions.
      await unwrap(create(admin.client, organizationId, { slug: 'gone', source: { text: SWAGGER_20 } }));
      expect((await versions(admin.client, organizationId, 'gone')).count).toBe(0);
    });
  });

  describe('listOpenAPISpecVersions', () => {
    it('lists versions newest first, page by page; 404 for an unknown slug or another organization', async () => {
      const { organizationId, admin } = await org();
      for (const text of [PETSTORE_30, PETSTORE_31, SWAGGER_20]) {
        await unwrap(put(admin.client, organizationId, 'many', { source: { text } }));
        await process();
      }
      const all = await versions(admin.client, organizationId, 'many');
      expect(all.count).toBe(3);
      expect(all.items[0]!.id).toBe((await get(admin.client, organizationId, 'many')).lastVersion);
      expect(all.items[0]).toMatchObject({ object: 'openapi-spec-version' });
      const first = await versions(admin.client, organizationId, 'many', { limit: 2 });
      const second = await versions(admin.client, organizationId, 'many', { limit: 2, page: first.next!.page });
      expect([...first.items, ...second.items].map((item) => item.id)).toEqual(all.items.map((item) => item.id));
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions', { params: path(organizationId, 'unknown') }), 404);
      const other = await org('Other org');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions', { params: path(organizationId, 'many') }), 404);
    });
  });

  describe('getLatestOpenAPISpecVersion', () => {
    it('answers the latest version, 404 before any processing succeeded or for another organization', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'latest', source: { text: PETSTORE_30 } }));
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/latest', { params: path(organizationId, 'latest') }), 404);
      await process();
      const latest = await unwrap(admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/latest', { params: path(organizationId, 'latest') }));
      expect(latest.id).toBe((await get(admin.client, organizationId, 'latest')).lastVersion);
      expect(latest.urls.location).toMatch(new RegExp(`/v1/orgs/${organizationId}/openapi/latest/versions/${latest.id}$`));
      const other = await org('Other org');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/latest', { params: path(organizationId, 'latest') }), 404);
    });
  });

  describe('getOpenAPISpecVersionById', () => {
    it('answers a version by id; 404 for an unknown id, another spec\'s version or another organization', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'one', source: { text: PETSTORE_30 } }));
      await unwrap(create(admin.client, organizationId, { slug: 'two', source: { text: SWAGGER_20 } }));
      await process();
      const id = (await get(admin.client, organizationId, 'one')).lastVersion!;
      const version = await unwrap(admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', { params: { path: { organizationId, specSlug: 'one', versionId: id } } }));
      expect(version.id).toBe(id);
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', { params: { path: { organizationId, specSlug: 'two', versionId: id } } }), 404);
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', { params: { path: { organizationId, specSlug: 'one', versionId: 'nope' } } }), 404);
      const other = await org('Other org');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', { params: { path: { organizationId, specSlug: 'one', versionId: id } } }), 404);
    });
  });

  describe('getLatestOpenAPISpecVersionContent', () => {
    it('answers the parsed document of the latest version; 404 before any version or for another organization', async () => {
      const { organizationId, admin } = await org();
      await unwrap(create(admin.client, organizationId, { slug: 'c', source: { text: PETSTORE_31 } }));
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', { params: path(organizationId, 'c') }), 404);
      await process();
      const content = await latestContent(admin.client, organizationId, 'c');
      expect(content.filesystem).toEqual({ 'openapi.json': JSON.parse(PETSTORE_31) });
      const other = await org('Other org');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', { params: path(organizationId, 'c') }), 404);
    });
  });

  describe('getOpenAPISpecVersionContentById', () => {
    it('answers the content of an older version after a newer one; 404 for an unknown id or another organization', async () => {
      const { organizationId, admin } = await org();
      await unwrap(put(admin.client, organizationId, 'h', { source: { text: PETSTORE_30 } }));
      await process();
      const old = (await get(admin.client, organizationId, 'h')).lastVersion!;
      await unwrap(put(admin.client, organizationId, 'h', { source: { text: SWAGGER_20 } }));
      await process();
      const content = await unwrap(admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', { params: { path: { organizationId, specSlug: 'h', versionId: old } } }));
      expect((content.filesystem['openapi.yaml'] as Record<string, unknown>).openapi).toBe('3.0.3');
      const raw = await fetchRaw(content.url, admin.token);
      expect(await raw.text()).toBe(PETSTORE_30);
      expectError(await admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', { params: { path: { organizationId, specSlug: 'h', versionId: 'nope' } } }), 404);
      const other = await org('Other org');
      expectError(await other.admin.client.GET('/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', { params: { path: { organizationId, specSlug: 'h', versionId: old } } }), 404);
    });
  });

  describe('applyTemplateToSpace from an organization OpenAPI specification', () => {
    const applyReference = (client: QuireClient, spaceId: string, spec: string) =>
      client.POST('/spaces/{spaceId}/content/template', { params: { path: { spaceId } }, body: { id: 'openapi-reference', params: { contentRefs: { spec: { kind: 'openapi', spec } } } } });
    const openApiLinks = async (client: QuireClient, spaceId: string) =>
      (await unwrap(client.GET('/spaces/{spaceId}/links', { params: { path: { spaceId } } }))).items.filter((item) => item.targetReference.kind === 'openapi');

    it('computes the reference from the latest version, and checks the reference like a link', async () => {
      const { organizationId, admin } = await org();
      const owner = { organizationId, client: admin.client };
      await unwrap(create(admin.client, organizationId, { slug: 'petstore', source: { text: PETSTORE_30 } }));
      const early = await createSpace(owner);
      expectError(await applyReference(admin.client, early.id, 'petstore'), 400, /no OpenAPI specification "petstore" with a processed version/);
      await process();

      const space = await createSpace(owner);
      const applied = await applyReference(admin.client, space.id, 'petstore');
      expect(applied.response.status, JSON.stringify(applied.error)).toBe(201);
      const pages = (await unwrap(admin.client.GET('/spaces/{spaceId}/content/pages', { params: { path: { spaceId: space.id }, query: { computed: false } } }))).pages;
      const reference = pages.find((page) => page.title === 'API reference')!;
      expect(reference.computed).toEqual({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'petstore' } } } });
      const markdown = (await unwrap(admin.client.GET('/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: space.id, pageId: reference.id }, query: { format: 'markdown' } } }))).markdown!;
      expect(markdown).toContain('Reference of Petstore (version 1.0.0), generated from `petstore`.');
      const links = await openApiLinks(admin.client, space.id);
      expect(links.map((item) => [item.status, item.targetReference])).toEqual([['ok', { kind: 'openapi', organization: expect.objectContaining({ id: organizationId }), spec: 'petstore' }]]);

      // A second space computed from the spec, whose links are first checked once the spec is gone: broken.
      const orphan = await createSpace(owner);
      await unwrap(applyReference(admin.client, orphan.id, 'petstore'));
      await unwrap(admin.client.DELETE('/orgs/{organizationId}/openapi/{specSlug}', { params: path(organizationId, 'petstore') }));
      expect((await openApiLinks(admin.client, orphan.id)).map((item) => item.status)).toEqual(['broken']);
    });
  });

  describe('listSpaceLinks of OpenAPI blocks', () => {
    it('checks the spec each OpenAPI block of a page names: ok once it has a version, broken when the organization has no such spec', async () => {
      const f = contentFixtures(() => server);
      const { organizationId, admin } = await org();
      const owner = { organizationId, client: admin.client };
      await unwrap(create(admin.client, organizationId, { slug: 'petstore', source: { text: PETSTORE_30 } }));
      await process();
      const space = await createSpace(owner);
      const update = await f.editMain({ ...owner, token: admin.token } as never, space.id, [{ operation: 'insert_page', title: 'Pets', ref: 'pets', document: md([
        'List them:',
        '',
        '{% openapi-operation spec="petstore" path="/pets/{pet_id}/x_y" method="get" %}',
        '[OpenAPI petstore](https://example.com/petstore.yaml)',
        '{% endopenapi-operation %}',
        '',
        '{% openapi-schemas spec="gone" schemas="Pet" grouped="false" %}',
        '{% endopenapi-schemas %}',
        '',
        '```',
        '{% openapi-operation spec="shown-as-code" path="/pets" method="get" %}',
        '```',
      ].join('\n')) }]);
      const pageId = f.pageOf(update, 'pets');
      const links = (await unwrap(admin.client.GET('/spaces/{spaceId}/links', { params: { path: { spaceId: space.id } } }))).items.filter((item) => item.targetReference.kind === 'openapi');
      expect(links.map((item) => [item.status, (item.targetReference as { spec: string }).spec]).sort()).toEqual([['broken', 'gone'], ['ok', 'petstore']]);
      const pageLinks = await unwrap(admin.client.GET('/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: space.id, pageId }, query: { status: 'broken' } } }));
      expect(pageLinks.items.map((item) => (item.targetReference as { spec?: string }).spec)).toEqual(['gone']);
    });
  });
});
