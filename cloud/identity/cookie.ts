/**
 * Browser sessions: a web client keeps its refresh token in an http-only cookie, out of reach of any
 * script on the page, and its access token in memory only. It asks for this with the header
 * `X-Refresh-Token-Transport: cookie` on every request that issues, spends or ends a token pair;
 * without the header nothing changes, so API clients keep the token in the body.
 *
 * The header is also the CSRF defence: a cross-site form or image cannot set a custom header, and
 * a cross-site fetch that sets one needs a CORS preflight this gateway never grants; SameSite=Strict
 * keeps the cookie off cross-site requests besides, and Path=/v1/auth off every other route.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestError, UnauthorizedError } from '../../shared/http/errors.ts';

const REFRESH_TRANSPORT_HEADER = 'x-refresh-token-transport';
const REFRESH_COOKIE = 'refresh_token';
const COOKIE_PATH = '/v1/auth';

/** The header, documented on the routes that honour it. */
export const RefreshTransportHeadersSchema = Type.Object({
  [REFRESH_TRANSPORT_HEADER]: Type.Optional(
    Type.Literal('cookie', {
      description: `The refresh token travels in the http-only cookie ${REFRESH_COOKIE} (Path=${COOKIE_PATH}) instead of the body`,
    }),
  ),
});

const missingRefreshCookie = () =>
  new UnauthorizedError(
    'REFRESH_TOKEN_MISSING',
    `No ${REFRESH_COOKIE} cookie came with the request; log in again`,
  );

const wantsCookie = (request: FastifyRequest) => request.headers[REFRESH_TRANSPORT_HEADER] === 'cookie';

/** One cookie's value from a Cookie header; the first wins (the most specific path comes first). */
function cookieValue(header: string | undefined, name: string) {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

function refreshCookie(request: FastifyRequest, value: string, maxAgeSeconds: number) {
  const attributes = [
    `${REFRESH_COOKIE}=${value}`,
    'HttpOnly',
    'SameSite=Strict',
    `Path=${COOKIE_PATH}`,
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (request.protocol === 'https') attributes.push('Secure');
  return attributes.join('; ');
}

type WithoutRefresh<T> = T extends unknown ? Omit<T, 'refresh_token'> : never;

/** The refresh token as each client wants it: in the body, or in the cookie and not in the body. */
export function createRefreshTransport(refreshTtlSeconds: number) {
  return {
    deliver<T extends { type: string; refresh_token?: string }>(
      request: FastifyRequest,
      reply: FastifyReply,
      result: T,
    ): WithoutRefresh<T> {
      if (!wantsCookie(request) || result.refresh_token === undefined) return result as WithoutRefresh<T>;
      const { refresh_token, ...rest } = result;
      reply.header('set-cookie', refreshCookie(request, refresh_token, refreshTtlSeconds));
      return rest as WithoutRefresh<T>;
    },

    /** The body's refresh token; without one, the cookie's when the client keeps it there. */
    tokenOf(request: FastifyRequest, bodyToken: string | undefined) {
      if (bodyToken !== undefined) return bodyToken;
      if (!wantsCookie(request))
        throw new InvalidRequestError('The request is invalid', [
          { field: 'body.refresh_token', message: 'is required' },
        ]);
      const token = cookieValue(request.headers.cookie, REFRESH_COOKIE);
      if (token === undefined) throw missingRefreshCookie();
      return token;
    },

    /** Ends the cookie with the session it belonged to. */
    clear(request: FastifyRequest, reply: FastifyReply) {
      if (wantsCookie(request)) reply.header('set-cookie', refreshCookie(request, '', 0));
    },
  };
}
