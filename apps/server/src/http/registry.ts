import type { IncomingMessage, ServerResponse } from 'node:http';
import type { operations } from '@quire/api-types';
import type { Caller, Principal } from '../services/caller.js';

/**
 * Handlers are keyed by `operationId` and typed from the generated `operations`, so a handler that reads a
 * parameter the contract lacks, or answers a body of the wrong shape or a status the contract does not
 * declare, does not compile. An operation without a handler answers 501.
 */
export type OperationId = keyof operations;

type Op<K extends OperationId> = operations[K];

type ParametersOf<K extends OperationId> = Op<K> extends { parameters: infer P } ? P : never;
type Part<P, Name extends string> = P extends { [N in Name]?: infer V } ? ([V] extends [never] ? Record<string, never> : NonNullable<V>) : Record<string, never>;

export type PathParams<K extends OperationId> = Part<ParametersOf<K>, 'path'>;
export type QueryParams<K extends OperationId> = Part<ParametersOf<K>, 'query'>;

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type RequestBody<K extends OperationId> = Op<K> extends { requestBody?: infer R }
  ? [NonNullable<R>] extends [never] ? undefined : JsonContent<NonNullable<R>>
  : undefined;

type Responses<K extends OperationId> = Op<K> extends { responses: infer R } ? R : never;
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 203 | 204 | 205 | 206>;
type BodyOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;

/** What a handler returns: one of the success statuses the contract declares, with its body. */
export type HandlerResult<K extends OperationId> = {
  [S in SuccessStatus<K>]: BodyOf<Responses<K>[S]> extends undefined
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: BodyOf<Responses<K>[S]>; headers?: Record<string, string> };
}[SuccessStatus<K>];

export interface HandlerContext<K extends OperationId> {
  /** Path parameters, already checked against the contract. */
  params: PathParams<K>;
  /** Query parameters, checked, coerced to their types and with their defaults applied. */
  query: QueryParams<K>;
  /** The parsed, checked JSON body. */
  body: RequestBody<K>;
  /** The authenticated caller (operations with `security: []` have none and must not read it). */
  caller: Caller;
  /** The caller where the token is optional (`security: [{bearerAuth: []}, {}]`): undefined when none was sent. */
  signedInCaller: Caller | undefined;
  /**
   * The caller, or a visitor of a published site (a visitor token): only the reads visitor-policy.ts allows
   * ever see a visitor, and they take this instead of `caller`.
   */
  principal: Principal;
  /** The raw request, for the rare handler that needs a header; prefer params, query and body. */
  req: IncomingMessage;
  /** The raw response, for the rare handler that sets a header; answer by returning a result. */
  res: ServerResponse;
}

export type Handler<K extends OperationId> = (context: HandlerContext<K>) => Promise<HandlerResult<K>>;

export type Handlers = { [K in OperationId]?: Handler<K> };

/** Loosely typed view used by the dispatcher, which serves every operation alike. */
export type AnyHandler = (context: HandlerContext<any>) => Promise<{ status: number; body?: unknown; headers?: Record<string, string> }>;

/** Merges handler groups (one per resource file), refusing two handlers for one operation. */
export function mergeHandlers(...groups: Handlers[]): Handlers {
  const merged: Record<string, unknown> = {};
  for (const group of groups) {
    for (const [operationId, handler] of Object.entries(group)) {
      if (merged[operationId]) throw new Error(`two handlers for ${operationId}`);
      merged[operationId] = handler;
    }
  }
  return merged as Handlers;
}
