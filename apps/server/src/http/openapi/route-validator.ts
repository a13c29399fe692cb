import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '../../errors.js';
import type { ApiRequest } from '../request-state.js';
import type { ResponseCheck } from '../respond.js';
import { pruneContract } from './prune.js';
import { basePath, HTTP_METHODS, toExpressPath, type HttpMethod, type OpenApiDocument, type OpenApiOperation } from './contract.js';
import {
  contentTypeOf,
  findResponseContent,
  OpenApiValidator,
  RequestValidator,
  requestValidatorKey,
  ResponseValidator,
  SchemaPreprocessor,
  setRequestOperation,
  type EovOptions,
  type EovRequestValidator,
  type EovResponseValidator,
} from './validator-internals.js';

/*
 * Request and response validation by express-openapi-validator's validator classes (through
 * validator-internals.ts), one set per contract path: the router has already found the operation, which is handed
 * to the validator directly, and `warmRequests()` compiles every request validator of a path (before the server
 * listens, or in production after it: app.ts).
 * The classes are the ones the library's `middleware()` wires together, so validation behaves the same.
 */

interface Route {
  expressRoute: string;
  openApiRoute: string;
  method: HttpMethod;
}

/** Response validators check that a request belongs to their contract by this number, as the library does. */
let nextSerial = 1_000_000;

/**
 * The routes of a pruned contract, as the library's spec loader would list them. The loader is not used because it
 * compiles the whole OpenAPI meta-schema into a fresh ajv on every call (tens of milliseconds per path) even
 * with spec validation off, and because our bundled contract needs none of its $ref bundling.
 */
function describeRoutes(apiDoc: OpenApiDocument): { apiDoc: OpenApiDocument; routes: Route[]; serial: number } {
  const base = basePath(apiDoc);
  const routes: Route[] = [];
  for (const [contractPath, item] of Object.entries(apiDoc.paths)) {
    for (const method of HTTP_METHODS) {
      if (!item[method]) continue;
      routes.push({ expressRoute: toExpressPath(base, contractPath), openApiRoute: `${base}${contractPath}`, method });
    }
  }
  return { apiDoc, routes, serial: nextSerial++ };
}

function resolveLocalRef(doc: OpenApiDocument, node: unknown): unknown {
  const ref = (node as { $ref?: unknown } | null)?.$ref;
  if (typeof ref !== 'string') return node;
  const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
  const target = match ? doc.components?.[match[1]!]?.[match[2]!.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return target === undefined ? node : resolveLocalRef(doc, target);
}

/**
 * Replaces the `$ref`s at the top of each operation (responses, parameters, request body and their media
 * type schemas) by the components they point to. The library's preprocessor resolves exactly these, but
 * by compiling each target with ajv just to read it back, which made start-up several times slower.
 * Deeper `$ref`s stay: ajv compiles those once, when the validators are built.
 */
function inlineOperationRefs(doc: OpenApiDocument): OpenApiDocument {
  const inlineContent = (holder: { content?: Record<string, { schema?: unknown }> }) => {
    for (const media of Object.values(holder.content ?? {})) {
      if (media?.schema) media.schema = resolveLocalRef(doc, media.schema);
    }
  };
  for (const item of Object.values(doc.paths)) {
    if (Array.isArray(item.parameters)) item.parameters = item.parameters.map((parameter) => resolveLocalRef(doc, parameter));
    for (const method of HTTP_METHODS) {
      const operation = item[method] as OpenApiOperation | undefined;
      if (!operation) continue;
      if (operation.parameters) operation.parameters = operation.parameters.map((parameter) => resolveLocalRef(doc, parameter));
      if (operation.requestBody) {
        operation.requestBody = resolveLocalRef(doc, operation.requestBody) as NonNullable<OpenApiOperation['requestBody']>;
        inlineContent(operation.requestBody as { content?: Record<string, { schema?: unknown }> });
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const resolved = resolveLocalRef(doc, response) as { content?: Record<string, { schema?: unknown }> };
        operation.responses![status] = resolved;
        inlineContent(resolved);
      }
    }
  }
  return doc;
}

/**
 * Runs the library's schema preprocessor (it resolves `$ref`s, handles readOnly/writeOnly and, for
 * responses, makes the copy that response validators use). Returns that response copy.
 */
function preprocess(apiDoc: OpenApiDocument, ajvOptions: unknown, responseOptions: unknown): OpenApiDocument | null {
  const preprocessor = new SchemaPreprocessor(apiDoc, ajvOptions, responseOptions);
  // The preprocessor resolves every nested schema `$ref` through ajv.getSchema(), which compiles the target
  // only to read its source back. Seeding its cache with the very objects ajv would return (ajv registers
  // each `components.schemas` entry under `#/components/schemas/<name>`) skips those compilations.
  for (const [name, schema] of Object.entries(apiDoc.components?.schemas ?? {})) {
    preprocessor.resolvedSchemaCache.set(`#/components/schemas/${name}`, schema);
  }
  return preprocessor.preProcess().apiDocRes;
}

/** The only request content types that reach a validator: the body middleware normalises the header. */
export const JSON_CONTENT_TYPE = 'application/json';

export type ResponseMismatchHandler = (error: Error, body: unknown, req: IncomingMessage) => void;

export interface PathValidatorOptions {
  /** Validate responses; when `onMismatch` is given a mismatch is only reported to it (production). */
  validateResponses: boolean;
  onMismatch?: ResponseMismatchHandler;
}

interface OperationEntry {
  method: HttpMethod;
  expressRoute: string;
  openApiRoute: string;
  schema: OpenApiOperation;
  /** The query parameters the operation has, or null when their names cannot be listed (see below). */
  queryNames: ReadonlySet<string> | null;
  responseSchema: OpenApiOperation | undefined;
  /** Compiled response validators by status, built once at start-up (null when responses are not checked). */
  responseValidators: unknown;
  /** By status: the schema check `_validate` would run on a body, or null where it does something else. */
  schemaChecks: Map<number, SchemaCheck | null>;
}

/** An ajv validation function of the library's response validators (it validates `{ response: body }`). */
type SchemaCheck = (data: { response: unknown }) => boolean;

/**
 * The schema check `ResponseValidator._validate` runs on a body of this status, found the way it finds it (the
 * status's validators, else its class's (`2XX`), else `default`; the media type matching what we send, else
 * the first), or null where `_validate` would not end by running one (no validators for the status, a response
 * without content, a media type it does not check). That choice depends only on the status, but `_validate`
 * makes it again for every answer, parsing media types each time: a few percent of a small read's CPU.
 */
function schemaCheckOf(responseValidator: EovResponseValidator, validators: unknown, status: number): SchemaCheck | null {
  const byStatus = validators as Record<string, Record<string, SchemaCheck | undefined> | undefined>;
  const forStatus = byStatus[status] ?? byStatus[`${String(status)[0]}XX`] ?? byStatus.default;
  if (!forStatus) return null;
  const types = Object.keys(forStatus);
  if (types.length === 0) return null;
  const contentType = findResponseContent([JSON_CONTENT_TYPE], types) || types[0]!;
  const check = forStatus[contentType];
  if (!check) return null;
  try {
    if (!responseValidator.canValidateContentType(contentType)) return null;
  } catch {
    // `_validate` checks the body all the same when this throws.
  }
  return check;
}

interface QueryParameter {
  in?: unknown;
  name?: unknown;
  style?: unknown;
  schema?: { type?: unknown };
}

/**
 * The names a query string may hold for this operation (path-level parameters included: the preprocessor
 * has merged them in). The library refuses other names too, but only says so in words; checking first lets
 * the error be ours. Object parameters spread their properties into the query string, so an operation with
 * one (or that allows unknown parameters) is left entirely to the library.
 */
function queryParameterNames(schema: OpenApiOperation): ReadonlySet<string> | null {
  if (schema['x-eov-allow-unknown-query-parameters'] === true) return null;
  const names = new Set<string>();
  for (const parameter of (schema.parameters ?? []) as QueryParameter[]) {
    if (parameter.in !== 'query') continue;
    if (typeof parameter.name !== 'string' || parameter.style === 'deepObject' || parameter.schema?.type === 'object') return null;
    names.add(parameter.name);
  }
  return names;
}

/**
 * Error answers of an operation usually all share one schema (the Error shape) under several statuses and
 * `default`. Validating them through `default` alone is the same check, compiled once instead of once per
 * status. Statuses whose content differs from `default`'s are kept.
 */
function collapseSameAsDefault(responses: Record<string, unknown>): Record<string, unknown> {
  const fallback = responses.default as { content?: unknown } | undefined;
  if (!fallback?.content) return responses;
  const defaultContent = JSON.stringify(fallback.content);
  const kept: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(responses)) {
    const isError = /^[45]/.test(status);
    if (isError && JSON.stringify((response as { content?: unknown }).content) === defaultContent) continue;
    kept[status] = response;
  }
  return kept;
}

/**
 * Ajv options for our validators: the library's own, with code optimisation off. Optimising the generated
 * code is most of ajv's compile time and buys little for schemas of this size; start-up compiles a few
 * hundred validators, so this is the difference between a slow and a fast first answer.
 */
function fastCompile<T>(options: T): T {
  return { ...options, code: { optimize: false } };
}

/** Builds the response side of a path on first use: its preprocessed contract and its validator. */
type PrepareResponses = (() => { validator: EovResponseValidator; doc: OpenApiDocument }) | null;

/** The validators of one contract path (all its methods), built from the contract pruned to that path. */
export class PathValidator {
  readonly #operations = new Map<string, OperationEntry>();
  readonly #requestValidator: EovRequestValidator;
  #responseValidator: EovResponseValidator | null = null;
  readonly #prepareResponses: PrepareResponses;
  readonly #onMismatch: ResponseMismatchHandler | undefined;
  readonly #serial: number;
  readonly #pathKey: string;
  /** Every request validator of the path is compiled (`warmRequests`). */
  #requestsWarm = false;

  private constructor(loaded: ReturnType<typeof describeRoutes>, eov: EovOptions, options: PathValidatorOptions, prepareResponses: PrepareResponses) {
    this.#serial = loaded.serial;
    this.#onMismatch = options.onMismatch;
    this.#prepareResponses = prepareResponses;
    this.#requestValidator = new RequestValidator(loaded.apiDoc, fastCompile(eov.ajvOpts.request));
    this.#pathKey = Object.keys(loaded.apiDoc.paths)[0]!;
    for (const { method, expressRoute, openApiRoute } of loaded.routes) {
      const schema = loaded.apiDoc.paths[this.#pathKey]![method] as OpenApiOperation;
      this.#operations.set(method, {
        method, expressRoute, openApiRoute, schema, queryNames: queryParameterNames(schema), responseSchema: undefined, responseValidators: null,
        schemaChecks: new Map(),
      });
    }
  }

  /**
   * Builds the validators of one path of `contract`. Requests and responses get separate pruned copies, so
   * each ajv instance holds only the schemas its side can reach. The response side is only prepared when
   * its validators are first compiled (`warmResponses`), which production does after listening.
   */
  static async create(contract: OpenApiDocument, contractPath: string, options: PathValidatorOptions): Promise<PathValidator> {
    return PathValidator.build(contract, contractPath, options);
  }

  /** `create`, at once: what production calls for a path on its first request or in the warm-up after listening. */
  static build(contract: OpenApiDocument, contractPath: string, options: PathValidatorOptions): PathValidator {
    const eov = new OpenApiValidator({
      apiSpec: contract,
      validateApiSpec: false,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
      validateResponses: options.validateResponses ? { removeAdditional: false, coerceTypes: false, onError: null } : false,
      // Authentication is our own middleware; uploads are not part of this API.
      validateSecurity: false,
      fileUploader: false,
    });
    const requestSide = describeRoutes(inlineOperationRefs(pruneContract(contract, contractPath, { responses: false })));
    preprocess(requestSide.apiDoc, eov.ajvOpts.preprocessor, false);
    const prepareResponses = options.validateResponses
      ? () => {
          const doc = preprocess(inlineOperationRefs(pruneContract(contract, contractPath)), eov.ajvOpts.preprocessor, eov.options.validateResponses)!;
          return { doc, validator: new ResponseValidator(doc, fastCompile(eov.ajvOpts.response), eov.options.validateResponses, requestSide.serial) };
        }
      : null;
    return new PathValidator(requestSide, eov, options, prepareResponses);
  }

  #entry(method: HttpMethod): OperationEntry {
    const entry = this.#operations.get(method);
    if (!entry) throw new Error(`no ${method.toUpperCase()} operation on this path`);
    return entry;
  }

  /**
   * Validates parameters and body of one operation, throwing the library's error when they break the
   * contract (or ours for a query parameter the operation does not have); on success `req.query` holds
   * coerced values and defaults.
   */
  requestValidation(method: HttpMethod): (req: ApiRequest) => void {
    const entry = this.#entry(method);
    const validator = this.#requestValidator;
    const serial = this.#serial;
    const hasBody = entry.schema.requestBody !== undefined;
    const queryNames = entry.queryNames;
    return (req) => {
      // Production compiles request validators after listening (app.ts `warmRequests`): a request that comes
      // first compiles its own path's, a few milliseconds once, rather than the start waiting for all paths.
      if (!this.#requestsWarm) this.warmRequests();
      if (queryNames) {
        for (const name in req.query) {
          if (!queryNames.has(name)) throw new BadRequestError(`query.${name} is not a parameter of this operation`);
        }
      }
      setRequestOperation(req, { expressRoute: entry.expressRoute, openApiRoute: entry.openApiRoute, pathParams: req.params, schema: entry.schema, serial });
      // Keep to the one cache key compiled at start-up: a body sent to an operation without one is ignored
      // (the library would accept it anyway), and HEAD is validated as the GET it mirrors.
      if (!hasBody) delete req.headers['content-type'];
      const originalMethod = req.method;
      const originalUrl = req.originalUrl;
      if (originalMethod === 'HEAD') req.method = 'GET';
      // The library refuses query values holding RFC 3986 reserved characters left unencoded, but
      // `encodeURIComponent` (our client, @gitbook/api, browsers' URLSearchParams for some) leaves `!'()*` as
      // they are, so a search for "what's new" would be a 400. Encoding them changes no decoded value.
      req.originalUrl = encodeSubDelimsInQuery(originalUrl);
      try {
        // The library's validation is synchronous: it throws, or calls back at once.
        validator.validate(req, undefined, () => {});
      } finally {
        req.method = originalMethod;
        req.originalUrl = originalUrl;
      }
    };
  }

  /**
   * Checks a JSON answer of the operation (5xx answers are ours and already logged) against its declared
   * responses. A mismatch goes to `onMismatch` when given (production: log and answer anyway) or is thrown
   * (tests, development), which the error handler turns into a 500. Null when responses are not checked.
   */
  responseCheck(method: HttpMethod): ResponseCheck | null {
    if (!this.#prepareResponses) return null;
    const entry = this.#entry(method);
    const onMismatch = this.#onMismatch;
    return (req, status, body) => {
      // Not compiled yet (production compiles them after listening): unchecked rather than compiled here.
      const validator = this.#responseValidator;
      if (!validator || !entry.responseValidators) return;
      try {
        // A body that passes its status's schema check is what `_validate` accepts; anything else (a mismatch,
        // no body, a status it handles otherwise) goes to `_validate`, which decides and words the error.
        if (body !== undefined && body !== null) {
          let check = entry.schemaChecks.get(status);
          if (check === undefined) {
            check = schemaCheckOf(validator, entry.responseValidators, status);
            entry.schemaChecks.set(status, check);
          }
          if (check?.({ response: body })) return;
        }
        validator._validate({ validators: entry.responseValidators, body, statusCode: status, path: req.url ?? '', accepts: [JSON_CONTENT_TYPE] });
      } catch (error) {
        if (!onMismatch) throw error;
        onMismatch(error as Error, body, req);
      }
    };
  }

  /**
   * Compiles the request validators of every operation of this path, under the keys the library will look them
   * up by: before the server listens in tests and development, after it in production, and at the latest by the
   * path's first request. `requestValidation` steers every request to one of these (JSON body or none, HEAD as
   * GET), so no request compiles a validator the library would look up by another key.
   */
  warmRequests(): number {
    if (this.#requestsWarm) return 0;
    this.#requestsWarm = true;
    let compiled = 0;
    for (const entry of this.#operations.values()) {
      // A body is validated only where the contract has one; a body-less call can only reach an operation
      // whose body is optional (a required one is refused before the validator).
      const contentTypes = !entry.schema.requestBody ? [undefined]
        : entry.schema.requestBody.required ? [JSON_CONTENT_TYPE] : [undefined, JSON_CONTENT_TYPE];
      for (const contentType of contentTypes) {
        const key = requestValidatorKey(entry.method, entry.expressRoute, contentType);
        if (this.#requestValidator.middlewareCache[key]) continue;
        this.#requestValidator.middlewareCache[key] = this.#requestValidator.buildMiddleware(entry.expressRoute, entry.schema, contentTypeOf(contentType), key);
        compiled++;
      }
    }
    return compiled;
  }

  /** Compiles the response validators of every operation of this path. */
  warmResponses(): number {
    if (!this.#prepareResponses) return 0;
    if (!this.#responseValidator) {
      const { validator, doc } = this.#prepareResponses();
      for (const entry of this.#operations.values()) entry.responseSchema = doc.paths[this.#pathKey]?.[entry.method] as OpenApiOperation | undefined;
      this.#responseValidator = validator;
    }
    let compiled = 0;
    for (const entry of this.#operations.values()) {
      if (!entry.responseSchema?.responses || entry.responseValidators) continue;
      const responses = collapseSameAsDefault(entry.responseSchema.responses);
      entry.responseValidators = this.#responseValidator.buildValidators(responses, `${entry.method}-${entry.expressRoute}`);
      compiled += Object.keys(responses).length;
    }
    return compiled;
  }

  /** For tests: how many request validators are compiled. */
  get compiledRequestValidators(): number {
    return Object.keys(this.#requestValidator.middlewareCache).length;
  }

  /** For tests: how many operations have their response validators compiled. */
  get compiledResponseValidators(): number {
    return [...this.#operations.values()].filter((entry) => entry.responseValidators).length;
  }
}

const HAS_UNENCODED_SUB_DELIMS = /[!'()*]/;
const UNENCODED_SUB_DELIMS = /[!'()*]/g;

/** Percent-encodes the characters `encodeURIComponent` leaves alone in the query part of a URL. */
export function encodeSubDelimsInQuery(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return url;
  const query = url.slice(queryAt);
  if (!HAS_UNENCODED_SUB_DELIMS.test(query)) return url;
  return url.slice(0, queryAt) + query.replace(UNENCODED_SUB_DELIMS, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
