import type { LightMyRequestResponse } from 'fastify';
import {
  bearer,
  type createTestCloud,
  loginTokens,
  signedInUser,
  TEST_PASSWORD,
  type TestCloud,
  twoTenantCloud,
} from '../../support/cloud.ts';
import { deviceKey } from '../devices/device-client.ts';

export { expectError, expectOk } from '../devices/device-client.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Call = (
  method: Method,
  path: string,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

const caller =
  (cloud: TestCloud, token?: string): Call =>
  (method, url, payload, headers = {}) =>
    cloud.app.inject({
      method,
      url,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
      headers: { ...(token ? bearer(token) : {}), ...headers },
    });

/**
 * A tenant member signed in. Tests move the manual clock by hours, past the access token's hour:
 * `call` signs in again when the token is older than 50 minutes by that clock.
 */
export async function member(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  const first = await signedInUser(cloud, tenantId, email, roles);
  const login = async () => {
    const tokens = await loginTokens(cloud.app, { email, password: TEST_PASSWORD });
    return { id: tokens.user.id, token: tokens.access_token, at: cloud.clock.now().getTime() };
  };
  let current = { id: first.id, token: first.token, at: cloud.clock.now().getTime() };
  const fresh = async () => {
    if (cloud.clock.now().getTime() - current.at > 50 * 60_000) current = await login();
    return current.token;
  };
  const call: Call = async (method, path, payload, headers) =>
    caller(cloud, await fresh())(method, path, payload, headers);
  return {
    id: current.id,
    get token() {
      return current.token;
    },
    fresh,
    call,
  };
}
export type Member = Awaited<ReturnType<typeof member>>;

/** Two tenants; each has a cockpit operator and a manager (INCIDENT_ROLES). */
export async function cockpitCloud(
  backend: 'sqlite' | 'pg',
  options: Parameters<typeof createTestCloud>[1] = {},
) {
  const { cloud, a, b } = await twoTenantCloud(backend, options);
  return {
    cloud,
    a,
    b,
    operatorA: await member(cloud, a.tenant.id, 'ops@alpha.test', ['cockpit_operator']),
    managerA: await member(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    operatorB: await member(cloud, b.tenant.id, 'ops@bravo.test', ['cockpit_operator']),
    managerB: await member(cloud, b.tenant.id, 'manager@bravo.test', ['manager']),
    anonymous: caller(cloud),
  };
}
export type CockpitCloud = Awaited<ReturnType<typeof cockpitCloud>>;

/** An alert raised through alerting's own ingest; its id. */
export async function raiseAlert(
  manager: Member,
  alert: { environment?: string; labels?: Record<string, string>; title?: string; service?: string } = {},
) {
  const response = await manager.call('POST', '/api/v1/alerts/ingest', {
    source: 'edge_metrics',
    severity: 'P3',
    title: alert.title ?? `Service degraded ${Math.random().toString(36).slice(2)}`,
    service: alert.service ?? 'appliance',
    environment: alert.environment ?? 'production',
    labels: alert.labels ?? {},
    runbook_url: 'https://runbooks.example.test/appliance',
  });
  if (response.statusCode !== 201) throw new Error(`ingest failed: ${response.statusCode} ${response.body}`);
  return (response.json().data as { id: string }).id;
}

/** A store appliance in the device registry, enrolled (state active); its id. */
export async function enrolledAppliance(
  cloud: TestCloud,
  tenantId: string,
  locationId: string,
  serial = 'APL-1',
) {
  const device = await cloud.services.devices.register(tenantId, {
    location_id: locationId,
    device_type: 'appliance',
    name: `Appliance ${serial}`,
    serial_number: serial,
  });
  const key = await deviceKey();
  await cloud.services.devices.enrol({ enrollment_token: device.enrollment_token, csr: key.csr });
  return device.id;
}

/**
 * Stands in for the fleet link and the appliance in tests that are not about them: answers each
 * queued command with `state` (a real appliance carries them out in fleet-remediation.test.ts).
 */
export function answerCommands(cloud: TestCloud, state: 'succeeded' | 'failed' = 'succeeded') {
  const answered: Array<{ kind: string; payload: Record<string, unknown> }> = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      for (const row of await cloud.services.devices.dueCommands(100)) {
        answered.push({ kind: row.kind, payload: JSON.parse(row.payload) });
        await cloud.services.devices.updateCommand(row.tenant_id, row.id, { state, result: { done: true } });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const running = loop();
  return {
    answered,
    async stop() {
      stopped = true;
      await running;
    },
  };
}
