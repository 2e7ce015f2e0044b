/**
 * The access token both issuers sign and both verify: the cloud's and an appliance's tokens carry
 * the same claims under the same header type and algorithm, so a client reads them alike and an
 * appliance accepts the cloud's while the store is offline.
 */
import type { JWTPayload } from 'jose';
import { UnauthorizedError } from '../http/errors.ts';

export const SIGNING_ALG = 'ES256';

// The JOSE header, not a claim, tells an access token from a refresh token.
export const ACCESS_TOKEN_TYP = 'at+jwt';

/** Exactly these claims; nothing else rides in an access token. */
export interface AccessClaims {
  sub: string;
  tenant_id: string;
  email: string;
  roles: string[];
  session_id: string;
  iat: number;
  exp: number;
}

export const invalidToken = () => new UnauthorizedError('INVALID_TOKEN', 'The access token is invalid');
export const expiredToken = () => new UnauthorizedError('TOKEN_EXPIRED', 'The access token has expired');

const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** A verified payload read as access claims; anything missing or mistyped makes the token invalid. */
export function asAccessClaims(payload: JWTPayload): AccessClaims {
  const { sub, tenant_id, email, roles, session_id, iat, exp } = payload;
  const rolesOk = Array.isArray(roles) && roles.every((role) => typeof role === 'string');
  if (!isString(sub) || !isString(tenant_id) || !isString(email) || !isString(session_id) || !rolesOk)
    throw invalidToken();
  if (typeof iat !== 'number' || typeof exp !== 'number') throw invalidToken();
  return { sub, tenant_id, email, roles: roles as string[], session_id, iat, exp };
}
