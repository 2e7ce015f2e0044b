const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export const isLoopback = (url: URL) => LOOPBACK.has(url.hostname);

/**
 * Why a URI cannot end a sign-in, or undefined when it can. https only, except loopback (native
 * apps and development); no query or fragment, because the code and state are appended to it and
 * the identity provider compares redirect URIs exactly.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return 'is not an absolute URL';
  const url = new URL(uri);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url)))
    return 'must use https (http only on a loopback host)';
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  return undefined;
}

/** An issuer or IdP endpoint: https, or http on loopback (a test or development identity provider). */
export function endpointProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return 'is not an absolute URL';
  const url = new URL(uri);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url)))
    return 'must use https (http only on a loopback host)';
  return undefined;
}
