/**
 * Download capabilities: the URL in an update manifest carries a token naming the tenant, the
 * release and an expiry, MACed by the cloud, because the appliance downloads with a plain GET and
 * no credential. The token names the update key its MAC key was derived from, so tokens made
 * before a rotation keep working until they expire.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface DownloadGrant {
  tenantId: string;
  releaseId: string;
  /** Unix seconds. */
  expiresAt: number;
}

interface Claims {
  k: string;
  t: string;
  r: string;
  e: number;
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

export function signToken(key: Buffer, keyId: string, grant: DownloadGrant): string {
  const claims: Claims = { k: keyId, t: grant.tenantId, r: grant.releaseId, e: grant.expiresAt };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

function parseClaims(payload: string): Claims | undefined {
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Claims>;
    const ok =
      typeof claims.k === 'string' &&
      typeof claims.t === 'string' &&
      typeof claims.r === 'string' &&
      Number.isSafeInteger(claims.e);
    return ok ? (claims as Claims) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The grant a token carries when its MAC checks out with the key `keyFor` gives for the update key
 * it names and it has not expired at `nowSeconds`; undefined otherwise.
 */
export async function verifyToken(
  token: string,
  keyFor: (keyId: string) => Promise<Buffer | undefined>,
  nowSeconds: number,
): Promise<DownloadGrant | undefined> {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const claims = parseClaims(payload);
  if (!claims) return undefined;
  const key = await keyFor(claims.k);
  if (!key) return undefined;
  const expected = mac(key, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  if (claims.e <= nowSeconds) return undefined;
  return { tenantId: claims.t, releaseId: claims.r, expiresAt: claims.e };
}
