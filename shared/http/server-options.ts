import { type FastifyServerOptions, LogController } from 'fastify';
import type { LoggerOptions } from 'pino';
import { requestIdFrom } from './request-id.ts';

/** Secrets that must never reach a log line, wherever they appear in a request. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.pin',
  '*.code',
  '*.refresh_token',
  '*.access_token',
  '*.secret',
];

/**
 * Fastify options both processes share: request ids, strict validation, redacted logs.
 * `trustProxy` only behind a proxy we run: otherwise a client could choose its own address.
 */
export function serverOptions(logger: LoggerOptions | false, trustProxy = false): FastifyServerOptions {
  return {
    logger: logger === false ? false : { ...logger, redact: REDACTED_PATHS },
    genReqId: requestIdFrom,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    trustProxy,
    ajv: {
      customOptions: {
        // Unknown fields are refused, not silently dropped, and every bad field is reported.
        removeAdditional: false,
        allErrors: true,
        coerceTypes: 'array',
        useDefaults: true,
      },
    },
  };
}
