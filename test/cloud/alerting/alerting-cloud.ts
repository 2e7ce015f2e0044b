import { expect } from 'vitest';
import type { CloudConfig } from '../../../cloud/config.ts';
import { createTestCloud, seedTenant } from '../../support/cloud.ts';
import { caller, expectOk, type Member, member } from '../devices/device-client.ts';

export { expectError, expectOk } from '../devices/device-client.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A member whose calls may use any method (device-client's Member knows GET and POST). */
const anyMethod = (m: Member) =>
  m.call as unknown as (method: Method, path: string, payload?: unknown) => ReturnType<Member['call']>;

/** Two tenants, each with an admin; A also has a manager and a staff member. No worker runs: tests call runDue. */
export async function alertingCloud(backend: 'sqlite' | 'pg', config: Partial<CloudConfig> = {}) {
  const cloud = await createTestCloud(backend, { config: { rateLimit: false, ...config } });
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const adminA = await member(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']);
  const adminB = await member(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']);
  return {
    cloud,
    a,
    b,
    adminA: { ...adminA, call: anyMethod(adminA) },
    adminB: { ...adminB, call: anyMethod(adminB) },
    managerA: await member(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await member(cloud, a.tenant.id, 'staff@alpha.test', ['staff']),
    anonymous: caller(cloud),
  };
}

export type AlertingCloud = Awaited<ReturnType<typeof alertingCloud>>;

let tenants = 0;
/** The admin of a tenant of its own: a test that counts what it made sees nobody else's. */
export async function freshAdmin(context: AlertingCloud) {
  const slug = `solo-${++tenants}`;
  const { tenant } = await seedTenant(context.cloud.services, slug);
  const admin = await member(context.cloud, tenant.id, `admin@${slug}.test`, ['tenant_admin']);
  return { ...admin, call: anyMethod(admin) };
}
export type Admin = AlertingCloud['adminA'];

export interface AlertBody {
  id: string;
  status: string;
  severity: string;
  escalation_level: number;
  occurrences: number;
  [field: string]: unknown;
}

let sequence = 0;
/** An ingest body with a title of its own, so each call opens a new alert unless told otherwise. */
export const alertBody = (overrides: Record<string, unknown> = {}) => ({
  source: 'prometheus',
  severity: 'P1',
  title: `Checkout latency high #${++sequence}`,
  description: 'p99 above 2 s for 5 minutes',
  service: 'checkout',
  environment: 'production',
  labels: { region: 'eu-west', cluster: 'a' },
  runbook_url: 'https://runbooks.example.com/checkout-latency',
  ...overrides,
});

export async function ingest(admin: Admin, body: Record<string, unknown>, status = 201) {
  return expectOk(await admin.call('POST', '/api/v1/alerts/ingest', body), status) as AlertBody;
}

export const person = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  phone: '+15550100',
  push_token: `push-${name.toLowerCase()}`,
  ...extra,
});

export const personTarget = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'person',
  person: person(name, extra),
});

export async function createPolicy(admin: Admin, body: Record<string, unknown>) {
  return expectOk(await admin.call('POST', '/api/v1/alerting/policies', body), 201) as { id: string };
}

export interface SentRow {
  channel: string;
  dedupe_key: string;
  to: string | null;
}

/** The notifications notify holds for an alert, by dedupe key (notify's outbox table). */
export async function notificationsOf(context: AlertingCloud, alertId: string): Promise<SentRow[]> {
  const rows = await context.cloud.store.db
    .selectFrom('notifications')
    .select(['channel', 'dedupe_key', 'recipient'])
    .where('alert_id', '=', alertId)
    .orderBy('dedupe_key')
    .execute();
  return rows.map((row) => ({
    channel: row.channel,
    dedupe_key: row.dedupe_key,
    to: row.recipient ? (JSON.parse(row.recipient) as { email: string }).email : null,
  }));
}

/** "L<level> <who> <channel>" per notification, sorted: what a step sent, in one readable line each. */
export async function sentOf(context: AlertingCloud, alertId: string) {
  const rows = await notificationsOf(context, alertId);
  return rows
    .map((row) => {
      const level = /:L(\d+):/.exec(row.dedupe_key)?.[1];
      return `L${level} ${row.to ?? row.dedupe_key.split(':')[3]} ${row.channel}`;
    })
    .sort();
}

export const minutes = (n: number) => n * 60_000;

export async function expectNoDuplicateKeys(context: AlertingCloud, alertId: string) {
  const keys = (await notificationsOf(context, alertId)).map((row) => row.dedupe_key);
  expect(new Set(keys).size).toBe(keys.length);
}
