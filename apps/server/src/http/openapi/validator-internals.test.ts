import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../error-handler.js';
import type { ApiRequest } from '../request-state.js';
import { PathValidator } from './route-validator.js';
import type { OpenApiDocument, OpenApiOperation } from './contract.js';
import {
  contentTypeOf,
  findInternal,
  OpenApiValidator,
  RequestValidator,
  requestValidatorKey,
  ResponseValidator,
  SchemaPreprocessor,
  setRequestOperation,
  VALIDATOR_INTERNALS,
  validatorErrors,
} from './validator-internals.js';

/*
 * What the adapter relies on in express-openapi-validator's private files. When an upgrade changes one of
 * them, a test here fails and its message names the member that changed; fix validator-internals.ts (and
 * only it) to match.
 */

const operation: OpenApiOperation = {
  operationId: 'createThing',
  parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }, { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 10 } }],
  requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['title'], additionalProperties: false, properties: { title: { type: 'string' } } } } } },
  responses: { 201: { description: 'made', content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } } } },
};
const contract = (): OpenApiDocument => ({
  openapi: '3.1.0',
  info: { title: 'internals', version: '1' },
  servers: [{ url: '/v1' }],
  paths: { '/things/{thingId}': { post: structuredClone(operation) } },
  components: { schemas: {} },
});

function options() {
  return new OpenApiValidator({
    apiSpec: contract(),
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: { removeAdditional: false, coerceTypes: false, onError: null },
    validateSecurity: false,
    fileUploader: false,
  });
}

function request(body: unknown, query: Record<string, unknown> = {}): ApiRequest {
  return {
    method: 'POST', url: '/v1/things/t1', originalUrl: '/v1/things/t1', path: '/v1/things/t1',
    headers: { 'content-type': 'application/json' }, params: { thingId: 't1' }, query, body,
  } as unknown as ApiRequest;
}

function thrown(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a validation error');
}

describe('express-openapi-validator internals', () => {
  it('has every private member the adapter names, with the shape it uses', () => {
    const problems = VALIDATOR_INTERNALS.flatMap((internal) => {
      const found = findInternal(internal);
      return 'problem' in found ? [found.problem] : [];
    });
    expect(problems, `express-openapi-validator changed: ${problems.join('; ')}`).toEqual([]);
  });

  it('exports as `error` the very classes the error handler tells apart', () => {
    const { error } = createRequire(import.meta.url)('express-openapi-validator') as { error: Record<string, unknown> };
    for (const [name, errorClass] of Object.entries(validatorErrors)) {
      expect(error[name] === errorClass, `express-openapi-validator's error.${name} is no longer dist/framework/types.js's ${name}`).toBe(true);
    }
  });

  it('OpenApiValidator derives the ajv options and keeps the response options', () => {
    const eov = options();
    for (const side of ['preprocessor', 'request', 'response'] as const) {
      expect(eov.ajvOpts?.[side], `OpenApiValidator.ajvOpts.${side} is gone`).toBeTypeOf('object');
    }
    expect(eov.options?.validateResponses, 'OpenApiValidator.options.validateResponses is gone').toMatchObject({ removeAdditional: false });
  });

  it('SchemaPreprocessor has a resolved-schema cache by $ref and answers the request and response documents', () => {
    const eov = options();
    const preprocessor = new SchemaPreprocessor(contract(), eov.ajvOpts.preprocessor, eov.options.validateResponses);
    expect(preprocessor.resolvedSchemaCache instanceof Map, 'SchemaPreprocessor.resolvedSchemaCache is no longer a Map').toBe(true);
    const result = preprocessor.preProcess();
    expect(result?.apiDoc?.paths, 'SchemaPreprocessor.preProcess() no longer answers { apiDoc }').toBeTypeOf('object');
    expect(result.apiDocRes?.paths, 'SchemaPreprocessor.preProcess() no longer answers { apiDocRes } for responses').toBeTypeOf('object');
  });

  it('RequestValidator validates req.openapi from the cache key it was warmed under, throwing BadRequest with error codes', () => {
    const eov = options();
    const doc = contract();
    const validator = new RequestValidator(doc, eov.ajvOpts.request);
    expect(validator.middlewareCache, 'RequestValidator.middlewareCache is gone').toBeTypeOf('object');
    const schema = doc.paths['/things/{thingId}']!.post as OpenApiOperation;
    const key = requestValidatorKey('post', '/v1/things/:thingId', 'application/json');
    validator.middlewareCache[key] = validator.buildMiddleware('/v1/things/:thingId', schema, contentTypeOf('application/json'), key);

    const call = (req: ApiRequest) => {
      setRequestOperation(req, { expressRoute: '/v1/things/:thingId', openApiRoute: '/v1/things/{thingId}', pathParams: req.params, schema, serial: 1 });
      let passed = false;
      validator.validate(req, undefined, () => {
        passed = true;
      });
      return passed;
    };
    expect(call(request({ title: 'ok' }, { limit: '3' })), 'RequestValidator.validate no longer calls next() on a valid request').toBe(true);
    expect(Object.keys(validator.middlewareCache), `RequestValidator.validate looked up another key than ${key}: requestValidatorKey() no longer matches`).toEqual([key]);

    const error = thrown(() => call(request({})));
    expect(error instanceof validatorErrors.BadRequest, 'RequestValidator.validate no longer throws BadRequest').toBe(true);
    expect((error as InstanceType<typeof validatorErrors.BadRequest>).errors, 'BadRequest.errors no longer holds path and errorCode')
      .toEqual([expect.objectContaining({ path: '/body/title', errorCode: 'required.openapi.validation' })]);
    expect((error as { status?: unknown }).status, 'BadRequest.status is gone').toBe(400);
  });

  it('ResponseValidator builds validators by status and throws InternalServerError on a mismatch', () => {
    const eov = options();
    const preprocessor = new SchemaPreprocessor(contract(), eov.ajvOpts.preprocessor, eov.options.validateResponses);
    const doc = preprocessor.preProcess().apiDocRes!;
    const validator = new ResponseValidator(doc, eov.ajvOpts.response, eov.options.validateResponses, 1);
    const responses = (doc.paths['/things/{thingId}']!.post as OpenApiOperation).responses;
    const validators = validator.buildValidators(responses, 'post-/v1/things/:thingId');
    const check = (body: unknown) => validator._validate({ validators, body, statusCode: 201, path: '/v1/things/t1', accepts: ['application/json'] });
    expect(() => check({ id: 'x' }), 'ResponseValidator._validate refuses a valid answer').not.toThrow();
    const error = thrown(() => check({}));
    expect(error instanceof validatorErrors.InternalServerError, 'ResponseValidator._validate no longer throws InternalServerError').toBe(true);
    expect((error as { errors?: unknown }).errors, 'InternalServerError.errors is gone').toEqual([expect.objectContaining({ path: expect.any(String) })]);
  });

  it('PathValidator compiles every request validator at start-up and compiles none on a request', async () => {
    const validator = await PathValidator.create(contract(), '/things/{thingId}', { validateResponses: false });
    expect(validator.warmRequests()).toBe(1);
    validator.requestValidation('post')(request({ title: 'ok' }));
    expect(validator.compiledRequestValidators).toBe(1);
  });
});

describe('validation errors reach the client by class', () => {
  it('answers a bad request with each field named', async () => {
    const validator = await PathValidator.create(contract(), '/things/{thingId}', { validateResponses: false });
    validator.warmRequests();
    const validate = validator.requestValidation('post');
    expect(classifyError(thrown(() => validate(request({ title: 'ok', extra: true }, { limit: '11' }))))).toEqual({
      status: 400, headers: {}, unexpected: false,
      message: 'query.limit must be <= 10; body.extra is not allowed',
    });
    expect(classifyError(thrown(() => validate(request({ title: 'ok' }, { colour: 'red' }))))).toEqual({
      status: 400, headers: {}, unexpected: false, message: 'query.colour is not a parameter of this operation',
    });
  });

  it('answers each of the library’s other classes with its status', () => {
    const make = (name: keyof typeof validatorErrors) => new (validatorErrors[name] as unknown as new (input: object) => Error)({ path: '/query/x', message: 'is odd' });
    expect(classifyError(make('UnsupportedMediaType'))).toMatchObject({ status: 415, message: 'Request bodies must be JSON sent with Content-Type: application/json' });
    expect(classifyError(make('InternalServerError'))).toMatchObject({ status: 500, unexpected: true, message: 'The response does not match the API contract: query.x is odd' });
    expect(classifyError(make('NotFound'))).toMatchObject({ status: 404, unexpected: false, message: 'query.x is odd' });
    expect(classifyError(make('MethodNotAllowed'))).toMatchObject({ status: 405, unexpected: false });
    expect(classifyError(make('NotAcceptable'))).toMatchObject({ status: 406, unexpected: false });
    expect(classifyError(make('RequestEntityTooLarge'))).toMatchObject({ status: 413, unexpected: false });
    expect(classifyError(make('Unauthorized'))).toMatchObject({ status: 401, unexpected: false });
    expect(classifyError(make('Forbidden'))).toMatchObject({ status: 403, unexpected: false });
    // A look-alike of another library is not trusted: unknown errors are ours, and hidden.
    expect(classifyError(Object.assign(new Error('Unknown query parameter'), { status: 400, errors: [] }))).toMatchObject({ status: 500, message: 'Internal error' });
  });
});
