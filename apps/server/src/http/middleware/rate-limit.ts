import type { IncomingMessage, ServerResponse } from 'node:http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../errors.js';
import { bearerTokenHash } from '../request-state.js';

export interface RateLimitOptions {
  /** Requests allowed per caller in each window; 0 turns limiting off. */
  requestsPerWindow: number;
  windowSeconds: number;
}

export interface RateLimiter {
  /** Counts an API request against its caller's budget; throws 429 (with `Retry-After`) past it. */
  admit(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Counts a request whose bearer token was refused against its client address. */
  recordRefusedToken(req: IncomingMessage): Promise<void>;
}

/**
 * Limits how many API requests one caller makes per window, answering 429 with `Retry-After` past it, and
 * telling every caller where they stand with the `RateLimit-*` headers.
 *
 * The caller is the bearer token when there is one (its SHA-256, the same hash authentication looks up, so no
 * token sits in memory as a key) and the client address otherwise. A made-up token would otherwise buy a
 * fresh budget with every guess, so requests whose token is refused are counted against their address too,
 * and an address out of budget is refused before its tokens are looked up. Counts are kept per process:
 * behind a load balancer each node allows the limit on its own, which bounds abuse without a shared store.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter | null {
  if (options.requestsPerWindow <= 0) return null;
  const limiter = new RateLimiterMemory({ points: options.requestsPerWindow, duration: options.windowSeconds });
  const setHeaders = (res: ServerResponse, state: RateLimiterRes): void => {
    res.setHeader('RateLimit-Limit', String(options.requestsPerWindow));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
    res.setHeader('RateLimit-Reset', String(Math.ceil(state.msBeforeNext / 1000)));
  };
  const refuse = (res: ServerResponse, state: RateLimiterRes): never => {
    setHeaders(res, state);
    throw new TooManyRequestsError(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
  };
  return {
    async admit(req, res) {
      const tokenHash = bearerTokenHash(req);
      if (tokenHash !== undefined) {
        const address = await limiter.get(addressKey(req));
        if (address && address.remainingPoints <= 0) refuse(res, address);
      }
      try {
        setHeaders(res, await limiter.consume(tokenHash === undefined ? addressKey(req) : `token:${tokenHash}`));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        refuse(res, rejection);
      }
    },
    async recordRefusedToken(req) {
      if (bearerTokenHash(req) === undefined) return; // already counted against the address by admit()
      await limiter.penalty(addressKey(req));
    },
  };
}

function addressKey(req: IncomingMessage): string {
  return `address:${req.socket.remoteAddress ?? 'unknown'}`;
}
