import { readJson } from '../../../../shared/ui/http.ts';

export { query } from '../../../../shared/ui/http.ts';

/**
 * The cloud's public API over fetch, as any integrator calls it: a bearer access token held in
 * memory only, renewed once through the refresh cookie when an answer is 401, then the request
 * sent again. Each area of the API has its own error envelope; ApiError reads them all and keeps
 * the request id, which the console shows so support can find the request in the logs.
 */

export interface ErrorDetail {
  field: string;
  message: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null = null,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 20_000;
/** The header that asks the gateway to keep the refresh token in an http-only cookie. */
export const COOKIE_TRANSPORT = { 'x-refresh-token-transport': 'cookie' } as const;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

function messageOf(
  body: unknown,
  fallback: string,
): { code: string | null; message: string; details: ErrorDetail[] } {
  const b = body as Record<string, unknown> | null | undefined;
  const error = b?.error;
  if (error && typeof error === 'object') {
    const e = error as { code?: unknown; message?: unknown; details?: unknown };
    return {
      code: typeof e.code === 'string' ? e.code : null,
      message: typeof e.message === 'string' ? e.message : fallback,
      details: Array.isArray(e.details) ? (e.details as ErrorDetail[]) : [],
    };
  }
  // Billing: {error: 'code', message}; P&L: {detail}.
  if (typeof error === 'string')
    return { code: error, message: typeof b?.message === 'string' ? b.message : fallback, details: [] };
  if (typeof b?.detail === 'string') return { code: null, message: b.detail, details: [] };
  if (typeof b?.message === 'string') return { code: null, message: b.message, details: [] };
  return { code: null, message: fallback, details: [] };
}

function errorFrom(response: Response, body: unknown): ApiError {
  const { code, message, details } = messageOf(body, response.statusText || 'The request failed');
  const meta = (body as { meta?: { request_id?: unknown } } | null)?.meta;
  const requestId =
    response.headers.get('x-request-id') ?? (typeof meta?.request_id === 'string' ? meta.request_id : null);
  return new ApiError(response.status, code ?? `HTTP_${response.status}`, message, requestId, details);
}

/** The general envelope of a list: `{data, meta: {pagination}}`, the cursor null on the last page. */
export interface Paged<T> {
  data: T[];
  meta?: { pagination?: { limit?: number; next_cursor?: string | null } };
}

export interface ApiHooks {
  token: () => string | null;
  /** Gets a new access token through the refresh cookie; null when the session is over. */
  renew: () => Promise<string | null>;
}

export function createApi(hooks: ApiHooks) {
  async function send(
    method: Method,
    path: string,
    body: unknown,
    token: string | null,
    signal?: AbortSignal,
  ) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    try {
      return await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'same-origin',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(0, 'NETWORK', 'The cloud did not answer. Check the connection and try again.');
    }
  }

  /** The parsed body of a 2xx answer, whatever the area's envelope; an ApiError otherwise. */
  async function request<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const token = hooks.token();
    let response = await send(method, path, body, token, signal);
    if (response.status === 401 && token) {
      const renewed = await hooks.renew();
      if (renewed) response = await send(method, path, body, renewed, signal);
    }
    const parsed = await readJson(response);
    if (!response.ok) throw errorFrom(response, parsed);
    return parsed as T;
  }

  return {
    get: <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal),
    post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, body),
    put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
    patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
    /** A body only where the API asks for one (removing an enabled MFA factor takes its code). */
    delete: <T>(path: string, body?: unknown) => request<T>('DELETE', path, body),
    /** `{data}` answers unwrapped: most of the API's areas use that envelope. */
    data: async <T>(path: string, signal?: AbortSignal) =>
      (await request<{ data: T }>('GET', path, undefined, signal)).data,
  };
}

export type Api = ReturnType<typeof createApi>;

/** Plain words for an error, with the request id when the cloud gave one. */
export function describeError(error: unknown): { message: string; requestId: string | null } {
  if (error instanceof ApiError) {
    const detail = error.details.map((d) => `${d.field}: ${d.message}`).join('; ');
    const base =
      error.status === 403
        ? `You do not have permission to do this (${error.message})`
        : error.status === 429
          ? 'Too many requests: wait a moment and try again'
          : error.status >= 500
            ? 'The cloud could not do this right now: try again, and tell support the request id if it keeps failing'
            : error.message;
    return { message: detail ? `${base} (${detail})` : base, requestId: error.requestId };
  }
  return { message: error instanceof Error ? error.message : String(error), requestId: null };
}
