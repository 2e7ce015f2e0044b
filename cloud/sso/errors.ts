import {
  AppError,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
  UnauthorizedError,
} from '../../shared/http/errors.ts';

export const providerNotFound = () => new NotFoundError('SSO provider', 'SSO_PROVIDER_NOT_FOUND');
export const providerDisabled = () =>
  new ForbiddenError('This SSO provider is disabled', 'SSO_PROVIDER_DISABLED');
export const redirectUriNotAllowed = (field: string) =>
  new InvalidRequestError('The request is invalid', [
    { field, message: 'is not one of the redirect URIs registered for this provider' },
  ]);
export const nameTaken = () =>
  new AppError(409, 'SSO_PROVIDER_EXISTS', 'This tenant already has an SSO provider with that name');

/** Unknown, used or expired: one answer, so a state cannot be probed. */
export const loginInvalid = () =>
  new UnauthorizedError(
    'SSO_STATE_INVALID',
    'This sign-in is unknown, expired or already completed; start again',
  );
export const idpRefused = (reason: string) =>
  new UnauthorizedError('SSO_IDP_REJECTED', `The identity provider refused the sign-in (${reason})`);
export const assertionInvalid = (reason: string) =>
  new UnauthorizedError('SSO_ASSERTION_INVALID', `The identity provider's answer failed a check (${reason})`);
export const emailUnverified = () =>
  new ForbiddenError('The identity provider did not vouch for an e-mail address', 'SSO_EMAIL_UNVERIFIED');
export const domainNotAllowed = () =>
  new ForbiddenError('This e-mail domain may not sign in with this provider', 'SSO_DOMAIN_NOT_ALLOWED');
export const notProvisioned = () =>
  new ForbiddenError(
    'No account here matches this identity, and this provider does not create accounts',
    'SSO_USER_NOT_PROVISIONED',
  );
export const accountConflict = () =>
  new AppError(
    409,
    'SSO_ACCOUNT_CONFLICT',
    'An account with this e-mail exists outside this tenant; an administrator must add it first',
  );
export const noAccount = () =>
  new ForbiddenError('No account here matches this identity', 'SSO_ACCOUNT_NOT_FOUND');
export const socialProviderNotFound = () => new NotFoundError('OAuth provider', 'OAUTH_PROVIDER_NOT_FOUND');
