import { type TestCloud, twoTenantCloud } from '../../support/cloud.ts';
import { caller, type Member, member } from '../devices/device-client.ts';

export { expectError, expectOk } from '../devices/device-client.ts';

type Method = 'GET' | 'POST' | 'PUT';
export type AnyCall = (method: Method, path: string, payload?: unknown) => ReturnType<Member['call']>;

const anyMethod = (m: Member) => m.call as unknown as AnyCall;

export const BASE = '/api/v1/alerting/aiops';

/** Two tenants, each with an admin; A also has a manager and a staff member. No worker runs. */
export async function aiopsCloud(backend: 'sqlite' | 'pg', start = '2026-05-04T00:00:00.000Z') {
  const { cloud, a, b } = await twoTenantCloud(backend);
  cloud.clock.set(start);
  const people = {
    adminA: await member(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    managerA: await member(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await member(cloud, a.tenant.id, 'staff@alpha.test', ['staff']),
    adminB: await member(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
  };
  /** Moves the clock and signs everyone in again (access tokens live an hour). */
  async function advance(ms: number) {
    cloud.clock.advance(ms);
    for (const person of Object.values(people)) await person.refresh();
  }
  return {
    cloud,
    a,
    b,
    adminA: anyMethod(people.adminA),
    managerA: anyMethod(people.managerA),
    staffA: anyMethod(people.staffA),
    adminB: anyMethod(people.adminB),
    anonymous: caller(cloud) as unknown as AnyCall,
    advance,
  };
}

export type AiopsCloud = Awaited<ReturnType<typeof aiopsCloud>>;

/** Opens an alert through alerting's own ingest at the clock's time. */
export async function raise(
  cloud: TestCloud,
  tenantId: string,
  service: string,
  labels: Record<string, string> = {},
  overrides: Record<string, unknown> = {},
) {
  const { alert } = await cloud.services.alerting.ingest(tenantId, {
    source: 'prometheus',
    severity: 'P2',
    title: `${service} is unhealthy`,
    service,
    environment: 'production',
    labels,
    ...overrides,
  });
  return alert;
}
