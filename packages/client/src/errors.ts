/**
 * A non-2xx answer of the Quire API, raised by `unwrap()` so that callers never check `error` by hand.
 * `status` is the HTTP status; `code` and `message` come from the `{error: {code, message}}` body when the
 * server sent one (the status text otherwise).
 */
export class QuireApiError extends Error {
  override readonly name = 'QuireApiError';
  readonly status: number;
  readonly code: number;
  readonly response: Response | undefined;

  constructor(status: number, code: number, message: string, response?: Response) {
    super(message);
    this.status = status;
    this.code = code;
    this.response = response;
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown };
}

/** Builds the error from whatever the server answered, tolerating bodies that are not ours (proxies). */
export function toQuireApiError(response: Response, body: unknown): QuireApiError {
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as ErrorBody;
  const code = typeof parsed.error?.code === 'number' ? parsed.error.code : response.status;
  const message = typeof parsed.error?.message === 'string' && parsed.error.message
    ? parsed.error.message
    : response.statusText || `HTTP ${response.status}`;
  return new QuireApiError(response.status, code, message, response);
}

/** The result shape of every openapi-fetch call. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * Returns the parsed body of a successful call and throws `QuireApiError` otherwise.
 * For 204 answers the result is `undefined`.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>> | FetchResult<T>): Promise<T> {
  const result = await call;
  if (!result.response.ok) throw toQuireApiError(result.response, result.error);
  return result.data as T;
}
