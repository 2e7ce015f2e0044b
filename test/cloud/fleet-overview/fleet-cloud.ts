import { expect } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { SYNC_TABLES, type SyncTableName } from '../../../shared/sync/registry.ts';
import { bearer, type TestCloud } from '../../support/cloud.ts';
import { deviceKey } from '../devices/device-client.ts';

/** GETs as the holder of `token`. */
export const reader = (cloud: TestCloud, token: string) => (url: string) =>
  cloud.app.inject({ method: 'GET', url, headers: bearer(token) });

/** A device registered at a store and enrolled (it holds a certificate from now for the configured days). */
export async function enrolledDevice(
  cloud: TestCloud,
  tenantId: string,
  locationId: string,
  device: { device_type: 'appliance' | 'kds'; serial_number: string },
) {
  const registered = await cloud.services.devices.register(tenantId, {
    location_id: locationId,
    name: `${device.device_type} ${device.serial_number}`,
    ...device,
  });
  const issued = await cloud.services.devices.enrol({
    enrollment_token: registered.enrollment_token,
    csr: (await deviceKey()).csr,
  });
  return { id: registered.id, credential: issued.sync_credential };
}

export const orderFields = (id: string, at: string, overrides: Record<string, unknown> = {}) => ({
  id,
  number: '1',
  business_day: at.slice(0, 10),
  order_type: 'takeout',
  status: 'open',
  table_label: null,
  server_id: null,
  server_name: null,
  subtotal_minor: 1000,
  tax_minor: 80,
  total_minor: 1080,
  created_at: at,
  updated_at: at,
  ...overrides,
});

/** A row's fields as the appliance's outbox sends them: JSON columns as JSON text. */
const encode = (table: SyncTableName, fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).map(([column, value]) => [
      column,
      (SYNC_TABLES[table].columns as Record<string, string>)[column] === 'json'
        ? JSON.stringify(value)
        : value,
    ]),
  );

/**
 * A store's appliance pushing through the real /v1/sync/push with the queue it reports; answers
 * each change's status.
 */
export function appliancePusher(cloud: TestCloud, credential: string) {
  const hlc = createHlc(`appliance-${credential.slice(4, 12)}`);
  return async (
    rows: Array<{ table: SyncTableName; fields: Record<string, unknown>; version?: number }>,
    queue: { queue_depth: number; oldest_pending_at?: string | null } = { queue_depth: 0 },
  ) => {
    const changes: Change[] = rows.map(({ table, fields, version = 1 }) => ({
      change_id: newId(),
      table,
      row_id: String(fields.id),
      op: version === 1 ? 'insert' : 'update',
      base_version: version - 1,
      version,
      hlc: hlc.tick(),
      fields: encode(table, fields),
    }));
    const response = await cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/push',
      headers: { authorization: `Appliance ${credential}` },
      payload: { changes, ...queue },
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data.results as Array<{ status: string }>).map((result) => result.status);
  };
}
