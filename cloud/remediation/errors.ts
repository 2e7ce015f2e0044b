import {
  AppError,
  InvalidRequestError,
  NotFoundError,
  TooManyRequestsError,
} from '../../shared/http/errors.ts';

/** Remediation's error codes, answered in the general error envelope. */
export const alertNotFound = () => new NotFoundError('Alert', 'ALERT_NOT_FOUND');
export const remediationNotFound = () => new NotFoundError('Remediation', 'REMEDIATION_NOT_FOUND');

export const badParameter = (field: string, message: string) =>
  new InvalidRequestError('The request is invalid', [{ field: `body.parameters.${field}`, message }]);

export const noExecutor = (action: string) =>
  new AppError(422, 'no_executor', `No executor carries out ${action} in this deployment`, {
    details: [{ field: 'body.action', message: `${action} has no executor` }],
  });

export const noTarget = (why: string) =>
  new AppError(422, 'TARGET_NOT_FOUND', 'The alert names nothing this action can act on', {
    details: [{ field: 'body.alert_id', message: why }],
  });

/** An hourly limit (or the agent rate limit) is used up; `freesAt` is when the next one fits. */
export const rateLimited = (check: string, detail: string, freesAt: Date, now: Date) => {
  const error = new TooManyRequestsError(
    `Remediation rate limit reached: ${detail}`,
    (freesAt.getTime() - now.getTime()) / 1000,
    'REMEDIATION_RATE_LIMITED',
  );
  error.details.push({ field: check, message: `allowed again at ${freesAt.toISOString()}` });
  return error;
};
