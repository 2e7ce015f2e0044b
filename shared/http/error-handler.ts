import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorFormat, errorBodies } from './envelope.ts';
import { AppError, type ErrorDetail } from './errors.ts';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export const CODES_BY_STATUS: Record<number, string> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

/** Ajv reports a missing or unknown property at its parent; the client wants the property's path. */
function fieldOf(issue: ValidationIssue, part: string): string {
  const segments = issue.instancePath.split('/').filter(Boolean);
  const named = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof named === 'string') segments.push(named);
  return [part, ...segments].join('.');
}

function messageOf(issue: ValidationIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not an accepted field';
  if (issue.keyword === 'required') return 'is required';
  return issue.message ?? 'is invalid';
}

/** One entry per bad field: the first problem found for a field is the one worth fixing first. */
export function validationDetails(issues: ValidationIssue[], part: string): ErrorDetail[] {
  const byField = new Map<string, string>();
  for (const issue of issues) {
    const field = fieldOf(issue, part);
    if (!byField.has(field)) byField.set(field, messageOf(issue));
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

function toAppError(error: FastifyError | AppError): AppError {
  if (error instanceof AppError) return error;
  const validation = (error as FastifyError).validation as ValidationIssue[] | undefined;
  if (validation) {
    const part = (error as FastifyError).validationContext ?? 'body';
    return new AppError(400, 'INVALID_REQUEST', 'The request is invalid', {
      details: validationDetails(validation, part),
    });
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new AppError(status, CODES_BY_STATUS[status] ?? 'INVALID_REQUEST', error.message);
  }
  return new AppError(500, 'INTERNAL_ERROR', 'An unexpected error occurred', { cause: error });
}

/** Renders any thrown error in the envelope of the area; 5xx bodies say nothing internal. */
export function createErrorHandler(format: ErrorFormat = 'general') {
  return function handleError(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: appError.code, status: appError.status }, 'request refused');
    reply.code(appError.status).headers(appError.headers);
    return reply.send(
      errorBodies[format]({
        code: appError.code,
        message: appError.message,
        details: appError.details,
        requestId: request.id,
      }),
    );
  };
}
