import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { type Clock, unixSeconds } from '../../shared/clock.ts';
import {
  ACCESS_TOKEN_TYP,
  type AccessClaims,
  asAccessClaims,
  expiredToken,
  invalidToken,
  SIGNING_ALG,
} from '../../shared/identity/tokens.ts';
import type { CloudJwks } from './cloud-jwks.ts';
import type { ApplianceKeys } from './keys.ts';

export type { AccessClaims };

/**
 * A session lasts a shift. There are no refresh tokens on the appliance: when the shift's token
 * expires, the staff member logs in again with their PIN, which works with the cloud unreachable.
 */
export const APPLIANCE_SESSION_TTL_SECONDS = 12 * 3600;

/** Which key signed a token: the appliance's own, or one of the cloud's. */
export type TokenIssuer = 'appliance' | 'cloud';

export interface VerifiedToken {
  issuer: TokenIssuer;
  claims: AccessClaims;
}

/** Signs the appliance's access tokens and verifies them and the cloud's. */
export function createApplianceTokens(deps: {
  keys: ApplianceKeys;
  cloudJwks?: CloudJwks | undefined;
  clock: Clock;
}) {
  const { keys, cloudJwks, clock } = deps;

  return {
    /** A token with exactly the cloud's claims, signed by the appliance's key. */
    issue(claims: Omit<AccessClaims, 'iat' | 'exp'>, ttlSeconds = APPLIANCE_SESSION_TTL_SECONDS) {
      const iat = unixSeconds(clock.now());
      const { sub, tenant_id, email, roles, session_id } = claims;
      return new SignJWT({ sub, tenant_id, email, roles, session_id })
        .setProtectedHeader({ alg: SIGNING_ALG, kid: keys.kid, typ: ACCESS_TOKEN_TYP })
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .sign(keys.privateKey);
    },

    async verify(token: string): Promise<VerifiedToken> {
      let issuer: TokenIssuer = 'appliance';
      try {
        const { payload } = await jwtVerify(
          token,
          async (header) => {
            if (header.kid === keys.kid) return keys.publicKey;
            const key = header.kid && cloudJwks ? await cloudJwks.key(header.kid) : undefined;
            if (!key) throw new joseErrors.JWKSNoMatchingKey();
            issuer = 'cloud';
            return key;
          },
          { algorithms: [SIGNING_ALG], typ: ACCESS_TOKEN_TYP, currentDate: clock.now() },
        );
        return { issuer, claims: asAccessClaims(payload) };
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw expiredToken();
        throw invalidToken();
      }
    },
  };
}

export type ApplianceTokens = ReturnType<typeof createApplianceTokens>;
