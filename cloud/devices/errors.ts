import { AppError, ConflictError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

/** The device module's error codes, answered in the general error envelope. */
export const deviceNotFound = () => new NotFoundError('Device', 'DEVICE_NOT_FOUND');
export const certificateNotFound = () => new NotFoundError('Certificate', 'CERTIFICATE_NOT_FOUND');
export const noUpdate = () => new AppError(404, 'NO_UPDATE', 'No update was ever sent to this device');

export const locationMissing = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.location_id', message: 'does not exist in this tenant' },
  ]);
export const serialNumberTaken = () =>
  new ConflictError('A device with this serial number is already registered', 'SERIAL_NUMBER_TAKEN', [
    { field: 'body.serial_number', message: 'is already registered' },
  ]);
export const deviceRevoked = () => new ConflictError('The device is revoked', 'DEVICE_REVOKED');
export const deviceNotEnrolled = () =>
  new ConflictError('The device has not enrolled yet, so it cannot take commands', 'DEVICE_NOT_ENROLLED');
export const updateNotCancellable = (state: string) =>
  new ConflictError(
    `The update is ${state}; only an update that has not ended can be cancelled`,
    'UPDATE_NOT_CANCELLABLE',
  );
export const renewalConflict = () =>
  new ConflictError('Another renewal of this certificate finished first; try again', 'RENEWAL_CONFLICT');

export const invalidCsr = (message: string) =>
  new AppError(400, 'INVALID_CSR', 'The certificate request is invalid', {
    details: [{ field: 'body.csr', message }],
  });
export const csrSignatureInvalid = () =>
  new AppError(400, 'CSR_SIGNATURE_INVALID', 'The certificate request’s signature does not verify', {
    details: [{ field: 'body.csr', message: 'is not signed by the key it carries' }],
  });
export const invalidCertificate = () =>
  new AppError(400, 'INVALID_CERTIFICATE', 'The certificate is invalid', {
    details: [{ field: 'body.certificate', message: 'is not a PEM certificate' }],
  });
export const keyReused = () =>
  new AppError(400, 'KEY_REUSED', 'A renewal must certify a new key', {
    details: [{ field: 'body.csr', message: 'carries the current certificate’s key' }],
  });

/**
 * One answer for an unknown, used or expired token: which tokens exist is nobody's business, and
 * the remedy is the same (an administrator regenerates it).
 */
export const invalidEnrollmentToken = () =>
  new AppError(
    401,
    'INVALID_ENROLLMENT_TOKEN',
    'The enrolment token is unknown, already used or expired; ask an administrator to regenerate it',
  );
/** The certificate is not this device's, or the signature was not made with its key. */
export const renewalUnauthorized = () =>
  new AppError(
    401,
    'RENEWAL_UNAUTHORIZED',
    'The renewal must be signed with the key of this device’s current certificate',
  );
export const certificateRevoked = () =>
  new AppError(401, 'CERTIFICATE_REVOKED', 'The certificate is revoked; the device must enrol again');
export const certificateExpired = () =>
  new AppError(401, 'CERTIFICATE_EXPIRED', 'The certificate has expired; the device must enrol again');
