import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/*
 * Counting in a shared store (PostgreSQL's `rate_limits`, Redis) costs a round trip per request, and on
 * PostgreSQL an upsert of one row per caller, which every request of that caller waits on and every process
 * contends for: GET space ran at ~1,530 req/s with the limiter against ~2,680 without it. This limiter counts
 * in the process and settles with the store in batches, so that the store sees a few writes per caller per
 * second however fast the caller goes.
 *
 * How it stays a limit across processes:
 * - A caller's first request of a window, and any request once the local estimate of its budget runs out, is
 *   counted in the store before it is answered, exactly as without batching; the store's answer (points left,
 *   end of window) is remembered.
 * - Later requests are admitted here while the remembered budget lasts, as long as fewer than `maxUnsettled`
 *   points of the caller are not yet counted by the store. They are sent to the store in one `consume(key, n)`
 *   when `maxUnsettled` is reached, and at the latest `settleEveryMs` after the first of them; a request that
 *   finds `maxUnsettled` points unsettled waits for that settlement.
 * - Once the store says a caller's budget is used up, the caller is refused here until the window ends, with
 *   no round trip: sound, since a count only grows within its window.
 * So at any moment each process holds at most `maxUnsettled` points of a caller the store has not counted, and
 * processes together admit at most `limit + processes × maxUnsettled` requests of one caller per window. With
 * `maxUnsettled` 0 every request is counted in the store first (exact, as before). Points admitted near the
 * end of a window may be settled into the next one: counted late, never lost, except the at most
 * `maxUnsettled` per caller of a process that exits before its next settlement.
 *
 * Memory: one entry per caller seen in the current window; entries of ended windows are dropped at each
 * settlement round and whenever the map holds more than 10,000 entries.
 */

export interface BatchedLimiterOptions {
  /** Points of one caller this process may admit before the store has counted them; 0 counts every point first. */
  maxUnsettled: number;
  /** The longest a point admitted here waits before it is sent to the store. */
  settleEveryMs: number;
}

/** What the API limiter uses of a limiter: the same calls, answers and rejections as rate-limiter-flexible's. */
export interface ApiLimiter {
  /** Counts one point; resolves with the caller's state, rejects with a `RateLimiterRes` past the limit. */
  consume(key: string): Promise<RateLimiterRes>;
  /** Counts one point without ever refusing. */
  penalty(key: string): Promise<RateLimiterRes>;
}

interface CallerState {
  /** Points left as the store last said, less those admitted here since (an estimate: other processes count too). */
  remaining: number;
  /** When the store's window for the caller ends (epoch ms). */
  resetAt: number;
  /** The store said the budget is used up: refused here until `resetAt`. */
  exhausted: boolean;
  /** Points admitted here and not yet sent to the store. */
  pending: number;
  /** Points sent to the store whose answer has not come. */
  inFlight: number;
  settling: Promise<void> | undefined;
}

const SWEEP_ABOVE = 10_000;

export function batchedLimiter(store: RateLimiterAbstract, points: number, options: BatchedLimiterOptions): ApiLimiter & { settleAll(): Promise<void> } {
  const states = new Map<string, CallerState>();
  let timer: NodeJS.Timeout | undefined;

  const sweep = (now: number): void => {
    for (const [key, state] of states) {
      if (state.resetAt <= now && state.pending === 0 && state.inFlight === 0) states.delete(key);
    }
  };

  /** Takes in an answer of the store, which counted everything sent so far but not what is still pending. */
  const learn = (key: string, answer: RateLimiterRes, unsent: number): void => {
    const now = Date.now();
    const state = states.get(key);
    const remaining = answer.remainingPoints - unsent;
    const resetAt = now + answer.msBeforeNext;
    const exhausted = answer.remainingPoints <= 0;
    if (!state) {
      states.set(key, { remaining, resetAt, exhausted, pending: 0, inFlight: 0, settling: undefined });
      return;
    }
    if (state.resetAt <= now) {
      // A new window: the store's answer replaces what was known of the old one.
      state.remaining = remaining;
      state.exhausted = exhausted;
    } else {
      // Answers to concurrent requests come in any order: keep the lower budget, so none is overstated.
      state.remaining = Math.min(state.remaining, remaining);
      state.exhausted ||= exhausted;
    }
    state.resetAt = resetAt;
  };

  const settle = (key: string, state: CallerState): Promise<void> => {
    if (state.settling) return state.settling;
    if (state.pending === 0) return Promise.resolve();
    const points = state.pending;
    state.pending = 0;
    state.inFlight = points;
    const answered = (answer: RateLimiterRes) => {
      state.inFlight = 0;
      learn(key, answer, state.pending);
    };
    state.settling = store.consume(key, points).then(answered, (rejection: unknown) => {
      if (rejection instanceof RateLimiterRes) return answered(rejection);
      // The store's own failures go to its insurance limiter; anything else drops what was known, so the
      // caller's next request is counted in the store first and meets the error itself.
      state.inFlight = 0;
      states.delete(key);
    }).finally(() => {
      state.settling = undefined;
      if (states.get(key) !== state) return;
      if (state.pending >= options.maxUnsettled) void settle(key, state);
      else if (state.pending > 0) scheduleSettlement();
    });
    return state.settling;
  };

  const settleAll = async (): Promise<void> => {
    timer = undefined;
    const now = Date.now();
    const rounds: Promise<void>[] = [];
    for (const [key, state] of states) if (state.pending > 0) rounds.push(settle(key, state));
    sweep(now);
    await Promise.all(rounds);
  };

  const scheduleSettlement = (): void => {
    if (timer) return;
    timer = setTimeout(() => void settleAll(), options.settleEveryMs);
    timer.unref();
  };

  /** The store counts this point before it is answered. */
  const exact = async (key: string): Promise<RateLimiterRes> => {
    try {
      const answer = await store.consume(key, 1);
      if (options.maxUnsettled > 0) learn(key, answer, states.get(key)?.pending ?? 0);
      return answer;
    } catch (rejection) {
      if (options.maxUnsettled > 0 && rejection instanceof RateLimiterRes) learn(key, rejection, states.get(key)?.pending ?? 0);
      throw rejection;
    }
  };

  return {
    async consume(key) {
      if (options.maxUnsettled <= 0) return exact(key);
      if (states.size > SWEEP_ABOVE) sweep(Date.now());
      for (;;) {
        const state = states.get(key);
        const now = Date.now();
        if (!state || state.resetAt <= now) return exact(key);
        if (state.exhausted) throw new RateLimiterRes(0, state.resetAt - now, points, false);
        if (state.remaining <= 0 || state.pending + state.inFlight >= options.maxUnsettled) {
          // What this process admitted goes to the store before the store decides on this request...
          if (state.pending + state.inFlight === 0) return exact(key);
          // ...and while the process holds all the uncounted points it may, this request waits for that too.
          await (state.settling ?? settle(key, state));
          continue;
        }
        state.pending += 1;
        state.remaining -= 1;
        if (state.pending + state.inFlight >= options.maxUnsettled) void settle(key, state);
        else scheduleSettlement();
        return new RateLimiterRes(state.remaining, state.resetAt - now, points - state.remaining, false);
      }
    },
    async penalty(key) {
      const answer = await store.penalty(key, 1);
      if (options.maxUnsettled > 0) learn(key, answer, states.get(key)?.pending ?? 0);
      return answer;
    },
    settleAll,
  };
}
