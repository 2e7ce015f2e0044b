import { AppError, ConflictError, InvalidRequestError, NotFoundError } from '../../../shared/http/errors.ts';

/** The model store's error codes, answered in the general error envelope. */
export const modelNotFound = () => new NotFoundError('Model', 'MODEL_NOT_FOUND');
export const versionNotFound = () => new NotFoundError('Model version', 'MODEL_VERSION_NOT_FOUND');
export const edgeNotFound = () => new NotFoundError('Edge appliance', 'EDGE_NOT_FOUND');
export const syncNotFound = () => new NotFoundError('Model sync', 'MODEL_SYNC_NOT_FOUND');

export const manifestNameMismatch = (modelId: string) =>
  new InvalidRequestError('The manifest describes another model', [
    { field: 'body.name', message: `must be "${modelId}", the model of the path` },
  ]);
export const versionExists = () =>
  new ConflictError(
    'This version is registered already with another manifest; register a new version',
    'MODEL_VERSION_EXISTS',
  );
export const fileMissing = (modelId: string, version: string) =>
  new ConflictError(`Version ${version} of ${modelId} has no uploaded file yet`, 'MODEL_FILE_MISSING');
export const noDeployVersion = (modelId: string) =>
  new ConflictError(
    `${modelId} has no deploy version: name one in the request or mark one`,
    'NO_DEPLOY_VERSION',
  );
export const nothingToSync = () =>
  new ConflictError('No model of this tenant has a deploy version to sync', 'NOTHING_TO_SYNC');
export const edgeNotManaged = (why: string) =>
  new ConflictError(
    `The edge is not a managed appliance (${why}): model syncs travel as device commands`,
    'EDGE_NOT_MANAGED',
  );

export const digestMismatch = (actual: string, expected: string) =>
  new AppError(400, 'MODEL_DIGEST_MISMATCH', 'The uploaded bytes do not match the manifest’s sha256', {
    details: [{ field: 'body', message: `sha256 is ${actual}, the manifest says ${expected}` }],
  });
export const sizeMismatch = (received: number, declared: number) =>
  new AppError(400, 'INCOMPLETE_UPLOAD', 'The upload ended before its declared length', {
    details: [{ field: 'body', message: `${received} of ${declared} bytes arrived` }],
  });
export const emptyUpload = () =>
  new AppError(400, 'EMPTY_UPLOAD', 'The upload carries no bytes', {
    details: [{ field: 'body', message: 'send the .onnx file as application/octet-stream' }],
  });
export const tooLarge = (limit: number) =>
  new AppError(413, 'MODEL_TOO_LARGE', `A model file may be at most ${limit} bytes`);
export const rangeNotSatisfiable = (size: number) =>
  new AppError(416, 'RANGE_NOT_SATISFIABLE', 'The requested range lies outside the file', {
    headers: { 'content-range': `bytes */${size}` },
  });

/** The same answer sync gives a missing or wrong appliance credential. */
export const applianceUnauthorized = () =>
  new AppError(401, 'APPLIANCE_UNAUTHORIZED', 'A valid appliance credential is required', {
    headers: { 'www-authenticate': 'Appliance' },
  });
export const notOctetStream = () =>
  new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the model file as application/octet-stream');
