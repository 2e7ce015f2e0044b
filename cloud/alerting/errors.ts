import { ConflictError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { AlertStatus } from './tables.ts';

/** The alerting module's error codes, answered in the general error envelope. */
export const alertNotFound = () => new NotFoundError('Alert', 'ALERT_NOT_FOUND');
export const policyNotFound = () => new NotFoundError('Escalation policy', 'POLICY_NOT_FOUND');
export const windowNotFound = () => new NotFoundError('Maintenance window', 'MAINTENANCE_WINDOW_NOT_FOUND');

export type AlertAction = 'acknowledge' | 'resolve';

const ALLOWED_FROM: Record<AlertAction, string> = {
  acknowledge: 'only a firing alert can be acknowledged',
  resolve: 'only a firing or acknowledged alert can be resolved',
};

export const invalidTransition = (status: AlertStatus, action: AlertAction) =>
  new ConflictError(`The alert is ${status}; ${ALLOWED_FROM[action]}`, 'INVALID_ALERT_TRANSITION', [
    { field: 'status', message: `is ${status}` },
  ]);

export const defaultTaken = () =>
  new ConflictError('The tenant already has a default policy', 'DEFAULT_POLICY_EXISTS', [
    { field: 'body.is_default', message: 'another policy is the default' },
  ]);

export const windowBackwards = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.ends_at', message: 'must be after starts_at' },
  ]);

export const levelWithoutTimeout = (index: number) =>
  new InvalidRequestError('The request is invalid', [
    {
      field: `body.levels/${index}/timeout_minutes`,
      message: 'only the last level may have no time-out',
    },
  ]);
