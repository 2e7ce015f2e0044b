import type { LightMyRequestResponse } from 'fastify';
import {
  bearer,
  type createTestCloud,
  signedInUser,
  type TestCloud,
  twoTenantCloud,
} from '../../support/cloud.ts';

export { expectError, expectOk } from '../devices/device-client.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type ApiCall = (method: Method, path: string, payload?: unknown) => Promise<LightMyRequestResponse>;

export const apiCaller =
  (cloud: TestCloud, token?: string): ApiCall =>
  (method, url, payload) =>
    cloud.app.inject({
      method,
      url,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
      headers: token ? bearer(token) : {},
    });

/** A tenant member signed in; `id` is their user id. */
export async function apiMember(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  const user = await signedInUser(cloud, tenantId, email, roles);
  return { ...user, call: apiCaller(cloud, user.token) };
}

export type ApiMember = Awaited<ReturnType<typeof apiMember>>;

/** Two tenants; A has a manager, an admin and a staff member, B an admin. */
export async function apiCloud(
  backend: 'sqlite' | 'pg',
  options: Parameters<typeof createTestCloud>[1] = {},
) {
  const { cloud, a, b } = await twoTenantCloud(backend, options);
  return {
    cloud,
    a,
    b,
    managerA: await apiMember(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    adminA: await apiMember(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    staffA: await apiMember(cloud, a.tenant.id, 'staff@alpha.test', ['staff']),
    adminB: await apiMember(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
    anonymous: apiCaller(cloud),
  };
}

export type ApiCloud = Awaited<ReturnType<typeof apiCloud>>;

export interface IncidentRecord {
  id: string;
  status: string;
  channel_id: string | null;
  runbook_url: string | null;
  runbook_id: string | null;
  responders: Array<{ name: string; email: string; user_id: string | null; invited: boolean }>;
  [field: string]: unknown;
}

export interface TimelineEntry {
  id: string;
  kind: string;
  actor: string | null;
  text: string;
  at: string;
  data: Record<string, unknown> | null;
}

export const newIncident = (overrides: Record<string, unknown> = {}) => ({
  title: 'Checkout API returns 502',
  severity: 'critical',
  service: 'checkout',
  description: 'Half the card payments fail at the gateway',
  ...overrides,
});
