/**
 * The platform service that pause and resume are forwarded to. Two adapters: in-process (the
 * cloud's own tenancy, the default) and HTTP (PLATFORM_SERVICE_URL). Either one throws
 * `upstream_error` when it cannot be reached or refuses; billing then changes nothing.
 */
import { request } from 'undici';
import { upstreamError } from './errors.ts';

export type PlatformAction = 'pause' | 'resume';

export interface PlatformService {
  forward(action: PlatformAction, tenantId: string, subscriptionId: string): Promise<void>;
}

/** In-process: the tenancy module must know the tenant and have it active. */
export function createInProcessPlatform(
  tenantActive: (tenantId: string) => Promise<boolean>,
): PlatformService {
  return {
    async forward(action, tenantId) {
      const active = await tenantActive(tenantId).catch((error: unknown) => {
        throw upstreamError(`The platform service failed to ${action} the subscription`, error);
      });
      if (!active) throw upstreamError(`The platform service refused to ${action} the subscription`);
    },
  };
}

export const PLATFORM_TIMEOUT_MS = 5000;

/**
 * HTTP: `POST <base>/v1/platform/billing/subscriptions/<id>/<action>` with `{tenant_id,
 * subscription_id}`; any 2xx is success, anything else (or no answer within the time-out) fails.
 */
export function createHttpPlatform(baseUrl: string, timeoutMs = PLATFORM_TIMEOUT_MS): PlatformService {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async forward(action, tenantId, subscriptionId) {
      const url = `${base}/v1/platform/billing/subscriptions/${subscriptionId}/${action}`;
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: tenantId, subscription_id: subscriptionId }),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      }).catch((error: unknown) => {
        throw upstreamError('The platform service is unavailable', error);
      });
      await response.body.dump().catch(() => undefined);
      if (response.statusCode < 200 || response.statusCode >= 300)
        throw upstreamError(`The platform service answered ${response.statusCode} to ${action}`);
    },
  };
}
