import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { ApiRequest } from '../request-state.js';
import type { ResponseCheck } from '../respond.js';
import { pruneSpec } from './prune.js';
import { basePath, HTTP_METHODS, toExpressPath, type HttpMethod, type OpenApiDocument, type OpenApiOperation } from './spec.js';

/*
 * express-openapi-validator (pinned at 5.6.2) is used through its validator classes rather than its
 * `middleware()` facade, for two measured reasons:
 * - the facade finds the route of every request by looping over every path of the spec and compiling a
 *   path-to-regexp each time (cost grows with the spec), while here Express has already matched the route
 *   with its precompiled regex and we hand the validator the operation directly;
 * - the facade compiles ajv validators on the first request of each route (seconds with a large spec),
 *   while here `warm()` builds every validator at start-up, before the server listens.
 * The classes are the same ones the facade wires together, so validation behaviour is unchanged.
 */
const require = createRequire(import.meta.url);

interface EovRequestValidator {
  middlewareCache: Record<string, unknown>;
  validate(req: ApiRequest, res: unknown, next: () => void): void;
  buildMiddleware(path: string, schema: OpenApiOperation, contentType: unknown, key: string): unknown;
}
interface EovResponseValidator {
  buildValidators(responses: unknown, cacheKey: string): unknown;
  _validate(input: { validators: unknown; body: unknown; statusCode: number; path: string; accepts: string[] }): void;
}
interface EovRoute {
  basePath: string;
  expressRoute: string;
  openApiRoute: string;
  method: string;
  pathParams: string[];
}
interface EovLoadedSpec {
  apiDoc: OpenApiDocument;
  routes: EovRoute[];
  serial: number;
}
interface EovOptions {
  ajvOpts: { preprocessor: unknown; request: unknown; response: unknown };
  options: { validateResponses: unknown };
}

const { OpenApiValidator } = require('express-openapi-validator/dist/openapi.validator.js') as {
  OpenApiValidator: new (options: Record<string, unknown>) => EovOptions;
};
const { SchemaPreprocessor } = require('express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js') as {
  SchemaPreprocessor: new (apiDoc: OpenApiDocument, ajvOptions: unknown, responseOptions: unknown) => {
    resolvedSchemaCache: Map<string, unknown>;
    preProcess(): { apiDoc: OpenApiDocument; apiDocRes: OpenApiDocument | null };
  };
};
const { RequestValidator, ResponseValidator } = require('express-openapi-validator/dist/middlewares/index.js') as {
  RequestValidator: new (apiDoc: OpenApiDocument, options: unknown) => EovRequestValidator;
  ResponseValidator: new (apiDoc: OpenApiDocument, options: unknown, eovOptions: unknown, serial: number) => EovResponseValidator;
};
const { ContentType } = require('express-openapi-validator/dist/middlewares/util.js') as {
  ContentType: { fromString(type: string | undefined): { normalize(): string | undefined } };
};

/** Response validators check that a request belongs to their spec by this number, as the library does. */
let nextSerial = 1_000_000;

/**
 * What the library's spec loader would produce for a mini-spec. The loader is not used because it compiles
 * the whole OpenAPI meta-schema into a fresh ajv on every call (tens of milliseconds per path) even with
 * spec validation off, and because our bundled spec needs none of its $ref bundling.
 */
function describeRoutes(apiDoc: OpenApiDocument): EovLoadedSpec {
  const base = basePath(apiDoc);
  const routes: EovRoute[] = [];
  for (const [specPath, item] of Object.entries(apiDoc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as OpenApiOperation | undefined;
      if (!operation) continue;
      routes.push({
        basePath: base,
        expressRoute: toExpressPath(base, specPath),
        openApiRoute: `${base}${specPath}`,
        method: method.toUpperCase(),
        pathParams: [...specPath.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
      });
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
  responseSchema: OpenApiOperation | undefined;
  /** Compiled response validators by status, built once at start-up (null when responses are not checked). */
  responseValidators: unknown;
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

/** Builds the response side of a path on first use: its preprocessed spec and its validator. */
type PrepareResponses = (() => { validator: EovResponseValidator; doc: OpenApiDocument }) | null;

/** The validators of one spec path (all its methods), built from a spec pruned to that path. */
export class PathValidator {
  readonly #operations = new Map<string, OperationEntry>();
  readonly #requestValidator: EovRequestValidator;
  #responseValidator: EovResponseValidator | null = null;
  readonly #prepareResponses: PrepareResponses;
  readonly #onMismatch: ResponseMismatchHandler | undefined;
  readonly #serial: number;
  readonly #pathKey: string;

  private constructor(loaded: EovLoadedSpec, eov: EovOptions, options: PathValidatorOptions, prepareResponses: PrepareResponses) {
    this.#serial = loaded.serial;
    this.#onMismatch = options.onMismatch;
    this.#prepareResponses = prepareResponses;
    this.#requestValidator = new RequestValidator(loaded.apiDoc, fastCompile(eov.ajvOpts.request));
    this.#pathKey = Object.keys(loaded.apiDoc.paths)[0]!;
    for (const route of loaded.routes) {
      const method = route.method.toLowerCase() as HttpMethod;
      const schema = loaded.apiDoc.paths[this.#pathKey]![method] as OpenApiOperation;
      this.#operations.set(method, {
        method, expressRoute: route.expressRoute, openApiRoute: route.openApiRoute, schema, responseSchema: undefined, responseValidators: null,
      });
    }
  }

  /**
   * Builds the validators of one path of `spec`. Requests and responses get separate pruned copies, so
   * each ajv instance holds only the schemas its side can reach. The response side is only prepared when
   * its validators are first compiled (`warmResponses`), which production does after listening.
   */
  static async create(spec: OpenApiDocument, specPath: string, options: PathValidatorOptions): Promise<PathValidator> {
    const eov = new OpenApiValidator({
      apiSpec: spec,
      validateApiSpec: false,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
      validateResponses: options.validateResponses ? { removeAdditional: false, coerceTypes: false, onError: null } : false,
      // Authentication is our own middleware; uploads are not part of this API.
      validateSecurity: false,
      fileUploader: false,
    });
    const requestSide = describeRoutes(inlineOperationRefs(pruneSpec(spec, specPath, { responses: false })));
    preprocess(requestSide.apiDoc, eov.ajvOpts.preprocessor, false);
    const prepareResponses = options.validateResponses
      ? () => {
          const doc = preprocess(inlineOperationRefs(pruneSpec(spec, specPath)), eov.ajvOpts.preprocessor, eov.options.validateResponses)!;
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
   * contract; on success `req.query` holds coerced values and defaults.
   */
  requestValidation(method: HttpMethod): (req: ApiRequest) => void {
    const entry = this.#entry(method);
    const validator = this.#requestValidator;
    const serial = this.#serial;
    const hasBody = entry.schema.requestBody !== undefined;
    return (req) => {
      (req as ApiRequest & { openapi: unknown }).openapi = {
        expressRoute: entry.expressRoute,
        openApiRoute: entry.openApiRoute,
        pathParams: req.params,
        schema: entry.schema,
        serial,
      };
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
        validator._validate({ validators: entry.responseValidators, body, statusCode: status, path: req.url ?? '', accepts: [JSON_CONTENT_TYPE] });
      } catch (error) {
        if (!onMismatch) throw error;
        onMismatch(error as Error, body, req);
      }
    };
  }

  /**
   * The request validator cache key the library will use for this request: `<METHOD>-<route>-<type>`.
   * Requests are steered to one key per operation (see `requestMiddleware`), so one compiled validator
   * per operation covers every request.
   */
  #requestKey(entry: OperationEntry, contentType: string | undefined): string {
    return `${entry.method.toUpperCase()}-${entry.expressRoute}-${contentType ?? 'not_provided'}`;
  }

  /** Compiles the request validators of every operation of this path (done before the server listens). */
  warmRequests(): number {
    let compiled = 0;
    for (const entry of this.#operations.values()) {
      // A body is validated only where the contract has one; a body-less call can only reach an operation
      // whose body is optional (a required one is refused before the validator).
      const contentTypes = !entry.schema.requestBody ? [undefined]
        : entry.schema.requestBody.required ? [JSON_CONTENT_TYPE] : [undefined, JSON_CONTENT_TYPE];
      for (const contentType of contentTypes) {
        const key = this.#requestKey(entry, contentType);
        if (this.#requestValidator.middlewareCache[key]) continue;
        this.#requestValidator.middlewareCache[key] = this.#requestValidator.buildMiddleware(entry.expressRoute, entry.schema, ContentType.fromString(contentType), key);
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
