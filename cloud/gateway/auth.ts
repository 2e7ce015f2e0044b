import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { type AppError, ForbiddenError, UnauthorizedError } from '../../shared/http/errors.ts';
import { sessionEnded } from '../../shared/identity/errors.ts';
import { type AccessClaims, invalidToken } from '../../shared/identity/tokens.ts';
import type { Role } from '../../shared/roles.ts';
import type { SessionService, TokenService } from '../identity/index.ts';

export interface AuthContext {
  userId: string;
  tenantId: string;
  email: string;
  roles: string[];
  sessionId: string;
  locationId: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Claims of a bearer token whose signature and expiry checked out; the session is not yet checked. */
    claims: AccessClaims | null;
    claimsError: AppError | null;
    /** Set by `app.authenticate()` once the session is known to be live. */
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /** A route's onRequest guard: a live session, and one of `roles` when given. */
    authenticate(roles?: readonly Role[]): onRequestAsyncHookHandler;
  }
}

export const requireAuth = (request: FastifyRequest): AuthContext => {
  if (!request.auth) throw new UnauthorizedError();
  return request.auth;
};

/** Reads the bearer token, if any; a token seen before costs a map lookup, not a signature check. */
function readBearer(request: FastifyRequest, tokens: TokenService, done: () => void) {
  const header = request.headers.authorization;
  if (!header) return done();
  const [scheme, token] = header.split(' ');
  if (scheme?.toLowerCase() !== 'bearer' || !token) {
    request.claimsError = invalidToken();
    return done();
  }
  const cached = tokens.cachedAccess(token);
  if (cached) {
    request.claims = cached;
    return done();
  }
  tokens.verifyAccess(token).then(
    (claims) => {
      request.claims = claims;
      done();
    },
    (error: AppError) => {
      request.claimsError = error;
      done();
    },
  );
}

/**
 * Bearer authentication for the gateway. Reading the token is global and cheap (so the rate limiter
 * can key by tenant); the session is checked on every guarded request, so ending it takes effect
 * at once on every replica.
 */
export const authPlugin = fp(
  async function auth(app: FastifyInstance, opts: { tokens: TokenService; sessions: SessionService }) {
    app.decorateRequest('claims', null);
    app.decorateRequest('claimsError', null);
    app.decorateRequest('auth', null);
    app.addHook('onRequest', (request, _reply, done) => readBearer(request, opts.tokens, done));

    app.decorate('authenticate', (roles?: readonly Role[]) => async (request: FastifyRequest) => {
      if (request.claimsError) throw request.claimsError;
      const claims = request.claims;
      if (!claims) throw new UnauthorizedError('MISSING_TOKEN', 'A bearer token is required');
      const session = await opts.sessions.activeState(claims.session_id);
      if (!session || session.tenant_id !== claims.tenant_id || session.user_id !== claims.sub)
        throw sessionEnded();
      request.auth = {
        userId: claims.sub,
        tenantId: claims.tenant_id,
        email: claims.email,
        roles: claims.roles,
        sessionId: claims.session_id,
        locationId: session.location_id,
      };
      if (roles && !roles.some((role) => claims.roles.includes(role))) throw new ForbiddenError();
    });
  },
  { name: 'auth', dependencies: ['conventions'] },
);
