import { ConflictError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { IncidentStatus } from './tables.ts';

/** The incident module's error codes, answered in the general error envelope. */
export const incidentNotFound = () => new NotFoundError('Incident', 'INCIDENT_NOT_FOUND');

export const locationMissing = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.location_id', message: 'does not exist in this tenant' },
  ]);
export const deviceMissing = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.device_id', message: 'is not a registered device of this tenant' },
  ]);
export const deviceElsewhere = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.device_id', message: 'is not at the location given in body.location_id' },
  ]);

export type IncidentAction = 'acknowledge' | 'resolve';

const ALLOWED_FROM: Record<IncidentAction, string> = {
  acknowledge: 'only an open incident can be acknowledged',
  resolve: 'only an open or acknowledged incident can be resolved',
};

export const invalidTransition = (status: IncidentStatus, action: IncidentAction) =>
  new ConflictError(`The incident is ${status}; ${ALLOWED_FROM[action]}`, 'INVALID_INCIDENT_TRANSITION', [
    { field: 'status', message: `is ${status}` },
  ]);

export const runbookNotFound = () => new NotFoundError('Runbook', 'RUNBOOK_NOT_FOUND');
