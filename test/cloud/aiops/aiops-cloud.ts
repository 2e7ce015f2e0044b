import { seedTenant, type TestCloud, twoTenantCloud } from '../../support/cloud.ts';
import { caller, type Member, member } from '../devices/device-client.ts';

export { expectError, expectOk } from '../devices/device-client.ts';

type Method = 'GET' | 'POST' | 'PUT';
export type AnyCall = (method: Method, path: string, payload?: unknown) => ReturnType<Member['call']>;

const anyMethod = (m: Member) => m.call as unknown as AnyCall;

export const BASE = '/api/v1/alerting/aiops';

let soloTenants = 0;

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
  const signedIn: Member[] = Object.values(people);
  /** Moves the clock and signs everyone in again (access tokens live an hour). */
  async function advance(ms: number) {
    cloud.clock.advance(ms);
    for (const person of signedIn) await person.refresh();
  }
  /** A tenant of its own with an admin and a staff member: a test that counts what it made sees nobody else's. */
  async function soloTenant() {
    const slug = `solo-${++soloTenants}`;
    const seeded = await seedTenant(cloud.services, slug);
    const admin = await member(cloud, seeded.tenant.id, `admin@${slug}.test`, ['tenant_admin']);
    const staff = await member(cloud, seeded.tenant.id, `staff@${slug}.test`, ['staff']);
    signedIn.push(admin, staff);
    return { a: seeded, adminA: anyMethod(admin), staffA: anyMethod(staff) };
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
    soloTenant,
  };
}

export type AiopsCloud = Awaited<ReturnType<typeof aiopsCloud>>;
export type SoloTenant = Awaited<ReturnType<AiopsCloud['soloTenant']>>;

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
