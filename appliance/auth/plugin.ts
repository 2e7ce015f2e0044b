import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ForbiddenError, UnauthorizedError } from '../../shared/http/errors.ts';
import { invalidToken } from '../../shared/identity/tokens.ts';
import type { Role } from '../../shared/roles.ts';
import type { AuthContext, StaffAuth } from './service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `app.authenticate()` once the token and the session behind it check out. */
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /** A route's onRequest guard: a live session, and one of `roles` when given. */
    authenticate(roles?: readonly Role[]): onRequestAsyncHookHandler;
  }
}

export interface ApplianceAuthOptions {
  auth: StaffAuth;
}

export const requireAuth = (request: FastifyRequest): AuthContext => {
  if (!request.auth) throw new UnauthorizedError();
  return request.auth;
};

function bearerToken(request: FastifyRequest) {
  const header = request.headers.authorization;
  if (!header) throw new UnauthorizedError('MISSING_TOKEN', 'A bearer token is required');
  const [scheme, token] = header.split(' ');
  if (scheme?.toLowerCase() !== 'bearer' || !token) throw invalidToken();
  return token;
}

/**
 * Bearer authentication on the appliance, answering as the cloud gateway does. It accepts the
 * appliance's own tokens (while their session is live) and the cloud's (for this tenant's active
 * staff), so a terminal logged in at the cloud keeps working when it talks to the store.
 */
export const applianceAuthPlugin = fp(
  async function applianceAuth(app: FastifyInstance, opts: ApplianceAuthOptions) {
    app.decorateRequest('auth', null);
    app.decorate('authenticate', (roles?: readonly Role[]) => async (request: FastifyRequest) => {
      const auth = await opts.auth.authenticate(bearerToken(request));
      request.auth = auth;
      if (roles && !roles.some((role) => auth.roles.includes(role))) throw new ForbiddenError();
    });
  },
  { name: 'appliance-auth', dependencies: ['conventions'] },
);
