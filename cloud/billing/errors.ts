import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CODES_BY_STATUS, createErrorHandler } from '../../shared/http/error-handler.ts';
import { AppError } from '../../shared/http/errors.ts';

/** Billing's error codes, rendered `{ error: <code>, message }`. */
export const validationError = (message: string) => new AppError(400, 'validation_error', message);
export const missingTenant = () =>
  new AppError(401, 'missing_tenant', 'The access token carries no tenant_id', {
    headers: { 'www-authenticate': 'Bearer' },
  });
export const notFound = (resource: string) => new AppError(404, 'not_found', `${resource} not found`);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const invalidState = (message: string) => new AppError(409, 'invalid_state', message);
export const discountNotApplicable = (message: string) =>
  new AppError(409, 'discount_not_applicable', message);
export const addonInactive = () =>
  new AppError(409, 'addon_inactive', 'The add-on is inactive; it cannot be added to a subscription');
export const upstreamError = (message: string, cause?: unknown) =>
  new AppError(502, 'upstream_error', message, { cause });

interface ValidationIssue {
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `body.quantity must be >= 1; body.code must NOT have more than 100 characters` */
function validationMessage(issues: ValidationIssue[], part: string) {
  const lines = issues.map((issue) => {
    const path = [part, ...issue.instancePath.split('/').filter(Boolean)];
    const named = issue.params.missingProperty ?? issue.params.additionalProperty;
    if (typeof issue.params.additionalProperty === 'string')
      return `${[...path, issue.params.additionalProperty].join('.')} is not an accepted field`;
    if (typeof named === 'string') return `${[...path, named].join('.')} is required`;
    return `${path.join('.')} ${issue.message ?? 'is invalid'}`;
  });
  return [...new Set(lines)].join('; ');
}

const CODES: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' };

/** Every error of the area in billing's own codes: the shared codes lower-cased. */
function toBillingError(error: FastifyError | AppError): AppError {
  const validation = (error as FastifyError).validation as ValidationIssue[] | undefined;
  if (validation) {
    const part = (error as FastifyError).validationContext ?? 'body';
    return validationError(validationMessage(validation, part));
  }
  const status = error instanceof AppError ? error.status : (error.statusCode ?? 500);
  if (status === 400) return validationError(error.message);
  if (error instanceof AppError) {
    if (error.code === error.code.toLowerCase()) return error;
    const code = status === 401 ? error.code.toLowerCase() : (CODES[status] ?? error.code.toLowerCase());
    return new AppError(status, code, error.message, { headers: error.headers, cause: error.cause });
  }
  if (status > 400 && status < 500)
    return new AppError(
      status,
      CODES[status] ?? CODES_BY_STATUS[status]?.toLowerCase() ?? 'invalid_request',
      error.message,
    );
  return new AppError(500, 'internal_error', 'An unexpected error occurred', { cause: error });
}

const render = createErrorHandler('billing');

export function billingErrorHandler(
  error: FastifyError | AppError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  return render(toBillingError(error), request, reply);
}
