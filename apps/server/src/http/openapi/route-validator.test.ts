import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PathValidator } from './route-validator.js';
import type { OpenApiDocument } from './contract.js';
import { ResponseValidator } from './validator-internals.js';

const error = { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } } } };
const contract = (): OpenApiDocument => ({
  openapi: '3.1.0',
  info: { title: 'responses', version: '1' },
  servers: [{ url: '/v1' }],
  paths: {
    '/things/{thingId}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: { description: 'the thing', content: { 'application/json': { schema: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' } } } } } },
          204: { description: 'nothing' },
          default: { description: 'error', content: { 'application/json': { schema: error } } },
        },
      },
    },
  },
  components: { schemas: {} },
});

const req = { url: '/v1/things/t1' } as IncomingMessage;

describe('response checks', () => {
  afterEach(() => vi.restoreAllMocks());

  it('accept a body matching its status schema without the library redoing its per-answer lookups, and refuse others through it', async () => {
    const validator = await PathValidator.create(contract(), '/things/{thingId}', { validateResponses: true });
    validator.warmResponses();
    const check = validator.responseCheck('get')!;
    const libraryChecks = vi.spyOn(ResponseValidator.prototype, '_validate');
    check(req, 200, { id: 't1' });
    check(req, 404, { error: { code: 404, message: 'Not found' } });
    expect(libraryChecks).not.toHaveBeenCalled();

    // A mismatch, a body where the contract has none, no body where it has one: the library's own errors.
    expect(() => check(req, 200, { id: 1 })).toThrow(/id must be string/);
    expect(() => check(req, 200, { id: 't1', extra: true })).toThrow(/must NOT have additional properties/);
    expect(() => check(req, 404, { message: 'flat' })).toThrow(/must have required property 'error'/);
    expect(() => check(req, 204, { id: 't1' })).toThrow(/response should NOT have a body/);
    expect(() => check(req, 200, null)).toThrow(/response body required/);
    check(req, 204, undefined);
    expect(libraryChecks).toHaveBeenCalledTimes(6);
  });

  it('report a mismatch to onMismatch in log mode, as before', async () => {
    const mismatches: string[] = [];
    const validator = await PathValidator.create(contract(), '/things/{thingId}', { validateResponses: true, onMismatch: (failure) => mismatches.push(failure.message) });
    validator.warmResponses();
    const check = validator.responseCheck('get')!;
    check(req, 200, { id: 't1' });
    check(req, 200, { id: 2 });
    expect(mismatches).toEqual([expect.stringMatching(/id must be string/)]);
  });
});
