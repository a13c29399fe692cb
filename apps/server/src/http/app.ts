import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import express, { type Express } from 'express';
import type { ResponseValidation } from '../config.js';
import { checkReadiness } from '../db/index.js';
import type { Logger } from '../logger.js';
import { authenticate } from '../services/auth-service.js';
import { authenticateSession } from '../services/browser-session-service.js';
import { isVisitor, type Caller, type Principal } from '../services/caller.js';
import { authenticateVisitor, isVisitorToken } from '../services/visitor-token-service.js';
import { assertWithinSessionScope } from '../services/session-scope.js';
import type { ServiceContext } from '../services/context.js';
import { answerError, errorHandler } from './error-handler.js';
import { BadRequestError, MethodNotAllowedError, NotFoundError, NotImplementedError, UnauthorizedError } from '../errors.js';
import { lazyHandlers } from './handlers/index.js';
import { jsonBodyReader } from './middleware/body.js';
import { refuseNulCharacters } from './middleware/nul.js';
import { createRateLimiter } from './middleware/rate-limit.js';
import { PathValidator, type PathValidatorOptions } from './openapi/route-validator.js';
import { basePath, listOperations, loadBundledContract, routeOptions, type OpenApiDocument, type OperationInfo } from './openapi/contract.js';
import type { PresentContext } from './presenters/context.js';
import type { AnyHandler, Handlers } from './registry.js';
import { bearerToken, bearerTokenHash, beginRequest, maybeRequestState, REQUEST_ID_HEADER, requestState, urlForLog, type ApiRequest } from './request-state.js';
import { sendEmpty, sendJson, type ResponseCheck } from './respond.js';
import { PathRouter } from './router.js';
import { downloadRouter, type DownloadRouteOptions } from './download-route.js';
import { lazyRouter, type LazyRouter } from './lazy-router.js';
import { webAppRouter, type WebAppOptions } from './web-app-route.js';
import { assertCsrfDefence, UNSAFE_METHODS } from './csrf.js';
import { metricsRequestListener } from './metrics-route.js';
import type { Metrics } from '../metrics/metrics.js';
import { readSessionCookie } from './session-cookie.js';
import { warmUpTurn } from './warm-up-turn.js';

export interface AppOptions {
  services: ServiceContext;
  logger: Logger;
  publicUrl: string;
  bodyLimitBytes: number;
  responseValidation: ResponseValidation;
  /** The contract; the bundled contract of `@quire/api-types` by default. Tests pass small ones. */
  contract?: OpenApiDocument;
  /** The handlers; every group of `handlers/index.ts` by default. */
  handlers?: Handlers;
  /** Answers /readyz with 503 once shutdown has begun, so a load balancer stops sending requests. */
  isShuttingDown?: () => boolean;
  /** The PostgreSQL schema of the tables, when DATABASE_URL names one: where /readyz finds the migrations run. */
  databaseSchema?: string;
  /** API requests allowed per caller and minute (0: no limit). */
  rateLimitPerMinute?: number;
  /** Serves signed `/downloads/...` URLs (file bytes, PDFs) when given; see download-route.ts. */
  downloads?: DownloadRouteOptions;
  /** The reader (`@quire/reader`): published sites at `/sites/...` and on their own hostnames. */
  reader?: MountedReader;
  /** The app (`apps/web`) at `/` and the API reference at `/docs`, from their builds; see web-app-route.ts. */
  web?: WebAppOptions;
  /** The secret the in-process reader sends with its visitors' addresses (see middleware/rate-limit.ts). */
  readerForwardingKey?: string;
  /** Counts API requests by operationId and status (and serves them at `/metrics` with `metricsToken`). */
  metrics?: Metrics;
  /** QUIRE_METRICS_TOKEN: `/metrics` is served on this port to requests bearing it; not served here without it. */
  metricsToken?: string;
}

/**
 * What the app needs of the reader: its request listener and which paths are its own on every host. Given
 * `firstHeaders` (the request id, not set on `res`), it writes them first on its answer.
 */
export interface MountedReader {
  (req: IncomingMessage, res: ServerResponse, firstHeaders?: string[]): void;
  isReaderPath(pathname: string): boolean;
}

/** Host names that are this API's own (its public URL's, and loopback ones): any other Host is a site's hostname. */
function ownHostnames(publicUrl: string): Set<string> {
  return new Set([new URL(publicUrl).hostname, 'localhost', '127.0.0.1', '[::1]', '::1']);
}

function hostnameOf(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

export interface QuireApp {
  /** The request listener to give to `http.createServer`. */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Serves everything outside the API base path (health checks, downloads); the API does not go through it. */
  express: Express;
  operations: OperationInfo[];
  implemented: ReadonlySet<string>;
  validators: ReadonlyMap<string, PathValidator>;
  /** How many validators were compiled before createApp returned. */
  compiledValidators: number;
  /** Compiles the request validators not compiled yet, one path per `warmUpTurn`. */
  warmRequests(): Promise<number>;
  /** Compiles the response validators not compiled yet, one path per `warmUpTurn`. */
  warmResponses(): Promise<number>;
  /** Loads the handler groups not loaded yet (the default handlers load theirs on first use), one per turn. */
  warmHandlers(): Promise<number>;
  /** Builds the routes outside the API that are built on first use (lazy-router.ts), one per turn. */
  warmRoutes(): Promise<number>;
  /** Waits for the next step of background work to be due: requests in flight come first (warm-up-turn.ts). */
  warmUpTurn(): Promise<void>;
  /**
   * Resolves once no API operation is running. A client that gives up closes its connection while its
   * operation still runs; a graceful stop waits for this too, not only for connections, so that the database
   * is never closed under an operation in flight.
   */
  whenIdle(): Promise<void>;
}

/** One operation, ready to serve: its validation, its handler, and what it needs. */
interface Route {
  operation: OperationInfo;
  validateRequest: (req: ApiRequest) => void;
  checkResponse: ResponseCheck | null;
  handler: AnyHandler | undefined;
  readBody: ReturnType<typeof jsonBodyReader>;
}

/**
 * How long a step of the warm-up waits for the requests in flight before it runs anyway (warm-up-turn.ts):
 * longer than a request usually takes, short enough for the warm-up to end under steady traffic.
 */
const WARM_UP_YIELD_MS = 50;

/**
 * Validators depend only on the contract and the validation mode, so processes that build several apps from
 * one contract (test files start a server per dialect) compile them once. Apps that log mismatches hold their
 * own logger in their validators and are not shared.
 */
const validatorCache = new WeakMap<OpenApiDocument, Map<string, Map<string, PathValidator>>>();

async function pathValidators(contract: OpenApiDocument, contractPaths: string[], options: PathValidatorOptions): Promise<Map<string, PathValidator>> {
  const shareable = !options.onMismatch;
  const mode = options.validateResponses ? 'responses' : 'requests';
  let shared: Map<string, PathValidator> | undefined;
  if (shareable) {
    const byMode = validatorCache.get(contract) ?? new Map<string, Map<string, PathValidator>>();
    validatorCache.set(contract, byMode);
    shared = byMode.get(mode) ?? new Map<string, PathValidator>();
    byMode.set(mode, shared);
  }
  const validators = new Map<string, PathValidator>();
  for (const contractPath of contractPaths) {
    let validator = shared?.get(contractPath);
    if (!validator) {
      validator = await PathValidator.create(contract, contractPath, options);
      shared?.set(contractPath, validator);
    }
    validators.set(contractPath, validator);
  }
  return validators;
}

/**
 * Builds the request listener. Request flow of an API call: request id -> route lookup -> JSON body ->
 * request validation -> response check armed -> authentication (bearer token, or the session cookie with
 * its CSRF defence on unsafe methods) -> handler -> JSON answer; any error
 * goes to one error handler that answers `{"error":{"code","message"}}`.
 *
 * API requests are dispatched here rather than through Express, for a measured reason: on this 2-core
 * machine, with everything else equal, `GET /v1/spaces/{spaceId}` served 6,487 requests/s dispatched here and
 * 3,572 through Express as its only middleware (a bare node:http server: 45,109 and 38,536 in the same runs);
 * Express's per-request set-up (prototype swaps, router) costs more than the whole rest of a read. The lookup
 * walks a tree of path segments, so its cost does not grow with the number of operations, and each path's
 * validator is built from a contract pruned to that path and compiled before this function returns. Express
 * serves everything outside the API (health checks, signed downloads).
 */
export async function createApp(options: AppOptions): Promise<QuireApp> {
  const contract = options.contract ?? loadBundledContract();
  const operations = listOperations(contract);
  const base = basePath(contract);
  const present: PresentContext = { publicUrl: options.publicUrl };
  const lazy = options.handlers ? undefined : lazyHandlers({ services: options.services, present });
  const handlers = (options.handlers ?? lazy!.handlers) as Record<string, AnyHandler | undefined>;
  const logger = options.logger;

  let operationsInFlight = 0;
  const idleWaiters: Array<() => void> = [];
  const whenIdle = (): Promise<void> => (operationsInFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));
  const turn = () => warmUpTurn(() => operationsInFlight > 0, whenIdle, WARM_UP_YIELD_MS);

  const known = new Set(operations.map((operation) => operation.operationId));
  for (const operationId of Object.keys(handlers)) {
    if (!known.has(operationId)) throw new Error(`handler ${operationId} matches no operation of the contract`);
  }

  const validateResponses = options.responseValidation !== 'off';
  const onMismatch = options.responseValidation === 'log'
    ? (error: Error, _body: unknown, req: IncomingMessage) => {
        logger.error({ err: error, method: req.method, url: urlForLog(req.url) }, 'response does not match the API contract');
      }
    : undefined;

  // Operations without a handler answer 501 whatever their input, so only paths with at least one handler get
  // validators: building and compiling the others would only slow the start (a third of the contract is not
  // implemented yet).
  const contractPaths = [...new Set(operations.filter((operation) => handlers[operation.operationId]).map((operation) => operation.contractPath))];
  const validatorOptions: PathValidatorOptions = { validateResponses, ...(onMismatch ? { onMismatch } : {}) };
  // Validators are built and their request side compiled before listening when a response mismatch fails the
  // request (tests, development, where everything must be in place from the first request). In production
  // they are built after listening (`warmRequests`, which server.ts runs in the background), since building
  // and compiling all of them was more than half the time to the first answer; a request that arrives first
  // builds and compiles its own path's (a few milliseconds, once), so every request is validated all the same.
  const eager = options.responseValidation === 'fail';
  const validators = eager ? await pathValidators(contract, contractPaths, validatorOptions) : new Map<string, PathValidator>();
  const validatorOf = (contractPath: string): PathValidator => {
    let validator = validators.get(contractPath);
    if (!validator) {
      validator = PathValidator.build(contract, contractPath, validatorOptions);
      validators.set(contractPath, validator);
    }
    return validator;
  };
  let compiledValidators = 0;
  /** Compiles one side of every path's validator, a path per turn of the warm-up. */
  const warmEachPath = async (warm: (validator: PathValidator) => number): Promise<number> => {
    let compiled = 0;
    for (const contractPath of contractPaths) {
      await turn();
      compiled += warm(validatorOf(contractPath));
    }
    return compiled;
  };
  const warmRequests = () => warmEachPath((validator) => validator.warmRequests());
  if (eager) {
    for (const validator of validators.values()) compiledValidators += validator.warmRequests();
    // Tests and development have every handler group loaded before listening too (a group that does not
    // match its list in handlers/index.ts fails the start there).
    await lazy?.warm(() => Promise.resolve());
  }
  // Response validators are compiled before listening when a mismatch fails the request (tests,
  // development); when it is only logged (production) they compile in the background after the server
  // listens, between requests, so start-up stays fast. Until then answers go unchecked: never is a
  // response validator compiled on a request.
  const warmResponses = () => warmEachPath((validator) => validator.warmResponses());
  if (options.responseValidation === 'fail') {
    for (const validator of validators.values()) compiledValidators += validator.warmResponses();
  }

  // One reader per operation: its body limit (`x-quire-body-limit` may raise the default, e.g. publishing an
  // integration's script) and the media types its contract declares for the body.
  const bodyReaderOf = (operation: OperationInfo) => {
    const limit = operation.definition['x-quire-body-limit'];
    const declared = Object.keys(operation.definition.requestBody?.content ?? {});
    return jsonBodyReader(typeof limit === 'number' && limit > options.bodyLimitBytes ? limit : options.bodyLimitBytes, declared.length ? declared : undefined);
  };
  const router = new PathRouter<Route>();
  const validatedPaths = new Set(contractPaths);
  // Production's routes reach their path's validator on first use (built then, if the warm-up has not yet).
  const lazyRequestValidation = (contractPath: string, method: OperationInfo['method']): Route['validateRequest'] => {
    let validate: Route['validateRequest'] | undefined;
    return (req) => (validate ??= validatorOf(contractPath).requestValidation(method))(req);
  };
  const lazyResponseCheck = (contractPath: string, method: OperationInfo['method']): ResponseCheck => {
    let check: ResponseCheck | null | undefined;
    return (req, status, body) => {
      check ??= validatorOf(contractPath).responseCheck(method);
      check?.(req, status, body);
    };
  };
  for (const operation of operations) {
    const validated = validatedPaths.has(operation.contractPath);
    const validator = validators.get(operation.contractPath);
    router.add(operation.method.toUpperCase(), base + operation.contractPath, {
      operation,
      validateRequest: validator ? validator.requestValidation(operation.method)
        : validated ? lazyRequestValidation(operation.contractPath, operation.method) : () => {},
      checkResponse: validator ? validator.responseCheck(operation.method)
        : validated && validateResponses ? lazyResponseCheck(operation.contractPath, operation.method) : null,
      handler: handlers[operation.operationId],
      readBody: bodyReaderOf(operation),
    }, routeOptions(operation));
  }

  const rateLimiter = createRateLimiter({
    requestsPerWindow: options.rateLimitPerMinute ?? 0,
    windowSeconds: 60,
    ...(options.readerForwardingKey ? { trustedForwarderKey: options.readerForwardingKey } : {}),
    ...(options.services.limiters ? { store: options.services.limiters } : {}),
  });

  async function authenticateRequest(req: ApiRequest, operationId: string, sessionSecret: string | undefined): Promise<Principal> {
    // A browser session (the cookie; never together with a bearer token, and its CSRF defence passed: both
    // checked before the body is read).
    if (sessionSecret !== undefined) return (await authenticateSession(options.services, sessionSecret)).caller;
    try {
      // Visitor tokens of published sites (getPublishedContentByUrl) are signed, not stored: no lookup by hash.
      const token = bearerToken(req);
      if (token !== undefined && isVisitorToken(token)) return await authenticateVisitor(options.services, token, operationId);
      return await authenticate(options.services, bearerTokenHash(req));
    } catch (error) {
      if (error instanceof UnauthorizedError) await rateLimiter?.recordRefusedToken(req);
      throw error;
    }
  }

  async function serveApi(req: ApiRequest, res: ServerResponse, pathname: string, search: string): Promise<void> {
    const state = requestState(req);
    if (rateLimiter) await rateLimiter.admit(req, res);
    const found = router.lookup(req.method ?? 'GET', pathname);
    if (found.kind === 'not-found') throw new NotFoundError(`No route matches ${req.method} ${pathname}`);
    if (found.kind === 'bad-path') throw new BadRequestError('The path is not valid percent-encoded text');
    if (found.kind === 'method-not-allowed') throw new MethodNotAllowedError(req.method ?? '', found.allow);
    const { route, params } = found.match;
    const { operation } = route;
    state.operationId = operation.operationId;
    const sessionSecret = readSessionCookie(req);
    // Two identities in one request would leave it to the server to pick one, and a bearer token would lift
    // the cookie's CSRF defence: such a request is refused, whatever the operation.
    if (sessionSecret !== undefined && req.headers.authorization !== undefined) {
      throw new BadRequestError('Send either a bearer token or the session cookie, not both');
    }
    // The CSRF defence of unsafe methods made with the cookie comes first: a cross-site request (a form post
    // included) is refused before its body is read or its session looked up.
    if (sessionSecret !== undefined && (operation.requiresAuth || operation.acceptsAuth) && UNSAFE_METHODS.has(req.method ?? 'GET')) {
      assertCsrfDefence(req, options.publicUrl, sessionSecret);
    }

    await route.readBody(req, res);
    if (operation.requestBodyRequired && req.body === undefined) {
      throw new BadRequestError('body is required: send a JSON body with Content-Type: application/json');
    }
    req.params = params;
    req.query = search ? { ...parseQueryString(search) } : {};
    refuseNulCharacters({ path: params, query: req.query as Record<string, unknown>, body: req.body });
    route.validateRequest(req);
    state.checkResponse = route.checkResponse ?? undefined;
    // Where a token is optional (getPublishedContentByUrl), one that is sent is checked all the same: a bad
    // token is a 401, never silently read as anonymous.
    const authenticates = operation.requiresAuth || (operation.acceptsAuth && (req.headers.authorization !== undefined || sessionSecret !== undefined));
    const principal = authenticates ? await authenticateRequest(req, operation.operationId, sessionSecret) : undefined;
    // A bearer token sent to an operation that takes none (signIn, listSignInProviders...) is checked all the
    // same, so that a bad one is a 401 everywhere, never ignored; a good one is not used. The cookie is not: a
    // browser sends it unasked, and a stale one must not keep its owner from signing in again.
    if (!authenticates && req.headers.authorization !== undefined) await authenticateRequest(req, operation.operationId, undefined);
    const caller: Caller | undefined = principal && !isVisitor(principal) ? principal : undefined;
    if (caller?.organizationId !== undefined) await assertWithinSessionScope(options.services, caller, req.params, req.body);

    if (!route.handler) throw new NotImplementedError(operation.operationId);
    const result = await route.handler({
      params: req.params as never,
      query: req.query as never,
      body: req.body as never,
      get caller() {
        if (!caller) throw new Error(`${operation.operationId} has no authenticated caller`);
        return caller;
      },
      signedInCaller: caller,
      get principal() {
        if (!principal) throw new Error(`${operation.operationId} has no authenticated caller`);
        return principal;
      },
      req,
      res,
    });
    if (result.headers) for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    if (result.body === undefined) sendEmpty(req, res, result.status);
    else sendJson(req, res, result.status, result.body);
  }

  const apiPrefix = `${base}/`;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/healthz', (req, res) => {
    sendJson(req, res, 200, { status: 'ok' });
  });
  // Whether a load balancer may send this process traffic: not shutting down, the database answering and
  // migrated to this build's schema. A 503 carries the error shape and the same checks as a 200.
  app.get('/readyz', async (req, res) => {
    const unavailable = (message: string, checks: object) => {
      res.setHeader('Cache-Control', 'no-store');
      sendJson(req, res, 503, { status: 'unavailable', ...checks, error: { code: 503, message } });
    };
    if (options.isShuttingDown?.()) {
      unavailable('Shutting down', {});
      return;
    }
    let readiness;
    try {
      readiness = await checkReadiness(options.services.db, options.databaseSchema);
    } catch (error) {
      logger.warn({ err: error }, 'readiness check failed');
      unavailable('The readiness check failed', { database: 'unreachable', migrations: 'unknown' });
      return;
    }
    const { ready, pending, ...checks } = readiness;
    if (!ready) {
      if (checks.database === 'unreachable') logger.warn('readyz: the database is not reachable');
      unavailable(checks.database === 'unreachable' ? 'The database is not reachable' : `Migrations are pending: ${pending?.join(', ')}`, checks);
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    sendJson(req, res, 200, { status: 'ok', ...checks });
  });
  const metrics = options.metrics;
  if (metrics && options.metricsToken !== undefined) {
    const serveMetrics = metricsRequestListener({
      source: async () => ({ contentType: metrics.contentType, text: await metrics.text() }),
      token: options.metricsToken,
      logger,
    });
    app.all('/metrics', (req, res) => serveMetrics(req, res));
  }
  if (options.downloads) app.use(downloadRouter(options.downloads));
  // Routes no API request goes through, built by their first request or the warm-up (lazy-router.ts).
  const lazyRouters: LazyRouter[] = [
    ...(options.downloads ? [lazyRouter(async () => (await import('./integration-assets-route.js')).integrationAssetsRouter(options.services))] : []),
    lazyRouter(async () => (await import('./openapi-raw-route.js')).openApiRawRouter(options.services)),
    lazyRouter(async () => (await import('./sso-routes.js')).ssoRouter(options.services, present)),
    lazyRouter(async () => (await import('./oidc-routes.js')).oidcRouter(options.services, present)),
  ];
  for (const router of lazyRouters) app.use(router);
  // Tests and development have them built before listening, as the validators.
  if (eager) for (const router of lazyRouters) await router.warm();
  const reader = options.reader;
  if (reader) {
    // A request for another host that no route above answered is for a site with that hostname.
    const own = ownHostnames(options.publicUrl);
    app.use((req, res, next) => {
      const hostname = hostnameOf(req);
      if (hostname && !own.has(hostname)) reader(req, res);
      else next();
    });
  }
  if (options.web) app.use(webAppRouter(options.web));
  app.use((req) => {
    throw new NotFoundError(`No route matches ${req.method} ${req.path}`);
  });
  app.use(errorHandler(logger));

  // Requests refused before their route was looked up (rate limit) are named by a lookup when answered.
  const operationIdOf = (req: IncomingMessage, pathname: string): string => {
    const known = maybeRequestState(req)?.operationId;
    if (known !== undefined) return known;
    const found = router.lookup(req.method ?? 'GET', pathname);
    return found.kind === 'found' ? found.match.route.operation.operationId : 'unmatched';
  };
  const observeApiRequest = (metrics: Metrics, req: IncomingMessage, res: ServerResponse, pathname: string): void => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      metrics.observeRequest(operationIdOf(req, pathname), res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
  };

  const tracked = (work: Promise<void>): void => {
    operationsInFlight++;
    void work.finally(() => {
      if (--operationsInFlight === 0) for (const wake of idleWaiters.splice(0)) wake();
    });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    if (pathname.startsWith(apiPrefix)) {
      beginRequest(req, res, logger);
      if (metrics) observeApiRequest(metrics, req, res, pathname);
      const apiRequest = req as ApiRequest;
      apiRequest.originalUrl = url;
      apiRequest.path = pathname;
      tracked(serveApi(apiRequest, res, pathname, queryAt === -1 ? '' : url.slice(queryAt + 1)).catch((error: unknown) => answerError(error, req, res, logger)));
      return;
    }
    // Site pages skip Express like the API does: they are the other hot path. The reader is given the request id
    // to write rather than finding it set: a cached page's answer is then one `writeHead` of a prebuilt list,
    // where a header set before makes Node merge and check the page's headers one `setHeader` at a time.
    if (reader?.isReaderPath(pathname)) {
      reader(req, res, [REQUEST_ID_HEADER, beginRequest(req, res, logger, false).requestId]);
      return;
    }
    beginRequest(req, res, logger);
    app(req, res);
  };

  return {
    handle,
    express: app,
    operations,
    implemented: new Set(operations.filter((operation) => handlers[operation.operationId]).map((operation) => operation.operationId)),
    validators,
    compiledValidators,
    warmRequests,
    warmResponses,
    warmHandlers: () => (lazy ? lazy.warm(turn) : Promise.resolve(0)),
    warmRoutes: async () => {
      for (const router of lazyRouters) {
        await turn();
        await router.warm();
      }
      return lazyRouters.length;
    },
    warmUpTurn: turn,
    whenIdle,
  };
}
