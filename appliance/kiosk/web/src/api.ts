import { readJson } from '../../../../shared/ui/http.ts';

/**
 * The local API over fetch: the session's bearer token, the `{ data }` envelope unwrapped, and an
 * error envelope `{ error: { code, message, details } }` (shared/http/envelope.ts) as an ApiError.
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
    readonly details: ErrorDetail[] = [],
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** Most answers come at once; a restart or a sync round says how long it may take. */
const TIMEOUT_MS = 15_000;

export interface ApiOptions {
  /** The bearer token to send, if any. */
  token: () => string | null;
  /** A 401 to a signed-in request: the session has ended; the kiosk goes back to sign-in. */
  onUnauthorized?: () => void;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

function errorFrom(response: Response, body: unknown): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
    typeof error?.message === 'string' ? error.message : response.statusText || 'The request failed',
    Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [],
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}

export function createApi(options: ApiOptions) {
  async function send(
    method: Method,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    timeoutMs = TIMEOUT_MS,
  ): Promise<Response> {
    const token = options.token();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'same-origin',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (response.status === 401 && token) options.onUnauthorized?.();
      return response;
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(0, 'NETWORK', 'The appliance did not answer');
    }
  }

  async function request<T>(
    method: Method,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<T> {
    const response = await send(method, path, body, signal, timeoutMs);
    const parsed = await readJson(response);
    if (!response.ok) throw errorFrom(response, parsed);
    if (parsed && typeof parsed === 'object' && 'data' in parsed) return (parsed as { data: T }).data;
    return parsed as T;
  }

  return {
    get: <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal),
    post: <T>(path: string, body?: unknown, options: { timeoutMs?: number } = {}) =>
      request<T>('POST', path, body ?? {}, undefined, options.timeoutMs),
    put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
    delete: <T>(path: string) => request<T>('DELETE', path),
    /** An image or other binary answer (a camera frame), with the token a plain <img> cannot send. */
    async blob(path: string, signal?: AbortSignal): Promise<{ blob: Blob; headers: Headers }> {
      const response = await send('GET', path, undefined, signal);
      if (!response.ok) throw errorFrom(response, await readJson(response));
      return { blob: await response.blob(), headers: response.headers };
    },
  };
}

export type Api = ReturnType<typeof createApi>;
