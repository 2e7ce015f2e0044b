import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

/** The aiops module's error codes, answered in the general error envelope. */
export const alertNotFound = (id: string) =>
  new AppError(404, 'ALERT_NOT_FOUND', 'Alert not found', {
    details: [{ field: 'alert_id', message: `${id} is not an alert of this tenant` }],
  });

/** RCA takes an alert id or an incident id: neither matched. */
export const targetNotFound = () => new NotFoundError('Incident or alert', 'INCIDENT_NOT_FOUND');

export const correlationNotFound = () => new NotFoundError('Correlation group', 'CORRELATION_NOT_FOUND');

export const invalidField = (field: string, message: string) =>
  new InvalidRequestError('The request is invalid', [{ field, message }]);
