import { AppError, ConflictError, ForbiddenError, NotFoundError } from '../../shared/http/errors.ts';

/** The vision module's error codes, answered in the general error envelope. */
export const cameraNotFound = () => new NotFoundError('Camera', 'CAMERA_NOT_FOUND');
export const edgeNotFound = () => new NotFoundError('Edge device', 'EDGE_NOT_FOUND');
export const locationNotFound = () => new NotFoundError('Location', 'LOCATION_NOT_FOUND');
export const modelNotFound = () =>
  new AppError(404, 'MODEL_NOT_FOUND', 'No store of this tenant has reported figures for this model');
export const occupancyNotFound = () =>
  new AppError(404, 'OCCUPANCY_NOT_FOUND', 'The store has not synced an occupancy count yet');
export const driveThruNotFound = () =>
  new AppError(404, 'DRIVE_THRU_NOT_FOUND', 'No drive-thru lane camera has synced its lane state here yet');
/** The cloud sees no frames: it can only answer what the store's own check found. */
export const verificationNotFound = () =>
  new AppError(
    404,
    'VERIFICATION_NOT_FOUND',
    'The store has not synced a verification of this order at this camera',
  );

export const locationRequired = () =>
  new AppError(
    400,
    'LOCATION_REQUIRED',
    'The tenant has several drive-thru lanes; name the store with location_id (or the lane with camera_id)',
    { details: [{ field: 'query.location_id', message: 'is required when the tenant has several lanes' }] },
  );
export const cameraRequired = () =>
  new AppError(400, 'CAMERA_REQUIRED', 'The store has several drive-thru lanes; name one with camera_id', {
    details: [{ field: 'query.camera_id', message: 'is required when the store has several lanes' }],
  });
export const settingsLocationRequired = () =>
  new AppError(400, 'LOCATION_REQUIRED', 'The drive-thru settings are a store’s: name it with location_id', {
    details: [{ field: 'query.location_id', message: 'is required (in the query or the body)' }],
  });
export const invalidPeriod = (message: string) =>
  new AppError(400, 'INVALID_REQUEST', 'The request is invalid', {
    details: [{ field: 'query.period', message }],
  });
export const invalidCursor = () =>
  new AppError(400, 'INVALID_REQUEST', 'The request is invalid', {
    details: [{ field: 'query.cursor', message: 'is not a next_cursor this list gave' }],
  });

/** A session signed in at one store (a staff PIN) sees that store only, as sync status does. */
export const otherLocation = () => new ForbiddenError('Your session is for another location');

export const edgeNotManaged = () =>
  new ConflictError(
    'The store’s appliance is not an enrolled MDM device, so the cloud cannot send it commands; enrol it through /v1/mdm first',
    'EDGE_NOT_MANAGED',
  );
export const streamLimitBelowEnabled = (limit: number, enabled: number) =>
  new ConflictError(
    `${enabled} cameras are enabled at this store, more than a max_concurrent_streams of ${limit}: disable cameras first`,
    'CAMERA_STREAM_LIMIT',
    [{ field: 'body.max_concurrent_streams', message: `is below the ${enabled} cameras enabled` }],
  );
