/**
 * Errors that services and handlers throw; the error handler turns each into
 * `{"error":{"code":<status>,"message":...}}` by its class. Messages are shown to clients: they name what
 * went wrong in words a person can act on and never hold SQL, stack traces or secrets.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  readonly status: number;
  /** Extra response headers, e.g. `WWW-Authenticate` or `Allow`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends ApiError {
  override readonly name = 'UnauthorizedError';
  constructor(message = 'A valid bearer token is required') {
    super(401, message, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends ApiError {
  override readonly name = 'ForbiddenError';
  constructor(message = 'You are not allowed to do this') {
    super(403, message);
  }
}

export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class MethodNotAllowedError extends ApiError {
  override readonly name = 'MethodNotAllowedError';
  constructor(method: string, allowed: readonly string[]) {
    super(405, `${method} is not allowed here; use ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
  }
}

export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
  constructor(message: string) {
    super(409, message);
  }
}

export class PreconditionFailedError extends ApiError {
  override readonly name = 'PreconditionFailedError';
  constructor(message: string) {
    super(412, message);
  }
}

export class PayloadTooLargeError extends ApiError {
  override readonly name = 'PayloadTooLargeError';
  constructor(message = 'The request body is too large') {
    super(413, message);
  }
}

/** A well-formed request the server will not carry out as asked (past a limit on the work it causes). */
export class UnprocessableContentError extends ApiError {
  override readonly name = 'UnprocessableContentError';
  constructor(message: string) {
    super(422, message);
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  override readonly name = 'UnsupportedMediaTypeError';
  constructor(message = 'Request bodies must be JSON sent with Content-Type: application/json') {
    super(415, message);
  }
}

export class TooManyRequestsError extends ApiError {
  override readonly name = 'TooManyRequestsError';
  constructor(retryAfterSeconds: number) {
    super(429, `Too many requests, retry after ${retryAfterSeconds} seconds`, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class NotImplementedError extends ApiError {
  override readonly name = 'NotImplementedError';
  constructor(operationId: string) {
    super(501, `${operationId} is not implemented yet`);
  }
}

export class ServiceUnavailableError extends ApiError {
  override readonly name = 'ServiceUnavailableError';
  constructor(message: string) {
    super(503, message);
  }
}
