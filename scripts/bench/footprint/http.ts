/** JSON requests to the programs under test, failing loudly on any answer but the one expected. */
const REQUEST_TIMEOUT_MS = 30_000;

export async function call<T>(
  base: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  path: string,
  options: { token?: string | undefined; body?: unknown; expect?: number } = {},
): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  const expected = options.expect ?? (method === 'POST' ? 201 : 200);
  if (response.status !== expected)
    throw new Error(
      `${method} ${path} answered ${response.status} (expected ${expected}): ${text.slice(0, 300)}`,
    );
  return (text ? JSON.parse(text) : null) as T;
}

/** A login's access token: both sides answer `{ status: { access_token } }`. */
export async function loginToken(base: string, path: string, body: unknown) {
  const answer = await call<{ status?: { access_token?: string } }>(base, 'POST', path, {
    body,
    expect: 200,
  });
  const token = answer.status?.access_token;
  if (!token) throw new Error(`${path} answered no access token`);
  return token;
}
