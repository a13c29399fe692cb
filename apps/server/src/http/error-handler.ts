import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { isForeignKeyViolation, isUniqueViolation } from '../db/dialect.js';
import type { Logger } from '../logger.js';
import { ApiError } from './errors.js';
import { maybeRequestState } from './request-state.js';
import { sendJson } from './respond.js';

const require = createRequire(import.meta.url);
const { HttpError: ValidatorHttpError } = require('express-openapi-validator/dist/framework/types.js') as {
  HttpError: new (...args: never[]) => Error & { status: number; errors?: Array<{ path?: string; message?: string; errorCode?: string }> };
};

export interface ErrorAnswer {
  status: number;
  message: string;
  headers: Record<string, string>;
  /** Whether this is our fault (logged as an error with its stack) rather than the caller's. */
  unexpected: boolean;
}

/** `/body/title` -> `body.title`, `/params/spaceId` -> `path.spaceId`, `/query/limit` -> `query.limit`. */
export function fieldName(path: string | undefined): string {
  const parts = (path ?? '').replace(/^[./]+/, '').split(/[./]/).filter(Boolean);
  if (parts[0] === 'params') parts[0] = 'path';
  else if (parts[0] === 'headers') parts[0] = 'header';
  return parts.join('.') || 'request';
}

/** Turns the validator's error list into one sentence naming each field, e.g. `query.limit must be <= 1000`. */
export function validationMessage(errors: Array<{ path?: string; message?: string; errorCode?: string }>): string {
  const sentences = errors.map((error) => {
    const field = fieldName(error.path);
    const message = error.message ?? 'is invalid';
    if (error.errorCode === 'required.openapi.validation') return `${field} is required`;
    if (error.errorCode === 'additionalProperties.openapi.validation' || error.errorCode === 'unevaluatedProperties.openapi.validation') {
      return `${field} is not allowed`;
    }
    if (/^Unknown query parameter/.test(message)) return `${field} is not a parameter of this operation`;
    return `${field} ${message}`;
  });
  return [...new Set(sentences)].join('; ');
}

/** Body-parser errors carry a `type`; they are the caller's fault and have fixed answers. */
function bodyParserAnswer(error: { type?: unknown; limit?: unknown }): ErrorAnswer | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return { status: 413, message: `The request body is larger than the limit of ${String(error.limit)} bytes`, headers: {}, unexpected: false };
    case 'entity.parse.failed':
      return { status: 400, message: 'The request body is not valid JSON', headers: {}, unexpected: false };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, message: 'The request body must be JSON encoded as UTF-8', headers: {}, unexpected: false };
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return { status: 400, message: 'The request body could not be read', headers: {}, unexpected: false };
    default:
      return undefined;
  }
}

/** Maps anything thrown to the status and message a client sees, by class (never by message text). */
export function classifyError(error: unknown): ErrorAnswer {
  if (error instanceof ApiError) {
    return { status: error.status, message: error.message, headers: { ...error.headers }, unexpected: error.status >= 500 && error.status !== 501 && error.status !== 503 };
  }
  if (error instanceof ValidatorHttpError) {
    const errors = error.errors ?? [];
    if (error.status === 400) return { status: 400, message: validationMessage(errors), headers: {}, unexpected: false };
    if (error.status === 415) return { status: 415, message: 'Request bodies must be JSON sent with Content-Type: application/json', headers: {}, unexpected: false };
    if (error.status === 500) {
      // Only raised when responses are checked strictly (tests, development): our answer broke the contract.
      return { status: 500, message: `The response does not match the API contract: ${validationMessage(errors)}`, headers: {}, unexpected: true };
    }
    if (error.status >= 400 && error.status < 500) return { status: error.status, message: validationMessage(errors), headers: {}, unexpected: false };
  }
  if (error !== null && typeof error === 'object' && 'type' in error) {
    const answer = bodyParserAnswer(error as { type?: unknown; limit?: unknown });
    if (answer) return answer;
  }
  if (isUniqueViolation(error)) {
    return { status: 409, message: 'Something with the same unique value already exists', headers: {}, unexpected: false };
  }
  if (isForeignKeyViolation(error)) {
    return { status: 409, message: 'This conflicts with related data that was changed at the same time', headers: {}, unexpected: false };
  }
  return { status: 500, message: 'Internal error', headers: {}, unexpected: true };
}

export function sendError(req: IncomingMessage, res: ServerResponse, answer: Pick<ErrorAnswer, 'status' | 'message' | 'headers'>): void {
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  try {
    sendJson(req, res, answer.status, { error: { code: answer.status, message: answer.message } });
  } catch (error) {
    // The error answer itself broke the contract (strict mode): that is our bug, answered as one.
    sendJson(req, res, 500, { error: { code: 500, message: classifyError(error).message } });
  }
}

/** Logs what must be logged and answers in the error shape; used by the API dispatcher and Express. */
export function answerError(error: unknown, req: IncomingMessage, res: ServerResponse, logger: Logger): void {
  const answer = classifyError(error);
  const requestId = maybeRequestState(req)?.requestId;
  if (answer.unexpected) logger.error({ err: error, reqId: requestId, method: req.method, url: req.url }, 'request failed');
  else if (logger.isLevelEnabled('debug')) logger.debug({ reqId: requestId, status: answer.status, message: answer.message }, 'request refused');
  if (res.headersSent) {
    // Part of an answer is out; the only honest thing left is to cut the connection.
    res.destroy();
    return;
  }
  sendError(req, res, answer);
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => answerError(error, req, res, logger);
}
