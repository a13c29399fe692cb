import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../errors.js';

export interface RateLimitOptions {
  /** Requests allowed per caller in each window; 0 turns limiting off. */
  requestsPerWindow: number;
  windowSeconds: number;
}

/**
 * Limits how many API requests one caller makes per window, answering 429 with `Retry-After` past it, and
 * telling every caller where they stand with the `RateLimit-*` headers.
 *
 * The caller is the bearer token when there is one (hashed, so no token sits in memory as a key) and the
 * client address otherwise, so that guessing tokens is limited too. Counts are kept per process: behind a
 * load balancer each node allows the limit on its own, which bounds abuse without a shared store.
 */
export function createRateLimiter(options: RateLimitOptions): ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | null {
  if (options.requestsPerWindow <= 0) return null;
  const limiter = new RateLimiterMemory({ points: options.requestsPerWindow, duration: options.windowSeconds });
  const setHeaders = (res: ServerResponse, state: RateLimiterRes): void => {
    res.setHeader('RateLimit-Limit', String(options.requestsPerWindow));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
    res.setHeader('RateLimit-Reset', String(Math.ceil(state.msBeforeNext / 1000)));
  };
  return async (req, res) => {
    try {
      setHeaders(res, await limiter.consume(callerKey(req)));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      setHeaders(res, rejection);
      throw new TooManyRequestsError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    }
  };
}

function callerKey(req: IncomingMessage): string {
  const authorization = req.headers.authorization;
  if (typeof authorization === 'string' && authorization.length > 7) {
    return `token:${createHash('sha256').update(authorization).digest('base64url')}`;
  }
  return `address:${req.socket.remoteAddress ?? 'unknown'}`;
}
