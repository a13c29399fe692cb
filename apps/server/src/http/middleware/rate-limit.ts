import type { IncomingMessage, ServerResponse } from 'node:http';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../../errors.js';
import { batchedLimiter, type ApiLimiter } from '../../limits/batched-limiter.js';
import { memoryLimiterStore, type LimiterStore } from '../../limits/limiter-store.js';
import { bearerTokenHash } from '../request-state.js';

/** Each process may hold up to 1/100 of a caller's limit uncounted by a shared store... */
export const API_BATCH_SHARE = 100;
/** ...for at most this long. */
export const API_SETTLE_EVERY_MS = 100;

export interface RateLimitOptions {
  /** Requests allowed per caller in each window; 0 turns limiting off. */
  requestsPerWindow: number;
  windowSeconds: number;
  /**
   * A secret of this process that the in-process reader sends (`X-Quire-Reader`) with the visitor's address
   * (`X-Forwarded-For`): its unauthenticated lookups count against each visitor's address, not against the
   * loopback address they all come from. Requests without the secret are keyed by their socket address as
   * ever, so no outside client can choose its own key.
   */
  trustedForwarderKey?: string;
  /** Where requests are counted (limits/limiter-store.ts): shared by every process, or this one's memory by default. */
  store?: LimiterStore;
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
 * and an address out of budget is refused before its tokens are looked up. Counts are kept in the limiter
 * store, which every process of a deployment shares (PostgreSQL or Redis), so a caller spreading a burst over
 * the processes behind a load balancer is limited as one.
 *
 * The addresses found out of budget are also remembered here, in this process, until their window ends, so
 * that a request carrying a token from such an address is refused synchronously, without a store round trip.
 * That memory is per process, and that is fine: it only ever repeats a refusal the shared store gave (an
 * address's count only grows within its window, nothing resets it early), and a process that has not seen
 * the refusal asks the store, which answers the same.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter | null {
  if (options.requestsPerWindow <= 0) return null;
  const store = options.store ?? memoryLimiterStore();
  const counted = store.limiter({ keyPrefix: 'api', points: options.requestsPerWindow, windowSeconds: options.windowSeconds });
  // A shared store is settled with in batches (limits/batched-limiter.ts): each process may admit up to 1% of
  // a caller's limit before the store counts it, settled within 100 ms, so N processes together admit at most
  // limit × (1 + N / 100) per window; limits under 100 are counted exactly. This process's memory is cheap to
  // count in directly.
  const limiter: ApiLimiter = store.kind === 'memory'
    ? counted
    : batchedLimiter(counted, options.requestsPerWindow, { maxUnsettled: Math.floor(options.requestsPerWindow / API_BATCH_SHARE), settleEveryMs: API_SETTLE_EVERY_MS });
  // Addresses out of budget, until when: checked synchronously on every request that carries a token.
  const exhaustedAddresses = new Map<string, number>();
  const setHeaders = (res: ServerResponse, remaining: number, msBeforeNext: number): void => {
    res.setHeader('RateLimit-Limit', String(options.requestsPerWindow));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, remaining)));
    res.setHeader('RateLimit-Reset', String(Math.ceil(msBeforeNext / 1000)));
  };
  const refuse = (res: ServerResponse, msBeforeNext: number): never => {
    setHeaders(res, 0, msBeforeNext);
    throw new TooManyRequestsError(Math.max(1, Math.ceil(msBeforeNext / 1000)));
  };
  const noteAddress = (key: string, state: RateLimiterRes): void => {
    if (state.remainingPoints > 0) return;
    if (exhaustedAddresses.size >= 10_000) {
      const now = Date.now();
      for (const [address, until] of exhaustedAddresses) if (until <= now) exhaustedAddresses.delete(address);
    }
    exhaustedAddresses.set(key, Date.now() + state.msBeforeNext);
  };
  return {
    async admit(req, res) {
      const tokenHash = bearerTokenHash(req);
      const address = addressKey(req, options.trustedForwarderKey);
      if (tokenHash !== undefined) {
        const until = exhaustedAddresses.get(address);
        if (until !== undefined) {
          const msBeforeNext = until - Date.now();
          if (msBeforeNext > 0) refuse(res, msBeforeNext);
          exhaustedAddresses.delete(address);
        }
      }
      const key = tokenHash === undefined ? address : `token:${tokenHash}`;
      try {
        const state = await limiter.consume(key);
        if (tokenHash === undefined) noteAddress(address, state);
        setHeaders(res, state.remainingPoints, state.msBeforeNext);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        if (tokenHash === undefined) noteAddress(address, rejection);
        refuse(res, rejection.msBeforeNext);
      }
    },
    async recordRefusedToken(req) {
      if (bearerTokenHash(req) === undefined) return; // already counted against the address by admit()
      const address = addressKey(req, options.trustedForwarderKey);
      noteAddress(address, await limiter.penalty(address));
    },
  };
}

function addressKey(req: IncomingMessage, trustedForwarderKey: string | undefined): string {
  if (trustedForwarderKey !== undefined && req.headers['x-quire-reader'] === trustedForwarderKey) {
    const forwarded = req.headers['x-forwarded-for'];
    const visitor = typeof forwarded === 'string' ? forwarded.split(',')[0]!.trim() : '';
    if (visitor !== '') return `address:${visitor}`;
  }
  return `address:${req.socket.remoteAddress ?? 'unknown'}`;
}
