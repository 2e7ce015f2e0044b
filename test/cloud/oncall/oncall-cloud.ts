import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bearer, signedInUser, type TestCloud, twoTenantCloud } from '../../support/cloud.ts';

/** Tests run at a fixed instant: Thursday of the week New York springs forward (2026-03-08). */
export const NOW = '2026-03-05T12:00:00.000Z';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Call = (method: Method, path: string, payload?: unknown) => Promise<LightMyRequestResponse>;

const caller =
  (cloud: TestCloud, token?: string): Call =>
  (method, path, payload) =>
    cloud.app.inject({
      method,
      url: `/api/v1/oncall${path}`,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
      headers: token ? bearer(token) : {},
    });

async function member(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  const user = await signedInUser(cloud, tenantId, email, roles);
  return { call: caller(cloud, user.token), userId: user.id };
}

/** Two tenants: A with an admin, a manager and a staff member; B with an admin. */
export async function oncallCloud(backend: 'sqlite' | 'pg') {
  const { cloud, a, b } = await twoTenantCloud(backend);
  cloud.clock.set(NOW);
  return {
    cloud,
    a,
    b,
    adminA: await member(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    managerA: await member(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await member(cloud, a.tenant.id, 'staff@alpha.test', ['staff']),
    adminB: await member(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
    anonymous: caller(cloud),
  };
}

export type OncallCloud = Awaited<ReturnType<typeof oncallCloud>>;

export function expectOk(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data;
}

export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array) },
    meta: { request_id: expect.any(String) },
  });
  return body.error as { code: string; message: string; details: Array<{ field: string; message: string }> };
}

/** The fields named by a 400's details. */
export const fieldsOf = (response: LightMyRequestResponse) =>
  expectError(response, 400, 'INVALID_REQUEST').details.map((detail) => detail.field);

export const person = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  ...extra,
});

let teamSeq = 0;
/** A weekly New York schedule from Monday 2026-03-02, 09:00 handoffs: Ana, Ben, Cai. */
export const weeklyBody = (overrides: Record<string, unknown> = {}) => ({
  team: `team-${++teamSeq}`,
  type: 'weekly',
  time_zone: 'America/New_York',
  handoff_time: '09:00',
  start_date: '2026-03-02',
  participants: [
    person('Ana', { phone: '+1 555 0100', push_token: 'device-token-ana' }),
    person('Ben'),
    person('Cai'),
  ],
  ...overrides,
});

export interface ScheduleView {
  id: string;
  team: string;
  [field: string]: unknown;
}
