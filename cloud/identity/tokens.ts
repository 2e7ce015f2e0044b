import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../shared/clock.ts';
import { unixSeconds } from '../../shared/clock.ts';
import { UnauthorizedError } from '../../shared/http/errors.ts';
import {
  ACCESS_TOKEN_TYP,
  type AccessClaims,
  expiredToken,
  invalidToken,
  SIGNING_ALG,
} from '../../shared/identity/tokens.ts';
import type { KeyRing } from './keys.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface RefreshClaims {
  sub: string;
  tenant_id: string;
  session_id: string;
  jti: string;
  iat: number;
  exp: number;
}

// The JOSE header, not a claim, tells the two kinds apart, so neither can stand in for the other.
const REFRESH_TYP = 'refresh+jwt';
const VERIFIED_CACHE_LIMIT = 50_000;

export const invalidRefreshToken = () =>
  new UnauthorizedError('INVALID_REFRESH_TOKEN', 'The refresh token is invalid or expired; log in again');

export function createTokenService(deps: { keys: KeyRing; clock: Clock; refreshTtlSeconds: number }) {
  const { keys, clock } = deps;
  // Tokens are immutable, so a signature checked once stays checked until the token expires;
  // session state is still read on every request by the auth plugin.
  const verified = new Map<string, AccessClaims>();

  async function sign(payload: Record<string, unknown>, typ: string, ttlSeconds: number) {
    const key = await keys.signingKey();
    const iat = unixSeconds(clock.now());
    return new SignJWT(payload)
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ })
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .sign(key.privateKey);
  }

  async function verify(token: string, typ: string) {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = header.kid ? await keys.verificationKey(header.kid) : undefined;
        if (!key) throw new joseErrors.JWKSNoMatchingKey();
        return key;
      },
      { algorithms: [SIGNING_ALG], typ, currentDate: clock.now() },
    );
    return payload;
  }

  function remember(token: string, claims: AccessClaims) {
    if (verified.size >= VERIFIED_CACHE_LIMIT) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
  }

  return {
    issueAccess: (claims: Omit<AccessClaims, 'iat' | 'exp'>) =>
      sign({ ...claims }, ACCESS_TOKEN_TYP, ACCESS_TOKEN_TTL_SECONDS),
    issueRefresh: (claims: Omit<RefreshClaims, 'iat' | 'exp'>) =>
      sign({ ...claims }, REFRESH_TYP, deps.refreshTtlSeconds),

    /** Claims of a token whose signature was already checked and which has not expired yet. */
    cachedAccess(token: string): AccessClaims | undefined {
      const cached = verified.get(token);
      if (cached && cached.exp > unixSeconds(clock.now())) return cached;
      return undefined;
    },

    async verifyAccess(token: string): Promise<AccessClaims> {
      const cached = verified.get(token);
      if (cached) {
        if (cached.exp > unixSeconds(clock.now())) return cached;
        verified.delete(token);
        throw expiredToken();
      }
      try {
        const claims = (await verify(token, ACCESS_TOKEN_TYP)) as unknown as AccessClaims;
        remember(token, claims);
        return claims;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw expiredToken();
        throw invalidToken();
      }
    },

    async verifyRefresh(token: string): Promise<RefreshClaims> {
      try {
        return (await verify(token, REFRESH_TYP)) as unknown as RefreshClaims;
      } catch {
        throw invalidRefreshToken();
      }
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
