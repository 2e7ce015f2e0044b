/**
 * Outbound webhooks: the subscription interface (/v1/webhooks) and the admin
 * interface (/api/v1/webhooks), the deliveries domain events make, and the worker that sends them.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock.ts';
import type { RateLimiter } from '../gateway/index.ts';
import { rateLimited } from './errors.ts';
import { adminWebhookRoutes } from './routes-admin.ts';
import { subscriptionWebhookRoutes } from './routes-subscription.ts';
import type { Webhooks } from './service.ts';

export { createWebhooks, type Webhooks } from './service.ts';

export interface WebhookRouteOptions {
  webhooks: Webhooks;
  /** Counts a tenant's webhook operations (writes, tests, retries) across gateway replicas. */
  limiter: RateLimiter;
  operationsPerMinute: number;
  clock: Clock;
}

/**
 * Changing webhooks and sending tests makes outbound requests and work: a tenant gets
 * `operationsPerMinute` of them, answered `rate_limited` beyond.
 */
function operationLimit(options: WebhookRouteOptions) {
  const perMinute = options.operationsPerMinute;
  // The burst never exceeds the minute's allowance: a tenant allowed 5 a minute gets 5, not 10.
  const policy = { perMinute, burst: Math.min(perMinute, Math.max(10, Math.ceil(perMinute / 4))) };
  return async (request: FastifyRequest) => {
    if (request.method === 'GET' || !request.auth) return;
    const decision = await options.limiter.take(
      `webhook-ops:${request.auth.tenantId}`,
      policy,
      options.clock.now(),
    );
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  };
}

export async function webhookAdminPlugin(app: FastifyInstance, options: WebhookRouteOptions) {
  app.addHook('preHandler', operationLimit(options));
  await app.register(adminWebhookRoutes, { webhooks: options.webhooks, clock: options.clock });
}

export async function webhookSubscriptionPlugin(app: FastifyInstance, options: WebhookRouteOptions) {
  app.addHook('preHandler', operationLimit(options));
  await app.register(subscriptionWebhookRoutes, { webhooks: options.webhooks });
}
export { checkWebhookUrl } from './address-guard.ts';
export { createOutbound, type Outbound } from './outbound.ts';
export { DEFAULT_WEBHOOK_OPTIONS, type WebhookDeps, type WebhookOptions } from './service.ts';
export type { WebhookTables } from './tables.ts';
