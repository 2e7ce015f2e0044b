import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createCertificateKeeper } from '../../../appliance/identity/certificate.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { x509 } from '../../../shared/devices/x509.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';

describe('the appliance’s own certificate', () => {
  let cloud: TestCloud;
  let dir: string;
  afterEach(async () => {
    await cloud.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('enrols with its one-time token, and renews for a new key shortly before expiry', async () => {
    cloud = await createTestCloud('sqlite');
    await cloud.app.listen({ port: 0, host: '127.0.0.1' });
    const address = cloud.app.server.address() as { port: number };
    const { tenant, location } = await seedTenant(cloud.services, 'acme');
    const registered = await cloud.services.devices.register(tenant.id, {
      location_id: location.id,
      device_type: 'appliance',
      name: 'Store 1 appliance',
      serial_number: 'APL-1',
    });
    dir = mkdtempSync(join(tmpdir(), 'appliance-identity-'));
    const clock = createManualClock(cloud.clock.now());
    const keeper = createCertificateKeeper({
      dir,
      cloudUrl: `http://127.0.0.1:${address.port}`,
      clock,
      log: pino({ level: 'silent' }),
      renewWithinDays: 30,
    });
    await keeper.enrol(registered.enrollment_token);
    const first = new x509.X509Certificate(readFileSync(keeper.files.cert, 'utf8'));
    const firstKey = readFileSync(keeper.files.key, 'utf8');
    expect(first.subject).toContain(`CN=${registered.id}`);
    // The same enrolment gave it the credential it syncs and joins the fleet link with, under its id.
    const credential = readFileSync(keeper.files.syncCredential, 'utf8');
    expect(await cloud.services.sync.authenticate(credential)).toEqual({
      applianceId: registered.id,
      tenantId: tenant.id,
      locationId: location.id,
    });
    expect(await keeper.renewIfDue()).toBe(false);

    // 65 days on: within 30 days of the 90-day certificate's end.
    clock.advance(65 * 86_400_000);
    cloud.clock.advance(65 * 86_400_000);
    expect(await keeper.renewIfDue()).toBe(true);
    const second = new x509.X509Certificate(readFileSync(keeper.files.cert, 'utf8'));
    expect(second.serialNumber).not.toBe(first.serialNumber);
    expect(readFileSync(keeper.files.key, 'utf8')).not.toBe(firstKey);
    expect(second.notAfter.getTime()).toBeGreaterThan(first.notAfter.getTime());
    // The certificate it replaced is revoked: a stolen old key renews nothing more.
    const revoked = await cloud.services.devices.revokedSerials();
    expect(JSON.stringify(revoked)).toContain(first.serialNumber.toLowerCase().replace(/^0+/, ''));
  });
});
