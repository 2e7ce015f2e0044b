import {
  AppError,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
  UnauthorizedError,
} from '../../shared/http/errors.ts';
import { invalidCredentials } from '../../shared/identity/errors.ts';

// The refusals an appliance gives too are the shared ones.
export {
  accountDisabled,
  invalidCredentials,
  notAMember,
  sessionEnded,
} from '../../shared/identity/errors.ts';

export const tenantRequired = (slugs: string[]) =>
  new InvalidRequestError('This account belongs to several tenants; say which one with tenant_slug', [
    { field: 'body.tenant_slug', message: `is required: one of ${slugs.join(', ')}` },
  ]);
export const tenantSuspended = () => new ForbiddenError('The tenant is suspended', 'TENANT_SUSPENDED');
export const locationUnknown = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.location_id', message: 'is not a location of this tenant' },
  ]);
export const ssoRequired = () =>
  new ForbiddenError(
    'This tenant requires single sign-on; sign in with its identity provider',
    'SSO_REQUIRED',
  );
export const pinNotSet = () => invalidCredentials();

export const refreshReused = () =>
  new UnauthorizedError(
    'REFRESH_TOKEN_REUSED',
    'This refresh token was already used; the session has been revoked',
  );

export const challengeInvalid = () =>
  new UnauthorizedError('INVALID_CHALLENGE', 'The MFA challenge is unknown or already used');
export const challengeExpired = () =>
  new UnauthorizedError('CHALLENGE_EXPIRED', 'The MFA challenge has expired; log in again');
export const invalidCode = () =>
  new UnauthorizedError('INVALID_MFA_CODE', 'The verification code is incorrect');
export const codeReplayed = () =>
  new UnauthorizedError('MFA_CODE_REUSED', 'This verification code was already used; wait for the next one');
export const factorNotFound = () => new NotFoundError('MFA factor', 'FACTOR_NOT_FOUND');
export const factorAlreadyEnabled = () =>
  new AppError(409, 'FACTOR_ALREADY_ENABLED', 'The factor is already enabled');
