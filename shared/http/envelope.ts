import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { ErrorDetail } from './errors.ts';

/**
 * The response envelopes of the public API. The general form is the default; some areas have
 * their own (auth wraps login results in `status`, P&L uses `{success, data}` / `{detail}`,
 * billing errors are `{error, message}`), and a module picks its error form when it registers.
 */
export const MetaSchema = Type.Object({
  request_id: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
});
export type Meta = Static<typeof MetaSchema>;

export const PageMetaSchema = Type.Object({
  request_id: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  pagination: Type.Object({
    limit: Type.Integer(),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
});

export const ErrorDetailSchema = Type.Object({ field: Type.String(), message: Type.String() });

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Array(ErrorDetailSchema),
    }),
    meta: Type.Object({ request_id: Type.String() }),
  },
  { description: 'The general error envelope' },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;

/** Response schemas of the error statuses a route can answer, for validation and the docs. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorEnvelopeSchema]));

/** `{data, meta}` response schema for a route. */
export const Envelope = <T extends TSchema>(data: T) => Type.Object({ data, meta: MetaSchema });

/** `{data: [...], meta: {..., pagination}}` response schema for a list route. */
export const PageEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), meta: PageMetaSchema });

export const meta = (requestId: string, at: Date = new Date()): Meta => ({
  request_id: requestId,
  timestamp: at.toISOString(),
});

export const envelope = <T>(requestId: string, data: T) => ({ data, meta: meta(requestId) });

export const pageEnvelope = <T>(requestId: string, data: T[], limit: number, nextCursor: string | null) => ({
  data,
  meta: { ...meta(requestId), pagination: { limit, next_cursor: nextCursor } },
});

export interface RenderedError {
  code: string;
  message: string;
  details: ErrorDetail[];
  requestId: string;
}

export type ErrorFormat = 'general' | 'pnl' | 'billing';

/** Error bodies per area. */
export const errorBodies: Record<ErrorFormat, (e: RenderedError) => unknown> = {
  general: (e) => ({
    error: { code: e.code, message: e.message, details: e.details },
    meta: { request_id: e.requestId },
  }),
  pnl: (e) => ({ detail: e.details.length > 0 ? e.details : e.message }),
  // Billing's codes are the shared ones in lower case (`invalid_request`, `not_found`).
  billing: (e) => ({ error: e.code.toLowerCase(), message: e.message }),
};

/** P&L success form. */
export const pnlSuccess = <T>(data: T) => ({ success: true as const, data });

/** Auth login result form: the area wraps its result in `status`. */
export const authStatus = <T>(requestId: string, status: T) => ({ status, meta: meta(requestId) });
