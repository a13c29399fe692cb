import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../errors.js';
import { hashToken } from '../ids.js';
import { memoryLimiterStore, type LimiterStore } from '../limits/limiter-store.js';
import type { ServiceContext, SignInLimits } from './context.js';
import { normalizeEmail } from '../stores/user-store.js';

/*
 * Failed sign-ins are limited per account (guessing one person's password) and per client address (trying
 * many accounts from one place), with rate-limiter-flexible. Only failures count; a success clears its
 * account's count. Counts are kept in the limiter store of the services (`ServiceContext.limiters`, chosen in
 * limits/limiter-store.ts), which every process of a deployment shares, so failures spread over several
 * processes lock an account as surely as failures sent to one.
 */

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
const DEFAULT_LIMITS: SignInLimits = { perAccount: 10, perAddress: 100, windowSeconds: SIGN_IN_WINDOW_SECONDS };


export interface SignInThrottle {
  /** 429 (with Retry-After) when the account or the address has used up its failed attempts. */
  assertAllowed(email: string, address: string | undefined): Promise<void>;
  recordFailure(email: string, address: string | undefined): Promise<void>;
  recordSuccess(email: string): Promise<void>;
}

// Accounts are keyed by a hash of the email, so no address sits in memory as a key.
const accountKey = (email: string) => hashToken(normalizeEmail(email));
const addressKey = (address: string | undefined) => address ?? 'unknown';

export function createSignInThrottle(limits: SignInLimits = DEFAULT_LIMITS, store: LimiterStore = memoryLimiterStore()): SignInThrottle {
  const accounts = store.limiter({ keyPrefix: 'sign-in-account', points: limits.perAccount, windowSeconds: limits.windowSeconds });
  const addresses = store.limiter({ keyPrefix: 'sign-in-address', points: limits.perAddress, windowSeconds: limits.windowSeconds });
  const waitOf = async (limiter: RateLimiterAbstract, key: string, points: number): Promise<number> => {
    const state = await limiter.get(key);
    return state && state.consumedPoints >= points ? state.msBeforeNext : 0;
  };
  return {
    async assertAllowed(email, address) {
      const wait = Math.max(await waitOf(accounts, accountKey(email), limits.perAccount), await waitOf(addresses, addressKey(address), limits.perAddress));
      if (wait > 0) throw new TooManyRequestsError(Math.max(1, Math.ceil(wait / 1000)));
    },
    async recordFailure(email, address) {
      await accounts.penalty(accountKey(email));
      await addresses.penalty(addressKey(address));
    },
    async recordSuccess(email) {
      await accounts.delete(accountKey(email));
    },
  };
}

const throttles = new WeakMap<ServiceContext, SignInThrottle>();

/** The throttle of this process's services (one per `ServiceContext`, made on first use). */
export function signInThrottleOf(context: ServiceContext): SignInThrottle {
  let throttle = throttles.get(context);
  if (!throttle) {
    throttle = createSignInThrottle(context.signInLimits ?? DEFAULT_LIMITS, context.limiters);
    throttles.set(context, throttle);
  }
  return throttle;
}
