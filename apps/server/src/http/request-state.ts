import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { hashToken } from '../ids.js';
import type { ResponseCheck } from './respond.js';

/** What the server knows about one request while serving it. */
export interface RequestState {
  requestId: string;
  /** The operationId of the request's route, once it is looked up (`/metrics` counts requests by it). */
  operationId?: string;
  /** Set once the operation is known and its answers are checked against the contract. */
  checkResponse?: ResponseCheck | undefined;
  /** The SHA-256 of the bearer token (null without a well-formed one), computed once per request. */
  tokenHash?: string | null;
}

const STATE = Symbol('quire.requestState');
const INCOMING_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

type WithState = IncomingMessage & { [STATE]?: RequestState };

/** The answer's header that echoes the request id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Gives the request an id (the caller's `X-Request-Id` when it is sane, a new one otherwise), echoes it in
 * the answer (unless `setIdHeader` is false: the caller then writes it first itself), and logs one line when
 * the answer is finished.
 */
export function beginRequest(req: IncomingMessage, res: ServerResponse, logger: Logger, setIdHeader = true): RequestState {
  const incoming = req.headers['x-request-id'];
  const state: RequestState = { requestId: typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : randomUUID() };
  (req as WithState)[STATE] = state;
  if (setIdHeader) res.setHeader(REQUEST_ID_HEADER, state.requestId);
  if (logger.isLevelEnabled('info')) {
    const started = process.hrtime.bigint();
    const accessLog = accessLogger(logger);
    res.once('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      accessLog.info({ reqId: state.requestId, method: req.method, url: urlForLog(req.url), status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
  }
  return state;
}

const accessLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger of the one line per request: the server's, without its redaction rules. Its fields are fixed
 * and hold no secret (the URL goes through `urlForLog`), and redaction was a third of the line's cost
 * (5.0 vs 3.5 us per line measured with pino 10, written to /dev/null).
 */
function accessLogger(logger: Logger): Logger {
  let child = accessLoggers.get(logger);
  if (!child) {
    child = logger.child({}, { redact: [] });
    accessLoggers.set(logger, child);
  }
  return child;
}

/**
 * Query parameters that carry secrets: share-link keys, download signatures, visitor JWTs and tokens never
 * reach the logs, also inside a percent-encoded address given as a parameter (`/urls/published?url=...`),
 * where the separators are `%3F`, `%26` and `%3D` (the rest of that address is then redacted with it).
 */
const SECRET_PARAMS = /((?:[?&]|%3F|%26)(?:shareKey|sig|token|visitorAuthToken|jwt_token|apiToken)(?:=|%3D))(?:(?!&|#)[^])*/gi;

/**
 * Path segments that are secrets: an invitation's, in the address that joins with it
 * (`/v1/orgs/{organizationId}/invites/{inviteSecret}`) and in its join address (`/join/{secret}`).
 */
const SECRET_SEGMENTS = /(\/orgs\/[^/?#]+\/invites\/|^\/join\/)[^/?#]+/gi;

export function urlForLog(url: string | undefined): string {
  return (url ?? '').replace(SECRET_SEGMENTS, '$1[redacted]').replace(SECRET_PARAMS, '$1[redacted]');
}

export function requestState(req: IncomingMessage): RequestState {
  const state = (req as WithState)[STATE];
  if (!state) throw new Error('request state missing: beginRequest() was not called');
  return state;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)[ ]*$/i;

/**
 * The hash of the request's `Authorization: Bearer <token>`, or undefined without a well-formed one. Both
 * the rate limiter (its key) and authentication (its lookup) need it; it is computed once per request.
 */
export function bearerTokenHash(req: IncomingMessage): string | undefined {
  const state = maybeRequestState(req);
  if (state?.tokenHash !== undefined) return state.tokenHash ?? undefined;
  const authorization = req.headers.authorization;
  const match = authorization ? BEARER.exec(authorization) : null;
  const hash = match ? hashToken(match[1]!) : null;
  if (state) state.tokenHash = hash;
  return hash ?? undefined;
}

/** The request's bearer token itself, or undefined without a well-formed one (visitor tokens are verified, not looked up). */
export function bearerToken(req: IncomingMessage): string | undefined {
  const authorization = req.headers.authorization;
  const match = authorization ? BEARER.exec(authorization) : null;
  return match ? match[1]! : undefined;
}

export function maybeRequestState(req: IncomingMessage): RequestState | undefined {
  return (req as WithState)[STATE];
}

/**
 * The request as the validators and handlers see it: the raw node request plus what Express would have
 * added (the validator library reads these fields).
 */
export interface ApiRequest extends IncomingMessage {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
  originalUrl: string;
  path: string;
}
