import {
  ConflictError,
  type ErrorDetail,
  InvalidRequestError,
  NotFoundError,
} from '../../shared/http/errors.ts';

export const invalid = (details: ErrorDetail[]) => new InvalidRequestError('The request is invalid', details);

/** Settings are created at start-up by `ensure`; reading them earlier is a wiring mistake. */
export const settingsNotFound = () => new NotFoundError('Location settings', 'LOCATION_SETTINGS_NOT_FOUND');

export const locationMismatch = (configured: string, stored: string) =>
  new ConflictError(
    `This appliance's data belongs to location ${stored}, not ${configured}`,
    'LOCATION_MISMATCH',
  );
