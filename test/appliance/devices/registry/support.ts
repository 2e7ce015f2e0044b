import pino from 'pino';
import { attachDeviceRegistry, createDeviceCommands } from '../../../../appliance/devices/index.ts';
import { createManualClock, type ManualClock } from '../../../../shared/clock.ts';
import { createTestAppliance, LOCATION } from '../../../support/appliance.ts';
import { type Pki, startTestBroker } from '../broker/support.ts';

/**
 * A real appliance (its store, services and API) with the registry listening to a real broker on
 * free ports (plain TCP and TLS with device certificates). The clock is manual; the registry's
 * timers are not started, so a test flushes and maintains when it means to.
 */
export async function startDeviceRig(
  pki: Pki,
  clock: ManualClock = createManualClock('2026-06-10T19:00:00.000Z'),
) {
  const appliance = await createTestAppliance({ clock });
  const rig = await startTestBroker(pki);
  const log = pino({ level: 'silent' });
  const devices = appliance.services.devices;
  const commands = createDeviceCommands({
    aedes: rig.broker.aedes,
    prefix: 'edge',
    locationId: LOCATION,
    device: (id) => devices.device(id),
    timeoutMs: 500,
    log,
  });
  const detach = attachDeviceRegistry({
    aedes: rig.broker.aedes,
    registry: devices,
    commands,
    prefix: 'edge',
    locationId: LOCATION,
    log,
  });
  const { db } = appliance;
  return {
    appliance,
    rig,
    clock,
    devices,
    commands,
    /** Outbox rows of one table, oldest first, with their fields parsed. */
    outbox: (table: string) =>
      (
        db
          .prepare(
            'select row_id, operation, row_version, fields from outbox where table_name = ? order by seq',
          )
          .all(table) as Array<{ row_id: string; operation: string; row_version: number; fields: string }>
      ).map((row) => ({ ...row, fields: JSON.parse(row.fields) as Record<string, unknown> })),
    get: (token: string, url: string) =>
      appliance.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } }),
    async close() {
      commands.close();
      detach();
      await rig.close();
      await appliance.close();
    },
  };
}

export type DeviceRig = Awaited<ReturnType<typeof startDeviceRig>>;
