import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { validationDetails } from '../../shared/http/error-handler.ts';
import { AppError } from '../../shared/http/errors.ts';

/** The P&L area's errors: every body is `{ detail: <string> }`. */
export const pnlErrors = {
  invalid: (detail: string) => new AppError(400, 'INVALID_REQUEST', detail),
  tenantRequired: () => new AppError(400, 'TENANT_REQUIRED', 'Tenant ID required'),
  notAuthenticated: () =>
    new AppError(401, 'UNAUTHORIZED', 'Not authenticated', { headers: { 'www-authenticate': 'Bearer' } }),
  forbidden: () => new AppError(403, 'FORBIDDEN', 'Insufficient permissions'),
  brandNotFound: (id: string) => new AppError(404, 'BRAND_NOT_FOUND', `Brand not found: ${id}`),
  regionNotFound: (id: string) => new AppError(404, 'REGION_NOT_FOUND', `Region not found: ${id}`),
  locationNotFound: (id: string) => new AppError(404, 'LOCATION_NOT_FOUND', `Location not found: ${id}`),
  staffNotFound: (id: string) => new AppError(404, 'STAFF_NOT_FOUND', `Staff member not found: ${id}`),
  notFound: (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`),
  granularity: () =>
    new AppError(400, 'INVALID_GRANULARITY', 'Invalid granularity; must be one of day, week, month'),
  tooFewBrands: () => new AppError(400, 'TOO_FEW_BRANDS', 'At least 2 brands required for comparison'),
};

/** A report's unexpected failure, named per endpoint as the API words it, followed by the error's text. */
export async function reportFailure<T>(prefix: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(500, 'PNL_FAILED', `${prefix}: ${(error as Error).message}`, { cause: error });
  }
}

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Renders any error of the area as `{ detail }`, a validation failure naming its fields. */
export function pnlErrorHandler(
  error: FastifyError | AppError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const validation = (error as FastifyError).validation as ValidationIssue[] | undefined;
  if (validation) {
    // An enum failure names the accepted values, so the client can fix it without the docs.
    const issues = validation.map((issue) =>
      issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)
        ? { ...issue, message: `must be one of ${issue.params.allowedValues.join(', ')}` }
        : issue,
    );
    const details = validationDetails(issues, (error as FastifyError).validationContext ?? 'body');
    request.log.info({ code: 'INVALID_REQUEST', status: 400 }, 'request refused');
    return reply.code(400).send({ detail: details.map((d) => `${d.field}: ${d.message}`).join('; ') });
  }
  if (error instanceof AppError) {
    if (error.status >= 500) request.log.error({ err: error.cause ?? error }, 'request failed');
    else request.log.info({ code: error.code, status: error.status }, 'request refused');
    return reply.code(error.status).headers(error.headers).send({ detail: error.message });
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return reply.code(status).send({ detail: error.message });
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send({ detail: 'An unexpected error occurred' });
}
