import type { IncomingMessage, ServerResponse } from 'node:http';
import { maybeRequestState } from './request-state.js';

/** Checks an answer against the contract; throws (strict mode) or reports (log mode) a mismatch. */
export type ResponseCheck = (req: IncomingMessage, status: number, body: unknown) => void;

/**
 * Writes a JSON answer directly (no ETag or freshness work, which answers of this API do not need). The
 * operation's response check runs first, once: if it throws, the error answer that follows is not checked
 * against the operation.
 */
export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  const state = maybeRequestState(req);
  const check = state?.checkResponse;
  if (check) {
    state.checkResponse = undefined;
    if (status < 500) check(req, status, body);
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** An answer without a body (204). */
export function sendEmpty(req: IncomingMessage, res: ServerResponse, status: number): void {
  const state = maybeRequestState(req);
  if (state) state.checkResponse = undefined;
  res.statusCode = status;
  res.end();
}
