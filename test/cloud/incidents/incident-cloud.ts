import type { DomainEventRow } from '../../../cloud/events/index.ts';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { type TestCloud, twoTenantCloud } from '../../support/cloud.ts';
import { caller, expectOk, type Member, member, registerDevice } from '../devices/device-client.ts';

export { expectError, expectOk } from '../devices/device-client.ts';

/** Two tenants, each with a store and an admin; A also has a manager and a staff member. */
export async function incidentCloud(backend: 'sqlite' | 'pg') {
  const { cloud, a, b } = await twoTenantCloud(backend);
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

export type IncidentCloud = Awaited<ReturnType<typeof incidentCloud>>;

/** A temperature sensor of the registry, at `locationId`. */
export const registerSensor = async (admin: Member, locationId: string) =>
  (await registerDevice(admin, locationId, { device_type: 'sensor', name: 'Walk-in fridge' })).id;

export const incidentBody = (
  deviceId: string,
  locationId: string,
  overrides: Record<string, unknown> = {},
) => ({
  type: 'temperature_alert',
  device_id: deviceId,
  location_id: locationId,
  severity: 'high',
  description: 'Walk-in fridge reads 9 °C, above its maximum of 5 °C',
  ...overrides,
});

export interface Incident {
  id: string;
  status: string;
  occurrences: number;
  [field: string]: unknown;
}

export async function raise(admin: Member, body: Record<string, unknown>, status = 201) {
  return expectOk(await admin.call('POST', '/v1/incidents', body), status) as Incident;
}

/** The event a store's device registry writes for a temperature alert (appliance/devices/registry). */
export function temperatureEvent(
  tenantId: string,
  locationId: string,
  deviceId: string,
  data: Record<string, unknown> = {},
  occurredAt = new Date().toISOString(),
): DomainEventRow {
  return {
    id: newId(),
    tenant_id: tenantId,
    location_id: locationId,
    type: 'device.temperature_alert',
    occurred_at: occurredAt,
    received_at: occurredAt,
    data: JSON.stringify({
      type: 'temperature_alert',
      device_id: deviceId,
      location_id: locationId,
      severity: 'high',
      description: `sensor ${deviceId} reads 9 °C, above its maximum of 5 °C`,
      ...data,
    }),
  };
}

/** A store's appliance: pushes its outbox's event rows through the cloud's real sync push. */
export async function applianceOf(cloud: TestCloud, admin: Member, locationId: string) {
  const provisioned = expectOk(
    await admin.call('POST', '/v1/sync/appliances', { location_id: locationId, name: 'Store appliance' }),
    201,
  ) as { credential: string };
  const hlc = createHlc(`appliance-${locationId}`);
  const eventChange = (event: DomainEventRow): Change => ({
    change_id: newId(),
    table: 'events',
    row_id: event.id,
    op: 'insert',
    base_version: 0,
    version: 1,
    hlc: hlc.tick(),
    fields: {
      id: event.id,
      type: event.type,
      location_id: event.location_id,
      occurred_at: event.occurred_at,
      data: event.data,
    },
  });
  return {
    eventChange,
    /** Pushes the changes as one batch; the per-change statuses. */
    async push(changes: Change[]) {
      const response = await cloud.app.inject({
        method: 'POST',
        url: '/v1/sync/push',
        headers: { authorization: `Appliance ${provisioned.credential}` },
        payload: { changes, queue_depth: 0 },
      });
      if (response.statusCode !== 200)
        throw new Error(`push failed: ${response.statusCode} ${response.body}`);
      return (response.json().data.results as Array<{ status: string }>).map((result) => result.status);
    },
  };
}
