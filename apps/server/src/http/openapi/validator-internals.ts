import { createRequire } from 'node:module';
import type { OpenApiDocument, OpenApiOperation } from './contract.js';

/*
 * Every use of express-openapi-validator's private files and members, in one place.
 *
 * The library's public `middleware()` finds the operation of each request by looping over every path of the
 * contract (building a path-to-regexp each time) and compiles validators on the first request of each route;
 * apps/server/README.md ("Request flow") has the figures. Quire finds the operation itself and compiles
 * before listening, so it drives the validator classes that `middleware()` wires together, which the
 * package does not export. What it relies on is listed in `VALIDATOR_INTERNALS` below;
 * validator-internals.test.ts checks each against the installed version and names the one that changed
 * (run it after any upgrade; the version is pinned in apps/server/package.json).
 */

const require = createRequire(import.meta.url);
const PACKAGE = 'express-openapi-validator';

function load<T>(file: string): T {
  return require(`${PACKAGE}/${file}`) as T;
}

/** An error of the validator's failing validation: `status` and the list of what failed. */
export interface ValidatorError extends Error {
  status: number;
  errors: ValidatorErrorItem[];
}

export interface ValidatorErrorItem {
  path?: string;
  message?: string;
  /** `<ajv keyword>.openapi.validation` for schema failures (`required.openapi.validation`). */
  errorCode?: string;
}

type ValidatorErrorClass = new (...args: never[]) => ValidatorError;

/** What the validator puts into ajv's options, as `OpenApiValidator` derives them from the public options. */
export interface EovOptions {
  ajvOpts: { preprocessor: unknown; request: unknown; response: unknown };
  options: { validateResponses: unknown };
}

export interface EovRequestValidator {
  /** Compiled request validators by `requestValidatorKey()`. */
  middlewareCache: Record<string, unknown>;
  /** Validates `req` against `req.openapi` (`setRequestOperation`); throws the library's errors. */
  validate(req: unknown, res: unknown, next: () => void): void;
  buildMiddleware(expressRoute: string, schema: OpenApiOperation, contentType: unknown, key: string): unknown;
}

export interface EovResponseValidator {
  buildValidators(responses: unknown, cacheKey: string): unknown;
  /** Whether `_validate` checks a body of this media type (it lets the others through); may throw on wildcards. */
  canValidateContentType(contentType: string): boolean;
  _validate(input: { validators: unknown; body: unknown; statusCode: number; path: string; accepts: string[] }): void;
}

export interface EovSchemaPreprocessor {
  /** Schemas already resolved, by `$ref` (`#/components/schemas/<name>`). */
  resolvedSchemaCache: Map<string, unknown>;
  /** Returns the request-side document and, when responses are validated, a copy made for them. */
  preProcess(): { apiDoc: OpenApiDocument; apiDocRes: OpenApiDocument | null };
}

const { OpenApiValidator } = load<{ OpenApiValidator: new (options: Record<string, unknown>) => EovOptions }>('dist/openapi.validator.js');
const { SchemaPreprocessor } = load<{
  SchemaPreprocessor: new (apiDoc: OpenApiDocument, ajvOptions: unknown, responseOptions: unknown) => EovSchemaPreprocessor;
}>('dist/middlewares/parsers/schema.preprocessor.js');
const { RequestValidator, ResponseValidator } = load<{
  RequestValidator: new (apiDoc: OpenApiDocument, options: unknown) => EovRequestValidator;
  ResponseValidator: new (apiDoc: OpenApiDocument, options: unknown, eovOptions: unknown, serial: number) => EovResponseValidator;
}>('dist/middlewares/index.js');
const { ContentType, findResponseContent } = load<{
  ContentType: { fromString(type: string | undefined): { normalize(): string | null | undefined } };
  /** Which of a response's media types `_validate` checks a body against, given the accepted types. */
  findResponseContent(accepts: string[], expectedTypes: string[]): string | null;
}>('dist/middlewares/util.js');
// The error classes the package exports as `error` (its index also loads the spec loader and its $ref
// parser, tens of milliseconds at start-up that nothing here needs); the test checks they are the same.
const errorClasses = load<Record<'BadRequest' | 'UnsupportedMediaType' | 'InternalServerError' | 'RequestEntityTooLarge' | 'MethodNotAllowed'
  | 'NotAcceptable' | 'NotFound' | 'Unauthorized' | 'Forbidden', ValidatorErrorClass>>('dist/framework/types.js');

export { OpenApiValidator, SchemaPreprocessor, RequestValidator, ResponseValidator, findResponseContent };

/** The error classes of the package's public `error` export, by name. */
export const validatorErrors = {
  BadRequest: errorClasses.BadRequest,
  UnsupportedMediaType: errorClasses.UnsupportedMediaType,
  InternalServerError: errorClasses.InternalServerError,
  RequestEntityTooLarge: errorClasses.RequestEntityTooLarge,
  MethodNotAllowed: errorClasses.MethodNotAllowed,
  NotAcceptable: errorClasses.NotAcceptable,
  NotFound: errorClasses.NotFound,
  Unauthorized: errorClasses.Unauthorized,
  Forbidden: errorClasses.Forbidden,
};

/** The content type argument `buildMiddleware` takes. */
export function contentTypeOf(type: string | undefined): unknown {
  return ContentType.fromString(type);
}

/**
 * The key under which `RequestValidator.validate` looks up (and otherwise compiles) the validator of a
 * request: `<METHOD>-<expressRoute>-<normalized content type or not_provided>`.
 */
export function requestValidatorKey(method: string, expressRoute: string, contentType: string | undefined): string {
  return `${method.toUpperCase()}-${expressRoute}-${ContentType.fromString(contentType).normalize() ?? 'not_provided'}`;
}

/** What `RequestValidator.validate` reads of the operation a request is for (the library's `req.openapi`). */
export interface RequestOperation {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: OpenApiOperation;
  serial: number;
}

export function setRequestOperation(req: object, operation: RequestOperation): void {
  (req as { openapi?: RequestOperation }).openapi = operation;
}

/** One private member the adapter relies on: where it is and what shape it must have. */
export interface ValidatorInternal {
  /** How the code above names it, e.g. `RequestValidator.prototype.buildMiddleware`. */
  name: string;
  /** The file of the package that provides it. */
  file: string;
  /** The path from the module's exports to the member: `['RequestValidator', 'prototype', 'buildMiddleware']`. */
  path: string[];
  /** `function` with its minimum number of declared parameters, or `class`. */
  kind: 'class' | 'function';
  parameters?: number;
}

/**
 * The private members above, for validator-internals.test.ts. Instance fields (`middlewareCache`,
 * `resolvedSchemaCache`, `ajvOpts`, `options.validateResponses`) and the key and `req.openapi` contracts
 * are checked there on instances.
 */
export const VALIDATOR_INTERNALS: readonly ValidatorInternal[] = [
  { name: 'OpenApiValidator', file: 'dist/openapi.validator.js', path: ['OpenApiValidator'], kind: 'class' },
  { name: 'SchemaPreprocessor', file: 'dist/middlewares/parsers/schema.preprocessor.js', path: ['SchemaPreprocessor'], kind: 'class' },
  {
    name: 'SchemaPreprocessor.prototype.preProcess', file: 'dist/middlewares/parsers/schema.preprocessor.js',
    path: ['SchemaPreprocessor', 'prototype', 'preProcess'], kind: 'function', parameters: 0,
  },
  { name: 'RequestValidator', file: 'dist/middlewares/index.js', path: ['RequestValidator'], kind: 'class' },
  { name: 'RequestValidator.prototype.validate', file: 'dist/middlewares/index.js', path: ['RequestValidator', 'prototype', 'validate'], kind: 'function', parameters: 3 },
  {
    name: 'RequestValidator.prototype.buildMiddleware', file: 'dist/middlewares/index.js',
    path: ['RequestValidator', 'prototype', 'buildMiddleware'], kind: 'function', parameters: 4,
  },
  { name: 'ResponseValidator', file: 'dist/middlewares/index.js', path: ['ResponseValidator'], kind: 'class' },
  {
    name: 'ResponseValidator.prototype.buildValidators', file: 'dist/middlewares/index.js',
    path: ['ResponseValidator', 'prototype', 'buildValidators'], kind: 'function', parameters: 2,
  },
  { name: 'ResponseValidator.prototype._validate', file: 'dist/middlewares/index.js', path: ['ResponseValidator', 'prototype', '_validate'], kind: 'function', parameters: 1 },
  {
    name: 'ResponseValidator.prototype.canValidateContentType', file: 'dist/middlewares/index.js',
    path: ['ResponseValidator', 'prototype', 'canValidateContentType'], kind: 'function', parameters: 1,
  },
  { name: 'findResponseContent', file: 'dist/middlewares/util.js', path: ['findResponseContent'], kind: 'function', parameters: 2 },
  { name: 'ContentType.fromString', file: 'dist/middlewares/util.js', path: ['ContentType', 'fromString'], kind: 'function', parameters: 1 },
  { name: 'ContentType.prototype.normalize', file: 'dist/middlewares/util.js', path: ['ContentType', 'prototype', 'normalize'], kind: 'function', parameters: 0 },
  ...Object.keys(validatorErrors).map((name): ValidatorInternal => ({ name: `error class ${name}`, file: 'dist/framework/types.js', path: [name], kind: 'class' })),
];

/** Reads one listed member from the installed package: what it is, or why it is not there. */
export function findInternal(internal: ValidatorInternal): { found: unknown } | { problem: string } {
  let value: unknown;
  try {
    value = require(`${PACKAGE}/${internal.file}`);
  } catch (error) {
    return { problem: `${PACKAGE}/${internal.file} cannot be loaded (${(error as Error).message.split('\n')[0]})` };
  }
  for (const key of internal.path) {
    value = value === null || value === undefined ? undefined : (value as Record<string, unknown>)[key];
  }
  if (typeof value !== 'function') return { problem: `${internal.name} is missing from ${PACKAGE}/${internal.file}` };
  if (internal.kind === 'class' && !(value as { prototype?: unknown }).prototype) return { problem: `${internal.name} is no longer a class` };
  if (internal.parameters !== undefined && value.length < internal.parameters) {
    return { problem: `${internal.name} now declares ${value.length} parameter(s); the adapter passes ${internal.parameters}` };
  }
  return { found: value };
}
