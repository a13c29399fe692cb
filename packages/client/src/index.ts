import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '@quire/api-types';
import { withRetries, type RetryOptions } from './retry.js';

export { QuireApiError, unwrap, toQuireApiError, type FetchResult } from './errors.js';
export { paginate } from './paginate.js';
export { parseRetryAfter, withRetries, type RetryOptions } from './retry.js';

export type QuireClient = Client<paths>;

export interface QuireClientOptions {
  /** Root URL of the service, e.g. `http://localhost:8080`; `/v1` is appended unless already there. */
  baseUrl: string;
  /** API token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Custom fetch (tests, proxies); defaults to the global fetch. */
  fetch?: (input: Request) => Promise<Response>;
  /** Retries of 429 and 503 answers; `false` disables them. */
  retry?: RetryOptions | false;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/** Normalises the base URL so that every path of the spec resolves under `/v1`. */
export function apiBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

function authMiddleware(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
}

/** Creates a typed client of the Quire Management API. */
export function createQuireClient(options: QuireClientOptions): QuireClient {
  const baseFetch = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const fetchImpl = options.retry === false ? baseFetch : withRetries(baseFetch, options.retry);
  const client = createClient<paths>({
    baseUrl: apiBaseUrl(options.baseUrl),
    fetch: fetchImpl,
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (options.token) client.use(authMiddleware(options.token));
  return client;
}
