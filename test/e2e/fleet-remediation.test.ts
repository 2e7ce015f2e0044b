import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApplianceDb } from '../../appliance/db/index.ts';
import type { DeviceRegistry } from '../../appliance/devices/registry/index.ts';
import { createApplianceFleet } from '../../appliance/fleet/index.ts';
import { loadCloudConfig } from '../../cloud/config.ts';
import { startCloud } from '../../cloud/main.ts';
import type { CloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { deviceKey } from '../cloud/devices/device-client.ts';

const log = pino({ level: 'silent' });

interface Remediation {
  id: string;
  status: string;
  result: {
    success: boolean;
    details: { commands: Array<{ device_id: string; state: string; result: Record<string, unknown> }> };
  };
  [field: string]: unknown;
}
const PASSWORD = 'correct-horse-battery';

/**
 * Auto-remediation end to end: an alert about a store's appliance, remediated over HTTP, travels
 * as an MDM command over the fleet broker to a real appliance fleet link, which rotates its logs,
 * clears its cache and restarts itself; the remediation record shows what the appliance answered.
 */
describe('remediation carried out by a real appliance over the fleet link', () => {
  const closers: Array<() => Promise<void> | void> = [];
  let base: string;
  let token: string;
  let applianceId: string;
  let applianceDir: string;
  let restarts = 0;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'remediation-cloud-'));
    closers.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let seeded: { tenantId: string; locationId: string } | undefined;
    const config = {
      ...loadCloudConfig({
        DATA_DIR: dataDir,
        CLOUD_PORT: '0',
        LOG_LEVEL: 'silent',
        CLOUD_RATE_LIMIT: 'false',
      }),
      hashing: { memoryCost: 1024, timeCost: 1 },
    };
    const cloud = await startCloud(config, {
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
        await services.tenancy.addUser(tenant.id, {
          email: 'manager@acme.test',
          password: PASSWORD,
          roles: ['manager'],
        });
        seeded = { tenantId: tenant.id, locationId: location.id };
      },
    });
    closers.unshift(cloud.stop);
    const { tenantId, locationId } = seeded!;
    base = `http://127.0.0.1:${cloud.port}`;
    const login = await fetch(`${base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'manager@acme.test', password: PASSWORD }),
    });
    token = ((await login.json()) as { status: { access_token: string } }).status.access_token;

    // The store's appliance, enrolled through MDM: its fleet credential comes with it.
    const device = await cloud.services.devices.register(tenantId, {
      location_id: locationId,
      device_type: 'appliance',
      name: 'Store 1 appliance',
      serial_number: 'APL-1',
    });
    const key = await deviceKey();
    const enrolled = await cloud.services.devices.enrol({
      enrollment_token: device.enrollment_token,
      csr: key.csr,
    });
    applianceId = device.id;

    applianceDir = mkdtempSync(join(tmpdir(), 'remediation-appliance-'));
    mkdirSync(join(applianceDir, 'logs'));
    mkdirSync(join(applianceDir, 'cache'));
    writeFileSync(join(applianceDir, 'logs', 'appliance.log'), 'line\n'.repeat(100));
    writeFileSync(join(applianceDir, 'cache', 'menu-images.bin'), Buffer.alloc(4096));
    const db = openApplianceDb(applianceDir);
    const fleet = await createApplianceFleet(
      {
        url: cloud.fleet!.url,
        prefix: config.fleet.prefix,
        applianceId: device.id,
        credential: enrolled.sync_credential!,
        tls: undefined,
        updatePublicKeyFile: undefined,
      },
      {
        db,
        clock: systemClock,
        log,
        tenantId,
        dataDir: applianceDir,
        version: '1.0.0',
        syncNow: undefined,
        restartSelf: () => {
          restarts += 1;
        },
        restartDelayMs: 10,
        // Store devices are not involved: remediation acts on the appliance itself.
        devices: {} as DeviceRegistry,
        deviceCommands: undefined,
      },
    );
    await fleet.link.start();
    closers.unshift(async () => {
      await fleet.link.close();
      db.close();
      rmSync(applianceDir, { recursive: true, force: true });
    });
  });

  afterAll(async () => {
    for (const close of closers) await close();
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data: Remediation } };
  };

  async function alertAboutAppliance(title: string) {
    const ingested = await post('/api/v1/alerts/ingest', {
      source: 'edge_metrics',
      severity: 'P3',
      title,
      service: 'appliance',
      environment: 'development',
      labels: { device_id: applianceId },
    });
    expect(ingested.status).toBe(201);
    return ingested.body.data.id as string;
  }

  it('rotates the appliance’s logs', async () => {
    const alertId = await alertAboutAppliance('Disk filling with logs');
    const done = await post('/api/v1/alerting/aiops/remediate', { alert_id: alertId, action: 'rotate_logs' });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({
      status: 'executed',
      auto_approved: true,
      result: { success: true },
    });
    const [command] = done.body.data.result.details.commands;
    expect(command).toMatchObject({
      device_id: applianceId,
      state: 'succeeded',
      result: { rotated: ['appliance.log'] },
    });
    const files = readdirSync(join(applianceDir, 'logs'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^appliance\.log\.\d{8}T\d{6}Z$/);
  });

  it('clears the appliance’s cache', async () => {
    const alertId = await alertAboutAppliance('Stale menu images');
    const done = await post('/api/v1/alerting/aiops/remediate', { alert_id: alertId, action: 'clear_cache' });
    expect(done.body.data).toMatchObject({ status: 'executed', result: { success: true } });
    expect(done.body.data.result.details.commands[0]?.result).toMatchObject({ files: 1, bytes: 4096 });
    expect(readdirSync(join(applianceDir, 'cache'))).toEqual([]);
  });

  it('restarts the appliance, and fails clearly for a service it does not know', async () => {
    const alertId = await alertAboutAppliance('Appliance unresponsive');
    const done = await post('/api/v1/alerting/aiops/remediate', {
      alert_id: alertId,
      action: 'restart_service',
      parameters: { service: 'appliance' },
    });
    expect(done.body.data).toMatchObject({ status: 'executed', result: { success: true } });
    await expect.poll(() => restarts, { timeout: 2000 }).toBe(1);
    const unknown = await post('/api/v1/alerting/aiops/remediate', {
      alert_id: alertId,
      action: 'restart_service',
      parameters: { service: 'printer-spooler' },
    });
    expect(unknown.body.data).toMatchObject({ status: 'failed', result: { success: false } });
    expect(unknown.body.data.result.details.commands[0]!).toMatchObject({ state: 'failed' });
    expect(JSON.stringify(unknown.body.data.result.details)).toContain('unknown service printer-spooler');
  });
});
