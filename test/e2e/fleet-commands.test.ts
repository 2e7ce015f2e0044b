import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { createCommandJournal } from '../../appliance/fleet/journal.ts';
import { type CommandHandler, createApplianceFleetLink } from '../../appliance/fleet/link.ts';
import { loadCloudConfig } from '../../cloud/config.ts';
import { startCloud } from '../../cloud/main.ts';
import type { CloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import type { FleetCommand } from '../../shared/devices/fleet-protocol.ts';
import { deviceKey } from '../cloud/devices/device-client.ts';

const log = pino({ level: 'silent' });

describe('device commands over the fleet link', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function setUp(handlers: Record<string, CommandHandler>) {
    const dataDir = mkdtempSync(join(tmpdir(), 'fleet-cloud-'));
    closers.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    let seeded: { tenantId: string; locationId: string } | undefined;
    const cloud = await startCloud(
      {
        ...loadCloudConfig({
          DATA_DIR: dataDir,
          CLOUD_PORT: '0',
          LOG_LEVEL: 'silent',
          CLOUD_RATE_LIMIT: 'false',
        }),
        hashing: { memoryCost: 1024, timeCost: 1 },
      },
      {
        log,
        beforeListen: async (services: CloudServices) => {
          const tenant = await services.tenancy.createTenant({
            slug: 'acme',
            name: 'Acme',
            tier: 'enterprise',
          });
          const brand = await services.tenancy.createGroup('brands', tenant.id, 'Brand');
          const region = await services.tenancy.createGroup('regions', tenant.id, 'Region');
          const location = await services.tenancy.createLocation(tenant.id, {
            name: 'Store 1',
            brand_id: brand.id,
            region_id: region.id,
          });
          seeded = { tenantId: tenant.id, locationId: location.id };
        },
      },
    );
    closers.push(cloud.stop);
    const { tenantId, locationId } = seeded!;
    const services = cloud.services;
    // The store's appliance, enrolled as the registry's device: its fleet credential comes with it.
    const applianceDevice = await services.devices.register(tenantId, {
      location_id: locationId,
      device_type: 'appliance',
      name: 'Store 1 appliance',
      serial_number: 'APL-1',
    });
    const applianceKey = await deviceKey();
    const enrolled = await services.devices.enrol({
      enrollment_token: applianceDevice.enrollment_token,
      csr: applianceKey.csr,
    });
    // What its enrolment left on its disk: its key, its certificate and the CA's.
    const certificate = {
      key: applianceKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      cert: enrolled.certificate,
      ca: enrolled.ca_certificate,
    };
    const provisioned = { id: applianceDevice.id, credential: enrolled.sync_credential! };
    const applianceDir = mkdtempSync(join(tmpdir(), 'fleet-appliance-'));
    const db = openApplianceDb(applianceDir);
    closers.push(async () => {
      db.close();
      rmSync(applianceDir, { recursive: true, force: true });
    });
    /** The appliance's link: by default with its credential, or over TLS with its certificate alone. */
    const appliance = (over: 'credential' | 'certificate' = 'credential') => {
      const link = createApplianceFleetLink({
        ...(over === 'credential'
          ? { url: cloud.fleet!.url, username: provisioned.id, password: provisioned.credential }
          : { url: cloud.fleet!.tlsUrl!, tls: certificate }),
        tenantId,
        applianceId: provisioned.id,
        version: '1.0.0',
        journal: createCommandJournal(db),
        handlers,
        clock: systemClock,
        log,
      });
      closers.push(() => link.close());
      return link;
    };
    // A kitchen screen of the store, enrolled with a key made on it.
    const registered = await services.devices.register(tenantId, {
      location_id: locationId,
      device_type: 'kds',
      name: 'Kitchen screen',
      serial_number: 'SN-1',
    });
    const key = await deviceKey();
    await services.devices.enrol({ enrollment_token: registered.enrollment_token, csr: key.csr });
    const state = async (commandId: string) =>
      (await services.devices.commandsFor(tenantId, { deviceId: registered.id, limit: 10 })).find(
        (command) => command.command_id === commandId,
      )?.state;
    return {
      cloud,
      services,
      tenantId,
      locationId,
      deviceId: registered.id,
      appliance,
      state,
      applianceId: provisioned.id,
      certificate: { ...certificate, serial: enrolled.serial },
    };
  }

  it('shows the appliance online with its version in the registry, and offline once it leaves', async () => {
    const { services, tenantId, appliance, applianceId } = await setUp({});
    const link = appliance();
    await link.start();
    const record = () => services.devices.getDevice(tenantId, applianceId);
    await expect.poll(async () => (await record()).state, { timeout: 5000 }).toBe('online');
    expect(await record()).toMatchObject({ firmware_version: '1.0.0', last_seen_at: expect.any(String) });
    await link.close();
    await expect.poll(async () => (await record()).state, { timeout: 5000 }).toBe('offline');
  });

  it('carries a restart to the store’s appliance for its device, and shows the command succeeded', async () => {
    const seen: FleetCommand[] = [];
    const { services, tenantId, deviceId, appliance, state } = await setUp({
      restart: async (command) => {
        seen.push(command);
        return { restarted: command.device_id };
      },
    });
    await appliance().start();
    const queued = await services.devices.restart(tenantId, deviceId);
    await expect.poll(() => state(queued.command_id), { timeout: 5000 }).toBe('succeeded');
    expect(seen.map((command) => [command.kind, command.device_id])).toEqual([['restart', deviceId]]);
  });

  it('holds a command for an appliance that is away and delivers it once it is back', async () => {
    let runs = 0;
    const { services, tenantId, deviceId, appliance, state } = await setUp({
      restart: async () => ({ runs: ++runs }),
    });
    const first = appliance();
    await first.start();
    await first.close();
    const queued = await services.devices.restart(tenantId, deviceId);
    await expect.poll(() => state(queued.command_id), { timeout: 5000 }).toBe('sent');
    await appliance().start();
    await expect.poll(() => state(queued.command_id), { timeout: 5000 }).toBe('succeeded');
    expect(runs).toBe(1);
  });

  it('lets the appliance in over TLS by its certificate alone, until that certificate is revoked', async () => {
    const { cloud, services, tenantId, deviceId, appliance, applianceId, certificate, state } = await setUp({
      restart: async () => ({ restarted: true }),
    });
    const link = appliance('certificate');
    await link.start();
    const queued = await services.devices.restart(tenantId, deviceId);
    await expect.poll(() => state(queued.command_id), { timeout: 5000 }).toBe('succeeded');
    await link.close();

    const tlsUrl = cloud.fleet!.tlsUrl!;
    const attempt = (tls: { key: string; cert: string; ca: string }, clientId = applianceId) =>
      connectAsync(tlsUrl, { ...tls, clientId, reconnectPeriod: 0, connectTimeout: 5000 });
    // Another device's certificate of the same CA is no appliance's.
    const screenKey = await deviceKey();
    const screen = await services.devices.register(tenantId, {
      location_id: (await services.devices.getDevice(tenantId, deviceId)).location_id,
      device_type: 'kds',
      name: 'Second screen',
      serial_number: 'SN-2',
    });
    const screenIssued = await services.devices.enrol({
      enrollment_token: screen.enrollment_token,
      csr: screenKey.csr,
    });
    const screenTls = {
      key: screenKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      cert: screenIssued.certificate,
      ca: screenIssued.ca_certificate,
    };
    await expect(attempt(screenTls, screen.id)).rejects.toThrow(/Not authorized/);
    // The appliance's own certificate under another client id is refused too.
    await expect(attempt(certificate, 'someone-else')).rejects.toThrow(/Identifier rejected/);

    await services.devices.revokeCertificate(tenantId, certificate.serial, 'key_compromise');
    await expect(attempt(certificate)).rejects.toThrow(/Not authorized/);
  });

  it('carries the cancellation of an update in progress to the appliance, which stops it', async () => {
    let stopped = false;
    const { services, tenantId, applianceId, appliance } = await setUp({
      update: (_command, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            stopped = true;
            reject(new Error('cancelled'));
          });
        }),
    });
    await appliance().start();
    const update = await services.devices.queueCommand(tenantId, applianceId, {
      kind: 'update',
      payload: { version: '2.0.0' },
    });
    const states = async (kind: 'update' | 'cancel_update') =>
      (await services.devices.commandsFor(tenantId, { deviceId: applianceId, kind, limit: 10 })).map(
        (command) => command.state,
      );
    await expect.poll(() => states('update'), { timeout: 5000 }).toEqual(['acknowledged']);
    expect(await services.devices.cancelUpdate(tenantId, applianceId)).toMatchObject({
      command_id: update.command_id,
      state: 'cancelled',
    });
    await expect.poll(() => states('cancel_update'), { timeout: 5000 }).toEqual(['succeeded']);
    expect(stopped).toBe(true);
    expect(await states('update')).toEqual(['cancelled']);
  });

  it('turns a manager’s sync trigger into sync_now at the appliance', async () => {
    const seen: FleetCommand[] = [];
    const { services, tenantId, locationId, appliance } = await setUp({
      sync_now: async (command) => {
        seen.push(command);
        return undefined;
      },
    });
    await appliance().start();
    await services.sync.trigger(tenantId, locationId, 'high');
    await expect
      .poll(() => seen.map((command) => command.payload.priority), { timeout: 5000 })
      .toEqual(['high']);
  });
});
