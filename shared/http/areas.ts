/**
 * Which envelope an error answers in when no route has taken the request yet: a URL the router
 * refuses (a path segment too long, a malformed escape), a path no route serves, or a request the
 * HTTP parser refuses (headers or URL too large, a time-out, malformed bytes). The URL decides: an
 * area with its own envelope (billing, P&L) says so with `useErrorArea`; the rest is general.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorFormat, errorBodies } from './envelope.ts';
import { CODES_BY_STATUS, createErrorHandler } from './error-handler.ts';
import { AppError } from './errors.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

export type AreaErrorHandler = (
  error: FastifyError | AppError,
  request: FastifyRequest,
  reply: FastifyReply,
) => unknown;

export interface ErrorArea {
  prefix: string;
  format: ErrorFormat;
  handler: AreaErrorHandler;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Areas with an envelope of their own, longest prefix first; the general one is last. */
    errorAreas: ErrorArea[];
  }
}

/** Longest path segment the router matches; longer ones answer 414 (no id of ours is near it). */
export const MAX_PARAM_LENGTH = 256;

const GENERAL: ErrorArea = { prefix: '', format: 'general', handler: createErrorHandler('general') };

/** The module's errors, and those raised before routing under its prefix, in its envelope. */
export function useErrorArea(app: FastifyInstance, format: ErrorFormat, handler: AreaErrorHandler) {
  app.setErrorHandler(handler);
  app.errorAreas.push({ prefix: app.prefix, format, handler });
  app.errorAreas.sort((a, b) => b.prefix.length - a.prefix.length);
}

/** A new app's areas: the general one, which every URL falls into last. */
export const initialErrorAreas = (): ErrorArea[] => [GENERAL];

const inArea = (path: string, prefix: string) =>
  path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`) || prefix === '';

export function areaOf(areas: ErrorArea[] | undefined, url: string): ErrorArea {
  return areas?.find((area) => inArea(url, area.prefix)) ?? GENERAL;
}

/** The error Fastify raises before routing, as ours: the client learns what to fix, not our code. */
function beforeRouting(error: FastifyError): AppError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new AppError(414, 'URI_TOO_LONG', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`);
  if (error.code === 'FST_ERR_BAD_URL')
    return new AppError(400, 'INVALID_REQUEST', 'The URL holds a malformed percent-encoding');
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  return new AppError(
    status,
    CODES_BY_STATUS[status] ?? 'INVALID_REQUEST',
    'The request could not be routed',
  );
}

/** Fastify's `frameworkErrors`: a refused URL answers in its area's envelope, with a request id. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header(REQUEST_ID_HEADER, request.id);
  return areaOf(request.server.errorAreas, request.url).handler(beforeRouting(error), request, reply);
}

/**
 * Node refuses a request line and headers over 16 KiB together; when the URL takes more than half
 * of that, the URL is what is too long (414), otherwise the headers are (431).
 */
const LONG_URL_BYTES = 8 * 1024;

/** The URL of the request line at the start of what the parser refused, when it is there. */
function urlOf(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  return /^[A-Z]{3,10} (\S+)/.exec(head)?.[1];
}

function parserRefusal(error: NodeJS.ErrnoException, url: string | undefined) {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new AppError(408, 'REQUEST_TIMEOUT', 'The request did not arrive in time');
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    if (url && url.length > LONG_URL_BYTES) return new AppError(414, 'URI_TOO_LONG', 'The URL is too long');
    return new AppError(431, 'HEADERS_TOO_LARGE', 'The request line and headers are too large');
  }
  return new AppError(400, 'INVALID_REQUEST', 'The request is not valid HTTP');
}

/**
 * Fastify's `clientErrorHandler`: the HTTP parser refused the request, so there is no request
 * object, only the socket. The answer is written by hand, in the envelope of the URL's area when
 * the request line could be read, and the connection is closed.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const url = urlOf((error as { rawPacket?: unknown }).rawPacket);
  const refusal = parserRefusal(error, url);
  const area = areaOf(this.errorAreas, url ?? '');
  const requestId = randomUUID();
  const body = JSON.stringify(
    errorBodies[area.format]({ code: refusal.code, message: refusal.message, details: [], requestId }),
  );
  this.log.info(
    { code: refusal.code, status: refusal.status, reason: error.code },
    'request refused by the HTTP parser',
  );
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(error);
}
