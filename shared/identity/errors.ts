/**
 * The login and session refusals a client meets from either issuer, with the same codes and words,
 * so a terminal handles the cloud and its store alike.
 */
import { ForbiddenError, UnauthorizedError } from '../http/errors.ts';

// One answer for "no such account" and "wrong secret", so logins cannot probe who exists.
export const invalidCredentials = () =>
  new UnauthorizedError('INVALID_CREDENTIALS', 'The email, username, password or PIN is incorrect');
export const notAMember = () =>
  new ForbiddenError('This account has no access to that tenant', 'TENANT_ACCESS_DENIED');
export const accountDisabled = () => new ForbiddenError('The account is disabled', 'ACCOUNT_DISABLED');
export const sessionEnded = () =>
  new UnauthorizedError('SESSION_ENDED', 'The session has ended; log in again');
