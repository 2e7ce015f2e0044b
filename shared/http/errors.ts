/**
 * One error type for the whole product. Modules name their codes; the error handler renders the
 * envelope of the area that raised it. `details` carry field-level problems for the client.
 */
export interface ErrorDetail {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  cause?: unknown;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
  }
}

export class InvalidRequestError extends AppError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super(400, 'INVALID_REQUEST', message, { details });
  }
}

export class UnauthorizedError extends AppError {
  constructor(code = 'UNAUTHORIZED', message = 'Authentication required') {
    super(401, code, message, { headers: { 'www-authenticate': 'Bearer' } });
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Your role does not permit this operation', code = 'FORBIDDEN') {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, code = 'NOT_FOUND') {
    super(404, code, `${resource} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'CONFLICT', details: ErrorDetail[] = []) {
    super(409, code, message, { details });
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message: string, retryAfterSeconds: number, code = 'RATE_LIMITED') {
    super(429, code, message, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}
