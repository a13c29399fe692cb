import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server.js';
import type { OpenApiDocument } from '../src/http/openapi/contract.js';
import type { Handlers } from '../src/http/registry.js';

// A small contract of our own, so the request flow is tested independently of the real one.
const error = { $ref: '#/components/responses/Error' };
const contract: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'test', version: '1' },
  servers: [{ url: '/v1' }],
  security: [{ bearerAuth: [] }],
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, default: error },
      },
      post: {
        operationId: 'createThing',
        requestBody: { required: true, content: { 'application/json': { schema: {
          type: 'object', additionalProperties: false, required: ['title'], properties: { title: { type: 'string', maxLength: 50 } },
        } } } },
        responses: { 201: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, default: error },
      },
    },
    '/things/{thingId}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string', minLength: 3 } }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, default: error },
      },
      delete: {
        operationId: 'deleteThing',
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 204: { description: 'gone' }, default: error },
      },
    },
    '/things/special': {
      get: { operationId: 'getSpecialThing', responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, default: error } },
    },
    '/boom': { get: { operationId: 'boom', responses: { 200: { description: 'never' }, default: error } } },
    '/duplicate': { post: { operationId: 'duplicate', responses: { 201: { description: 'never' }, default: error } } },
    '/broken': { get: { operationId: 'broken', responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, default: error } } },
    '/todo': { get: { operationId: 'notWrittenYet', responses: { 200: { description: 'ok' }, default: error } } },
    '/public': { get: { operationId: 'publicThing', security: [], responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, default: error } } },
  },
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Thing: { type: 'object', additionalProperties: false, required: ['object', 'title'], properties: { object: { const: 'thing' }, title: { type: 'string' }, limit: { type: 'integer' } } },
      Error: {
        type: 'object', additionalProperties: false, required: ['error'],
        properties: { error: { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } } },
      },
    },
    responses: { Error: { description: 'error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
  },
};

const handlers = {
  listThings: async ({ query }: { query: { limit: number } }) => ({ status: 200, body: { object: 'thing', title: 'list', limit: query.limit } }),
  createThing: async ({ body }: { body: { title: string } }) => ({ status: 201, body: { object: 'thing', title: body.title } }),
  getThing: async ({ params }: { params: { thingId: string } }) => ({ status: 200, body: { object: 'thing', title: params.thingId } }),
  deleteThing: async () => ({ status: 204 }),
  getSpecialThing: async () => ({ status: 200, body: { object: 'thing', title: 'special' } }),
  boom: async () => {
    throw new Error('SELECT password FROM secrets failed');
  },
  duplicate: async () => {
    throw Object.assign(new Error('UNIQUE constraint failed: users.email'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
  },
  broken: async () => ({ status: 200, body: { object: 'thing', title: 42 } }),
  publicThing: async () => ({ status: 200, body: { object: 'thing', title: 'public' } }),
} as unknown as Handlers;

describe('request flow', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  const url = (path: string) => `${server.url}/v1${path}`;

  beforeAll(async () => {
    server = await startTestServer({ contract, handlers, env: { QUIRE_BODY_LIMIT: '2kb' } });
    auth = { authorization: `Bearer ${(await server.bootstrap()).token}` };
  });
  afterAll(async () => {
    await server?.close();
  });

  async function call(path: string, init: RequestInit = {}) {
    const response = await fetch(url(path), { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) as unknown : undefined };
  }

  it('validates, coerces and defaults query parameters', async () => {
    expect((await call('/things')).body).toEqual({ object: 'thing', title: 'list', limit: 50 });
    expect((await call('/things?limit=7')).body).toEqual({ object: 'thing', title: 'list', limit: 7 });
    expect(await call('/things?limit=1001')).toMatchObject({ status: 400, body: { error: { code: 400, message: 'query.limit must be <= 1000' } } });
    expect(await call('/things?limit=abc')).toMatchObject({ status: 400, body: { error: { code: 400, message: 'query.limit must be integer' } } });
    expect(await call('/things?color=red')).toMatchObject({ status: 400, body: { error: { message: 'query.color is not a parameter of this operation' } } });
  });

  it('validates bodies and names the field', async () => {
    const post = (body: string, type = 'application/json') => call('/things', { method: 'POST', body, headers: { 'content-type': type } });
    expect(await post(JSON.stringify({ title: 'ok' }))).toMatchObject({ status: 201, body: { object: 'thing', title: 'ok' } });
    expect(await post(JSON.stringify({ title: 'x'.repeat(51) }))).toMatchObject({ status: 400, body: { error: { message: 'body.title must NOT have more than 50 characters' } } });
    expect(await post(JSON.stringify({}))).toMatchObject({ status: 400, body: { error: { message: 'body.title is required' } } });
    expect(await post(JSON.stringify({ title: 'a', extra: 1 }))).toMatchObject({ status: 400, body: { error: { message: 'body.extra is not allowed' } } });
    expect(await post('{"title":')).toMatchObject({ status: 400, body: { error: { code: 400, message: 'The request body is not valid JSON' } } });
    expect(await post(JSON.stringify({ title: 'x'.repeat(3000) }))).toMatchObject({ status: 413, body: { error: { code: 413 } } });
    expect(await post('title=x', 'application/x-www-form-urlencoded')).toMatchObject({ status: 415, body: { error: { code: 415 } } });
    expect(await call('/things', { method: 'POST' })).toMatchObject({ status: 400, body: { error: { code: 400 } } });
  });

  it('reads gzip, deflate and br bodies; one that does not match its Content-Encoding is a 400, an unknown encoding a 415', async () => {
    const json = JSON.stringify({ title: 'packed' });
    const post = (body: Buffer | string, encoding: string) =>
      call('/things', { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
    expect(await post(gzipSync(json), 'gzip')).toMatchObject({ status: 201, body: { title: 'packed' } });
    expect(await post(deflateSync(json), 'deflate')).toMatchObject({ status: 201, body: { title: 'packed' } });
    expect(await post(brotliCompressSync(json), 'br')).toMatchObject({ status: 201, body: { title: 'packed' } });
    for (const encoding of ['gzip', 'deflate', 'br']) {
      expect(await post(json, encoding)).toMatchObject({ status: 400, body: { error: { code: 400, message: `The request body is not valid ${encoding} data, as its Content-Encoding says` } } });
      // Compressed, then cut short.
      expect(await post(gzipSync(json).subarray(0, 12), encoding)).toMatchObject({ status: 400, body: { error: { code: 400 } } });
    }
    expect(await post(json, 'compress')).toMatchObject({ status: 415, body: { error: { code: 415, message: 'Content-Encoding compress is not supported: send identity, gzip, deflate or br' } } });
    // A small compressed body that inflates past the limit is refused like a large one.
    expect(await post(gzipSync(JSON.stringify({ title: 'x'.repeat(100_000) })), 'gzip')).toMatchObject({ status: 413, body: { error: { code: 413 } } });
  });

  it('refuses a body whose content type the operation does not declare, even a JSON-like one, with 415', async () => {
    const post = (type: string) => call('/things', { method: 'POST', body: JSON.stringify({ title: 'typed' }), headers: { 'content-type': type } });
    expect(await post('application/json; charset=utf-8')).toMatchObject({ status: 201 });
    expect(await post('Application/JSON')).toMatchObject({ status: 201 });
    for (const type of ['application/json-patch+json', 'application/merge-patch+json', 'application/vnd.api+json', 'text/json', 'text/plain']) {
      expect(await post(type)).toMatchObject({ status: 415, body: { error: { code: 415, message: 'Request bodies of this operation must be sent with Content-Type: application/json' } } });
    }
  });

  it('refuses the NUL character in path, query and body (PostgreSQL cannot store it) with 400 naming the field', async () => {
    expect(await call('/things/abc%00d')).toMatchObject({ status: 400, body: { error: { code: 400, message: 'path.thingId must not contain the NUL character' } } });
    expect(await call('/things?color=%00')).toMatchObject({ status: 400, body: { error: { code: 400, message: 'query.color must not contain the NUL character' } } });
    const post = (body: unknown) => call('/things', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(await post({ title: 'a\u0000b' })).toMatchObject({ status: 400, body: { error: { code: 400, message: 'body.title must not contain the NUL character' } } });
    expect(await post({ title: 'ok', ['k\u0000']: 1 })).toMatchObject({ status: 400, body: { error: { code: 400, message: 'body must not have a property name with the NUL character' } } });
    expect(await post({ title: 'no NUL here' })).toMatchObject({ status: 201 });
  });

  it('answers headers over the limit with 431 in the error shape', async () => {
    const answer = await rawRequest(`GET /v1/things HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer.head).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer.head.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 431, message: 'The request headers are larger than the server accepts' } });
    const garbled = await rawRequest('NOT HTTP AT ALL\r\n\r\n');
    expect(garbled.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbled.body)).toMatchObject({ error: { code: 400 } });
    expect((await call('/things')).status).toBe(200);
  });

  /** Sends bytes as they are (fetch would refuse them) and reads the answer until the server closes. */
  function rawRequest(text: string): Promise<{ head: string; body: string }> {
    return new Promise((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      let received = '';
      socket.on('data', (chunk: Buffer) => { received += chunk.toString(); });
      socket.on('error', reject);
      socket.on('close', () => {
        const at = received.indexOf('\r\n\r\n');
        resolve({ head: received.slice(0, at), body: received.slice(at + 4) });
      });
    });
  }

  it('validates path parameters', async () => {
    expect(await call('/things/ab')).toMatchObject({ status: 400, body: { error: { message: 'path.thingId must NOT have fewer than 3 characters' } } });
    expect((await call('/things/abc')).body).toEqual({ object: 'thing', title: 'abc' });
  });

  it('routes a static segment before a parameter at the same place', async () => {
    expect((await call('/things/special')).body).toEqual({ object: 'thing', title: 'special' });
    // A method the static path lacks still reaches the parameterised path.
    expect((await call('/things/special', { method: 'DELETE' })).status).toBe(204);
  });

  it('answers 404 for unknown routes and 405 with Allow for a wrong method', async () => {
    expect(await call('/nothing-here')).toMatchObject({ status: 404, body: { error: { code: 404 } } });
    expect(await call('/things/')).toMatchObject({ status: 404 });
    const wrong = await call('/things', { method: 'PUT' });
    expect(wrong).toMatchObject({ status: 405, body: { error: { code: 405 } } });
    expect(wrong.headers.get('allow')).toBe('GET, POST, HEAD');
  });

  it('answers 501 in the error shape for an operation without a handler, after authentication', async () => {
    expect(await call('/todo')).toEqual(expect.objectContaining({ status: 501, body: { error: { code: 501, message: 'notWrittenYet is not implemented yet' } } }));
    expect((await fetch(url('/todo'))).status).toBe(401);
  });

  it('needs no token where the operation has no security', async () => {
    expect((await fetch(url('/public'))).status).toBe(200);
  });

  it('hides internals of unexpected errors', async () => {
    const response = await call('/boom');
    expect(response).toMatchObject({ status: 500, body: { error: { code: 500, message: 'Internal error' } } });
    expect(JSON.stringify(response.body)).not.toMatch(/SELECT|password|at /);
  });

  it('maps a unique-constraint violation to 409', async () => {
    expect(await call('/duplicate', { method: 'POST' })).toMatchObject({ status: 409, body: { error: { code: 409 } } });
  });

  it('fails an answer that breaks the contract with a 500 (tests validate responses strictly)', async () => {
    const response = await call('/broken');
    expect(response.status).toBe(500);
    expect((response.body as { error: { message: string } }).error.message).toMatch(/^The response does not match the API contract: response\.title must be string/);
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await fetch(url('/things'), { headers: { ...auth, 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await fetch(url('/things'), { headers: { ...auth, 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves /healthz and /readyz outside /v1 without a token', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ok', database: 'reachable', migrations: 'done' });
  });

  it('compiled every validator before listening', async () => {
    const validators = [...server.running.quire.validators.values()];
    expect(validators.every((validator) => validator.compiledRequestValidators > 0)).toBe(true);
    // Paths where no operation has a handler answer 501 and get no validators at all.
    const validated = server.running.quire.operations.filter((operation) => server.running.quire.validators.has(operation.contractPath));
    expect(validated.length).toBeGreaterThan(0);
    expect(validators.reduce((sum, validator) => sum + validator.compiledResponseValidators, 0)).toBe(validated.length);
    const before = validators.map((validator) => validator.compiledRequestValidators);
    await call('/things?limit=3');
    await call('/things', { method: 'POST', body: '{"title":"x"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    await fetch(url('/things'), { method: 'HEAD', headers: auth });
    expect(validators.map((validator) => validator.compiledRequestValidators)).toEqual(before);
  });
});

describe('response validation in production', () => {
  it('only reports a mismatch and still answers', async () => {
    const server = await startTestServer({ contract, handlers, env: { QUIRE_RESPONSE_VALIDATION: 'log', NODE_ENV: 'production' } });
    try {
      // Production compiles response validators after listening; wait for that instead of racing it.
      await server.running.quire.warmResponses();
      expect(server.running.quire.validators.get('/broken')!.compiledResponseValidators).toBe(1);
      const { token } = await server.bootstrap();
      const response = await fetch(`${server.url}/v1/broken`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ object: 'thing', title: 42 });
    } finally {
      await server.close();
    }
  });
});

describe('request validation in production', () => {
  it('validates the first requests as strictly as later ones, while the validators are still being built after listening', async () => {
    const server = await startTestServer({ contract, handlers, env: { QUIRE_RESPONSE_VALIDATION: 'log', NODE_ENV: 'production' } });
    try {
      const { token } = await server.bootstrap();
      const call = async (path: string) => {
        const response = await fetch(`${server.url}/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: await response.json() as unknown };
      };
      // No waiting for the warm-up: whichever comes first, the warm-up or the request, builds the path's validator.
      const [tooLarge, unknownParameter, fine] = await Promise.all([call('/things?limit=1001'), call('/things/special?limit=1'), call('/things')]);
      expect(tooLarge).toMatchObject({ status: 400, body: { error: { code: 400, message: 'query.limit must be <= 1000' } } });
      expect(unknownParameter).toMatchObject({ status: 400, body: { error: { code: 400 } } });
      expect(fine.body).toEqual({ object: 'thing', title: 'list', limit: 50 });
      await server.running.quire.warmRequests();
      const validated = new Set(server.running.quire.operations.filter((operation) => operation.operationId !== 'notWrittenYet').map((operation) => operation.contractPath));
      expect(new Set(server.running.quire.validators.keys())).toEqual(validated);
      for (const validator of server.running.quire.validators.values()) expect(validator.compiledRequestValidators).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe('graceful stop', () => {
  it('waits for an operation whose client went away before it closes the database, within the shutdown bound', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let begun!: () => void;
    const running = new Promise<void>((resolve) => { begun = resolve; });
    let server: TestServer | undefined;
    let outcome: unknown;
    const slow = {
      ...handlers,
      getThing: async () => {
        begun();
        await gate;
        // Still running after its client left and the stop began: the database must be open for it.
        outcome = await server!.db.selectFrom('users').select('id').limit(1).execute().then(() => 'read', (failure: unknown) => failure);
        return { status: 200, body: { object: 'thing', title: 'slow' } };
      },
    } as unknown as Handlers;
    server = await startTestServer({ contract, handlers: slow });
    const { token } = await server.bootstrap();
    const gaveUp = new AbortController();
    const request = fetch(`${server.url}/v1/things/slow`, { headers: { authorization: `Bearer ${token}` }, signal: gaveUp.signal }).catch(() => 'gave up');
    await running;
    gaveUp.abort();
    expect(await request).toBe('gave up');

    let closed = false;
    const closing = server.close().then(() => { closed = true; });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(outcome).toBe('read');
  });
});
