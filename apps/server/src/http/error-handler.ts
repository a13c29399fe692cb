import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { isForeignKeyViolation, isUniqueViolation } from '../db/dialect.js';
import type { Logger } from '../logger.js';
import { ApiError } from '../errors.js';
import { validatorErrors, type ValidatorError, type ValidatorErrorItem } from './openapi/validator-internals.js';
import { maybeRequestState, urlForLog } from './request-state.js';
import { sendJson } from './respond.js';

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
export function validationMessage(errors: ValidatorErrorItem[]): string {
  const sentences = errors.map((error) => {
    const field = fieldName(error.path);
    if (error.errorCode === 'required.openapi.validation') return `${field} is required`;
    if (error.errorCode === 'additionalProperties.openapi.validation' || error.errorCode === 'unevaluatedProperties.openapi.validation') {
      return `${field} is not allowed`;
    }
    return `${field} ${error.message ?? 'is invalid'}`;
  });
  return [...new Set(sentences)].join('; ');
}

/** The validator's classes for refusals other than a bad request or body type: the status is the answer. */
const OTHER_REFUSALS = [
  validatorErrors.NotFound, validatorErrors.MethodNotAllowed, validatorErrors.NotAcceptable, validatorErrors.RequestEntityTooLarge,
  validatorErrors.Unauthorized, validatorErrors.Forbidden,
];

function refused(status: number, message: string): ErrorAnswer {
  return { status, message, headers: {}, unexpected: false };
}

/**
 * Maps anything thrown to the status and message a client sees, by class (never by message text): ours,
 * then the validator's, then the database driver's constraint violations (by their SQLSTATE-like codes).
 * Anything else is our bug: 500, logged, with nothing of it shown.
 */
export function classifyError(error: unknown): ErrorAnswer {
  if (error instanceof ApiError) {
    return { status: error.status, message: error.message, headers: { ...error.headers }, unexpected: error.status >= 500 && error.status !== 501 && error.status !== 503 };
  }
  if (error instanceof validatorErrors.BadRequest) return refused(400, validationMessage(error.errors));
  if (error instanceof validatorErrors.UnsupportedMediaType) return refused(415, 'Request bodies must be JSON sent with Content-Type: application/json');
  if (error instanceof validatorErrors.InternalServerError) {
    // Only raised when responses are checked strictly (tests, development): our answer broke the contract.
    return { status: 500, message: `The response does not match the API contract: ${validationMessage(error.errors)}`, headers: {}, unexpected: true };
  }
  if (OTHER_REFUSALS.some((refusal) => error instanceof refusal)) {
    const { status, errors } = error as ValidatorError;
    if (status >= 400 && status < 500) return refused(status, validationMessage(errors));
  }
  if (isUniqueViolation(error)) return refused(409, 'Something with the same unique value already exists');
  if (isForeignKeyViolation(error)) return refused(409, 'This conflicts with related data that was changed at the same time');
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
  if (answer.unexpected) logger.error({ err: error, reqId: requestId, method: req.method, url: urlForLog(req.url) }, 'request failed');
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
