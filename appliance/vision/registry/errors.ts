import {
  ConflictError,
  type ErrorDetail,
  InvalidRequestError,
  NotFoundError,
} from '../../../shared/http/errors.ts';

export const cameraNotFound = () => new NotFoundError('Camera', 'CAMERA_NOT_FOUND');
export const edgeNotFound = () => new NotFoundError('Edge device', 'EDGE_NOT_FOUND');

export const cameraIdTaken = (id: string) =>
  new ConflictError(`A camera with id "${id}" is already registered`, 'CAMERA_ID_TAKEN', [
    { field: 'body.id', message: 'is taken' },
  ]);

export const cameraNameTaken = (name: string) =>
  new ConflictError(`A camera named "${name}" is already registered`, 'CAMERA_NAME_TAKEN', [
    { field: 'body.name', message: 'is taken' },
  ]);

export const streamLimitReached = (limit: number) =>
  new ConflictError(
    `This appliance runs at most ${limit} camera streams (max_concurrent_streams) and ${limit} are enabled: disable a camera or raise the limit first`,
    'CAMERA_STREAM_LIMIT',
  );

export const streamLimitBelowEnabled = (limit: number, enabled: number) =>
  new ConflictError(
    `${enabled} cameras are enabled, more than a max_concurrent_streams of ${limit}: disable cameras first`,
    'CAMERA_STREAM_LIMIT',
    [{ field: 'body.max_concurrent_streams', message: `is below the ${enabled} cameras enabled` }],
  );

export const invalidZones = (details: ErrorDetail[]) =>
  new InvalidRequestError('The zones do not fit the camera’s inference resolution', details);
