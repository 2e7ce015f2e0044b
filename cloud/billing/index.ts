/**
 * Billing: subscriptions, add-ons, discount codes, invoices, refunds, dunning, usage metering and
 * subscription lifecycle events, served under /v1/billing in the billing error form
 * `{ error, message }`. Owns the billing_* tables; pause and resume go to the platform service.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { useErrorArea } from '../../shared/http/areas.ts';
import type { Role } from '../../shared/roles.ts';
import { billingErrorHandler, missingTenant } from './errors.ts';
import { catalogRoutes } from './routes-catalog.ts';
import { recordRoutes } from './routes-records.ts';
import { subscriptionRoutes } from './routes-subscriptions.ts';
import type { BillingService } from './service.ts';

export { createHttpPlatform, createInProcessPlatform, type PlatformService } from './platform.ts';
export { type BillingDeps, type BillingService, createBillingService } from './service.ts';

/** Spec 2's billing rule. */
export const BILLING_ROLES: readonly Role[] = [
  'billing_admin',
  'finance',
  'tenant_admin',
  'platform_admin',
  'system_admin',
  'super_admin',
];

export async function billingRoutes(app: FastifyInstance, { billing }: { billing: BillingService }) {
  useErrorArea(app, 'billing', billingErrorHandler);
  const authenticate = app.authenticate(BILLING_ROLES);
  // A token that verifies but names no tenant cannot be scoped: refused before anything else.
  app.addHook('onRequest', async function guard(this: FastifyInstance, request: FastifyRequest, reply) {
    if (!request.claimsError && request.claims && !request.claims.tenant_id) throw missingTenant();
    await authenticate.call(this, request, reply);
  });
  await subscriptionRoutes(app, billing);
  await catalogRoutes(app, billing);
  await recordRoutes(app, billing);
}
export type { BillingTables } from './tables.ts';
