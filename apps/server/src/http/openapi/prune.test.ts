import { describe, expect, it } from 'vitest';
import { pruneContract } from './prune.js';
import { compareContractPaths, listOperations, toExpressPath, type OpenApiDocument } from './contract.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const contract: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  servers: [{ url: '/v1' }],
  security: [{ bearerAuth: [] }],
  paths: {
    '/a': { get: { operationId: 'getA', tags: ['A'], responses: { 200: { description: 'ok', content: { 'application/json': { schema: ref('A') } } } } } },
    '/b/{id}': { post: { operationId: 'postB', security: [], requestBody: { required: true, content: { 'application/json': { schema: ref('BInput') } } }, responses: { 204: { description: 'ok' } } } },
  },
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    schemas: { A: { type: 'object', properties: { child: ref('Child') } }, Child: { type: 'string' }, BInput: { type: 'object' }, Unused: { type: 'number' } },
  },
};

describe('contract helpers', () => {
  it('prunes a path to the components it reaches, transitively, and copies them', () => {
    const pruned = pruneContract(contract, '/a');
    expect(Object.keys(pruned.paths)).toEqual(['/a']);
    expect(Object.keys(pruned.components!.schemas!).sort()).toEqual(['A', 'Child']);
    expect(pruned.components!.securitySchemes).toBeDefined();
    (pruned.components!.schemas!.A as { type: string }).type = 'changed';
    expect((contract.components!.schemas!.A as { type: string }).type).toBe('object');
    expect(Object.keys(pruneContract(contract, '/a', { responses: false }).components!.schemas ?? {})).toEqual([]);
  });

  it('refuses unresolved references', () => {
    const broken = { ...contract, paths: { '/x': { get: { operationId: 'x', responses: { 200: { description: 'ok', content: { 'application/json': { schema: ref('Missing') } } } } } } } };
    expect(() => pruneContract(broken, '/x')).toThrow(/unresolved \$ref/);
  });

  it('lists operations with their express path, auth and body requirements', () => {
    expect(listOperations(contract).map(({ operationId, expressPath, requiresAuth, requestBodyRequired, tags }) => ({ operationId, expressPath, requiresAuth, requestBodyRequired, tags }))).toEqual([
      { operationId: 'getA', expressPath: '/v1/a', requiresAuth: true, requestBodyRequired: false, tags: ['A'] },
      { operationId: 'postB', expressPath: '/v1/b/:id', requiresAuth: false, requestBodyRequired: true, tags: [] },
    ]);
    expect(toExpressPath('/v1', '/x/{a}/y/{b}')).toBe('/v1/x/:a/y/:b');
    expect(['/v/{id}', '/v/latest'].sort(compareContractPaths)).toEqual(['/v/latest', '/v/{id}']);
  });
});
