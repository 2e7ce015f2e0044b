import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createRevocationList } from '../../../appliance/identity/revocations.ts';
import { deviceKey } from '../../cloud/devices/device-client.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';

describe('the revocation list the store’s broker checks', () => {
  let cloud: TestCloud | undefined;
  let dir = '';
  afterEach(async () => {
    await cloud?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('learns revoked serials from the cloud as they come, and keeps them when the cloud is gone', async () => {
    cloud = await createTestCloud('sqlite');
    await cloud.app.listen({ port: 0, host: '127.0.0.1' });
    const cloudUrl = `http://127.0.0.1:${(cloud.app.server.address() as { port: number }).port}`;
    const { tenant, location } = await seedTenant(cloud.services, 'acme');
    const enrolled = [];
    for (const serial of ['KDS-1', 'KDS-2']) {
      const device = await cloud.services.devices.register(tenant.id, {
        location_id: location.id,
        device_type: 'kds',
        name: serial,
        serial_number: serial,
      });
      enrolled.push(
        await cloud.services.devices.enrol({
          enrollment_token: device.enrollment_token,
          csr: (await deviceKey()).csr,
        }),
      );
    }
    const [stolen, fine] = enrolled as [(typeof enrolled)[number], (typeof enrolled)[number]];
    await cloud.services.devices.revokeCertificate(tenant.id, stolen.serial, 'key_compromise');

    dir = mkdtempSync(join(tmpdir(), 'revocations-'));
    const file = join(dir, 'revoked.json');
    const options = { cloudUrl, file, clock: cloud.clock, log: pino({ level: 'silent' }) };
    const list = createRevocationList(options);
    expect(await list.refresh()).toBe(1);
    expect(list.isRevoked(stolen.serial)).toBe(true);
    expect(list.isRevoked(stolen.serial.toUpperCase())).toBe(true);
    expect(list.isRevoked(fine.serial)).toBe(false);
    // Later revocations arrive with the next refresh, which asks only for what came since.
    cloud.clock.advance(1000);
    await cloud.services.devices.revokeCertificate(tenant.id, fine.serial, 'cessation_of_operation');
    await list.refresh();
    expect(list.isRevoked(fine.serial)).toBe(true);

    await cloud.close();
    cloud = undefined;
    const afterRestart = createRevocationList(options);
    expect(afterRestart.isRevoked(stolen.serial)).toBe(true);
    expect(afterRestart.isRevoked(fine.serial)).toBe(true);
    await expect(afterRestart.refresh()).rejects.toThrow();
    expect(afterRestart.isRevoked(stolen.serial)).toBe(true);
  });
});
