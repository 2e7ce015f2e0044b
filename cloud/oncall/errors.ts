import {
  ConflictError,
  type ErrorDetail,
  InvalidRequestError,
  NotFoundError,
} from '../../shared/http/errors.ts';

/** The on-call module's error codes, answered in the general error envelope. */
export const scheduleNotFound = () => new NotFoundError('On-call schedule', 'SCHEDULE_NOT_FOUND');
export const teamNotFound = () => new NotFoundError('On-call team', 'TEAM_NOT_FOUND');
export const overrideNotFound = () => new NotFoundError('On-call override', 'OVERRIDE_NOT_FOUND');

export const teamTaken = () =>
  new ConflictError('The team already has an on-call schedule', 'TEAM_EXISTS', [
    { field: 'body.team', message: 'already has a schedule in this tenant' },
  ]);

export const invalid = (details: ErrorDetail[]) => new InvalidRequestError('The request is invalid', details);
