import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// An incoming id is kept so a request can be followed across the appliance, gateway and workers,
// but only when it is a plain token: anything else could inject into logs or headers.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

export function requestIdFrom(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  if (typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming)) return incoming;
  // Request ids need uniqueness, not time order: the random UUID is the cheaper one.
  return randomUUID();
}
