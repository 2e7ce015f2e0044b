/**
 * DELETE /v1/auth/mfa/factors/{id} takes the current code in its body when the factor is enabled;
 * the shell's api.delete sends no body, so this one request is sent here, the same way: bearer
 * token, renewed once on a 401, errors read into an ApiError with the request id.
 */
import { ApiError } from '../../api.ts';
import { accessTokenNow, renew } from '../../session.ts';

function send(path: string, body: unknown, token: string | null) {
  return fetch(path, {
    method: 'DELETE',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  }).catch(() => {
    throw new ApiError(0, 'NETWORK', 'The cloud did not answer. Check the connection and try again.');
  });
}

async function errorOf(response: Response): Promise<ApiError> {
  const parsed = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string; details?: Array<{ field: string; message: string }> };
    meta?: { request_id?: string };
  } | null;
  return new ApiError(
    response.status,
    parsed?.error?.code ?? `HTTP_${response.status}`,
    parsed?.error?.message ?? (response.statusText || 'The request failed'),
    response.headers.get('x-request-id') ?? parsed?.meta?.request_id ?? null,
    parsed?.error?.details ?? [],
  );
}

export async function removeFactor(factorId: string, code: string | undefined) {
  const path = `/v1/auth/mfa/factors/${encodeURIComponent(factorId)}`;
  const body = code ? { code } : {};
  const token = accessTokenNow();
  let response = await send(path, body, token);
  if (response.status === 401 && token) {
    const renewed = await renew();
    if (renewed) response = await send(path, body, renewed);
  }
  if (!response.ok) throw await errorOf(response);
}
