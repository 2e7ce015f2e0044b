import { AppError, ConflictError, NotFoundError, UnauthorizedError } from '../../shared/http/errors.ts';

/** The release module's error codes, answered in the general error envelope. */
export const releaseNotFound = () => new NotFoundError('Release', 'RELEASE_NOT_FOUND');
export const uploadNotFound = () => new NotFoundError('Upload', 'UPLOAD_NOT_FOUND');

export const releaseExists = (version: string) =>
  new ConflictError(`This tenant already has release ${version}; build a new version`, 'RELEASE_EXISTS', [
    { field: 'body', message: `release.json names version ${version}, which exists` },
  ]);
export const releaseRetired = () =>
  new ConflictError('The release is retired: it starts no new rollouts', 'RELEASE_RETIRED');
export const publicUrlUnknown = () =>
  new ConflictError(
    'The cloud does not know the address appliances reach it by: set CLOUD_PUBLIC_URL',
    'PUBLIC_URL_UNSET',
  );
export const rotationConflict = () =>
  new ConflictError('Another rotation of the update key finished first; look again', 'ROTATION_CONFLICT');

/** The server's offset goes in the message, the details and `Upload-Offset`: a client asks nothing more. */
export const offsetMismatch = (offset: number) =>
  new AppError(409, 'UPLOAD_OFFSET_MISMATCH', `The upload is at byte ${offset}; send the chunk from there`, {
    details: [{ field: 'headers.upload-offset', message: `must be ${offset}, the upload's offset` }],
    headers: { 'upload-offset': String(offset) },
  });
export const uploadBusy = () =>
  new AppError(
    409,
    'UPLOAD_BUSY',
    'Another request is still writing to this upload (perhaps the one whose answer was lost); ask for its offset and retry',
    { headers: { 'retry-after': '5' } },
  );
export const uploadEnded = (state: string) =>
  new ConflictError(`The upload is ${state}: it takes no more bytes`, 'UPLOAD_NOT_OPEN');
export const uploadExpired = () =>
  new AppError(410, 'UPLOAD_EXPIRED', 'The upload expired and its bytes were removed; start a new upload');
export const chunkPastEnd = (size: number) =>
  new AppError(413, 'UPLOAD_EXCEEDS_SIZE', `The chunk runs past the upload's size of ${size} bytes`);

export const tooLarge = (limit: number) =>
  new AppError(413, 'RELEASE_TOO_LARGE', `A release archive may be at most ${limit} bytes`);
export const emptyUpload = () =>
  new AppError(400, 'EMPTY_UPLOAD', 'The upload carries no bytes', {
    details: [{ field: 'body', message: 'send the release archive (.tar.gz) as the raw body' }],
  });
export const incompleteUpload = (received: number, declared: number) =>
  new AppError(400, 'INCOMPLETE_UPLOAD', 'The upload ended before its declared length', {
    details: [{ field: 'body', message: `${received} of ${declared} bytes arrived` }],
  });
export const unsupportedType = (accepted: string) =>
  new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `Send the bytes as ${accepted}`);

export const digestMismatch = (actual: string, declared: string) =>
  new AppError(422, 'SHA256_MISMATCH', 'The bytes do not match the declared SHA-256', {
    details: [{ field: 'sha256', message: `the bytes hash to ${actual}, ${declared} was declared` }],
  });
export const archiveInvalid = (message: string) =>
  new AppError(422, 'RELEASE_ARCHIVE_INVALID', 'The upload is not a readable release archive (.tar.gz)', {
    details: [{ field: 'body', message }],
  });
export const releaseJsonInvalid = (message: string) =>
  new AppError(422, 'RELEASE_JSON_INVALID', 'The archive’s release.json is missing or unusable', {
    details: [{ field: 'body.release.json', message }],
  });

export const rangeNotSatisfiable = (size: number) =>
  new AppError(416, 'RANGE_NOT_SATISFIABLE', 'The requested range lies outside the artifact', {
    headers: { 'content-range': `bytes */${size}` },
  });
/** One answer for a malformed, tampered, expired or other release's token: the remedy is a new manifest. */
export const invalidDownloadToken = () =>
  new UnauthorizedError(
    'INVALID_DOWNLOAD_TOKEN',
    'The download token is invalid, expired or for another release; ask for a new update manifest',
  );
