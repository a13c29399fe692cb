export interface RetryOptions {
  /** How many times a 429 or 503 answer is retried (default 3; 0 disables retries). */
  retries?: number;
  /** Upper bound of a single wait, whatever `Retry-After` asks (default 30 s). */
  maxDelayMs?: number;
  /** Wait when the server sends no `Retry-After` (default 500 ms, doubled on each attempt). */
  baseDelayMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

const RETRYABLE = new Set([429, 503]);

/** `Retry-After` is either delta-seconds or an HTTP date; answers milliseconds, or undefined if absent or unparsable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Wraps a fetch so that 429 (rate limited) and 503 (unavailable) answers are retried after the delay the
 * server asks for. Every attempt sends a fresh clone of the original request, so bodies are resent intact.
 */
export function withRetries(fetchImpl: (input: Request) => Promise<Response>, options: RetryOptions = {}) {
  const retries = options.retries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await fetchImpl(attempt < retries ? request.clone() : request);
      if (!RETRYABLE.has(response.status) || attempt >= retries) return response;
      const asked = parseRetryAfter(response.headers.get('retry-after'));
      const delay = Math.min(maxDelayMs, asked ?? baseDelayMs * 2 ** attempt);
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay);
    }
  };
}
