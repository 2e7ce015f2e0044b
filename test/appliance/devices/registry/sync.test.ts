import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApplianceServices,
  buildApplianceApp,
  createApplianceServices,
} from '../../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../../appliance/db/index.ts';
import { createManualClock, type ManualClock } from '../../../../shared/clock.ts';
import { createSecretHasher } from '../../../../shared/identity/secrets.ts';
import { newId } from '../../../../shared/ids.ts';
import { deviceKey } from '../../../cloud/devices/device-client.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../../support/cloud.ts';
import { backends } from '../../../support/stores.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

/** The registry's synced tables reach a real cloud, through the real sync client, unrejected. */
describe.each(backends)('device registry in sync with the cloud (%s)', (backend) => {
  let cloud: TestCloud;
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let clock: ManualClock;
  let tenantId: string;
  let locationId: string;
  /** A sensor of the cloud's registry, enrolled: the store's broker knows it by that id. */
  let fridge: { deviceId: string; deviceType: 'sensor' };

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    const seeded = await seedTenant(cloud.services, 'acme');
    tenantId = seeded.tenant.id;
    locationId = seeded.location.id;
    const registered = await cloud.services.devices.register(tenantId, {
      location_id: locationId,
      device_type: 'sensor',
      name: 'Walk-in fridge',
      serial_number: 'FRIDGE-1',
    });
    await cloud.services.devices.enrol({
      enrollment_token: registered.enrollment_token,
      csr: (await deviceKey()).csr,
    });
    fridge = { deviceId: registered.id, deviceType: 'sensor' };
    const cloudUrl = await cloud.app.listen({ host: '127.0.0.1', port: 0 });
    const { credential } = await cloud.services.sync.provisionAppliance(tenantId, {
      location_id: locationId,
    });
    dir = mkdtempSync(join(tmpdir(), 'appliance-devices-sync-'));
    db = openApplianceDb(dir);
    const config = {
      ...loadApplianceConfig({
        TENANT_ID: tenantId,
        LOCATION_ID: locationId,
        CLOUD_URL: cloudUrl,
        APPLIANCE_CLOUD_CREDENTIAL: credential,
      }),
      logLevel: 'silent' as const,
    };
    // Two minutes ago, so that the samples' minute is over by now.
    clock = createManualClock(new Date(Date.now() - 120_000));
    const deps = { db, clock, newId, hasher };
    services = createApplianceServices(config, deps);
    app = await buildApplianceApp(config, deps, services);
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
    await cloud.close();
  });

  const cloudRows = async (table: string) =>
    (await cloud.services.sync.rows(tenantId, locationId, table as never)).map((row) => ({
      version: row.version,
      fields: row.fields,
    }));

  it('carries devices, minute summaries and temperature alerts up', async () => {
    const { devices } = services;
    devices.connected(fridge);
    devices.reported(fridge, { online: true, firmware: '2.1.0' });
    devices.putSettings(fridge.deviceId, { max_temperature_c: 5 });
    devices.telemetry(fridge, { temperature_c: 4 });
    devices.telemetry(fridge, { temperature_c: 7.5 });
    devices.flush();
    clock.advance(120_000);
    devices.maintain();
    devices.disconnected(fridge.deviceId);

    const round = await app.sync!.syncNow();
    expect(round).toMatchObject({ rejected: 0, conflicts: 0 });
    const [device] = await cloudRows('store_devices');
    expect(device).toMatchObject({
      version: 3,
      fields: {
        id: fridge.deviceId,
        device_type: 'sensor',
        status: 'offline',
        firmware: '2.1.0',
        location_id: locationId,
      },
    });
    const minutes = await cloudRows('device_telemetry_minutes');
    expect(minutes).toHaveLength(1);
    expect(minutes[0]!.fields).toMatchObject({ device_id: fridge.deviceId, samples: 2 });
    // The alert lands in the cloud's event log, and opens an incident.
    const events = await cloud.services.events.list(cloud.store.db, tenantId, { limit: 10 });
    expect(events.map((e) => e.type)).toEqual(['device.temperature_alert']);
    expect(JSON.parse(String(events[0]!.data))).toMatchObject({
      type: 'temperature_alert',
      device_id: fridge.deviceId,
      location_id: locationId,
      severity: 'high',
    });
    const incidents = await cloud.services.incidents.list(tenantId, {}, { limit: 10 });
    expect(incidents.items).toMatchObject([
      {
        type: 'temperature_alert',
        title: `Temperature alert: sensor at location ${locationId}`,
        device_id: fridge.deviceId,
        location_id: locationId,
        status: 'open',
      },
    ]);

    // The cloud's registry learned what the store's broker saw, and /v1/iot answers from the minutes.
    expect(await cloud.services.devices.getDevice(tenantId, fridge.deviceId)).toMatchObject({
      state: 'offline',
      firmware_version: '2.1.0',
      last_seen_at: expect.any(String),
    });
    const telemetry = await cloud.services.devices.telemetryFor(tenantId, fridge.deviceId, '1h');
    expect(telemetry).toMatchObject({ samples: 2 });
    expect(telemetry.metrics.temperature_c).toMatchObject({ count: 2, min: 4, max: 7.5, last: 7.5 });
  });
});
