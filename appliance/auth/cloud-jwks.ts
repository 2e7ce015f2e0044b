import { createPublicKey, type KeyObject } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../shared/clock.ts';

export type FetchFunction = (url: string, init?: RequestInit) => Promise<Response>;

export interface CloudJwksOptions {
  cloudUrl: string;
  clock: Clock;
  /** Outbound HTTP; the global fetch unless a test injects one. */
  fetch?: FetchFunction;
  log?: FastifyBaseLogger;
  /** An unknown kid triggers at most one fetch per this period. */
  refetchAfterMs?: number;
  timeoutMs?: number;
}

interface Jwk {
  kid?: unknown;
  kty?: unknown;
  crv?: unknown;
  x?: unknown;
  y?: unknown;
}

function toKeys(body: unknown): Map<string, KeyObject> {
  const list = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) throw new Error('the JWKS has no keys array');
  const keys = new Map<string, KeyObject>();
  for (const jwk of list as Jwk[]) {
    if (typeof jwk.kid !== 'string' || jwk.kty !== 'EC' || jwk.crv !== 'P-256') continue;
    if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string') continue;
    keys.set(
      jwk.kid,
      createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' }),
    );
  }
  return keys;
}

/**
 * The cloud's public keys, cached by kid. A kid we have not seen may be the cloud's fresh key, so it
 * triggers a fetch, at most once per 30 s; when the cloud cannot be reached the cached set stays in
 * use, because the store must keep working offline.
 */
export function createCloudJwks(options: CloudJwksOptions) {
  const url = new URL('/.well-known/jwks.json', options.cloudUrl).toString();
  const fetchFn = options.fetch ?? globalThis.fetch;
  const refetchAfterMs = options.refetchAfterMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  let keys = new Map<string, KeyObject>();
  let lastAttemptAt: number | undefined;
  let inFlight: Promise<boolean> | undefined;

  async function load(): Promise<boolean> {
    try {
      const response = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) throw new Error(`the cloud answered ${response.status}`);
      keys = toKeys(await response.json());
      return true;
    } catch (error) {
      options.log?.warn({ err: error, url }, 'cloud JWKS unavailable; keeping the cached keys');
      return false;
    }
  }

  /** Fetches the key set now; false when the cloud could not be reached (the cache is kept). */
  function refresh(): Promise<boolean> {
    if (inFlight) return inFlight;
    lastAttemptAt = options.clock.now().getTime();
    inFlight = load().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  return {
    refresh,
    async key(kid: string): Promise<KeyObject | undefined> {
      const known = keys.get(kid);
      if (known) return known;
      if (inFlight) await inFlight;
      else if (lastAttemptAt === undefined || options.clock.now().getTime() - lastAttemptAt >= refetchAfterMs)
        await refresh();
      return keys.get(kid);
    },
    kids: () => [...keys.keys()],
  };
}

export type CloudJwks = ReturnType<typeof createCloudJwks>;
