import { afterEach, describe, expect, it } from 'vitest';
import { x509 } from '../../../shared/devices/x509.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { deviceKey } from './device-client.ts';

describe.each(backends)('an appliance’s enrolment (%s)', (backend) => {
  let cloud: TestCloud;
  afterEach(() => cloud.close());

  it('gives it a sync and fleet-link credential under its registry id, renewed by enrolling again', async () => {
    cloud = await createTestCloud(backend);
    const { tenant, location } = await seedTenant(cloud.services, 'acme');
    const devices = cloud.services.devices;
    const appliance = await devices.register(tenant.id, {
      location_id: location.id,
      device_type: 'appliance',
      name: 'Store 1 appliance',
      serial_number: 'APL-1',
    });
    const first = await devices.enrol({
      enrollment_token: appliance.enrollment_token,
      csr: (await deviceKey()).csr,
    });
    expect(first.sync_credential).toMatch(new RegExp(`^sak_${appliance.id}\\.`));
    // It serves its store's devices over TLS with this certificate, so it is a server's too.
    const usages = (pem: string) =>
      new x509.X509Certificate(pem).getExtension(x509.ExtendedKeyUsageExtension)?.usages;
    expect(usages(first.certificate)).toEqual([
      x509.ExtendedKeyUsage.clientAuth,
      x509.ExtendedKeyUsage.serverAuth,
    ]);
    expect(await cloud.services.sync.authenticate(first.sync_credential!)).toMatchObject({
      applianceId: appliance.id,
      tenantId: tenant.id,
      locationId: location.id,
    });

    const again = await devices.regenerateToken(tenant.id, appliance.id);
    const second = await devices.enrol({
      enrollment_token: again.enrollment_token,
      csr: (await deviceKey()).csr,
    });
    expect(await cloud.services.sync.authenticate(second.sync_credential!)).toMatchObject({
      applianceId: appliance.id,
    });
    expect(await cloud.services.sync.authenticate(first.sync_credential!)).toBeUndefined();

    // Other devices get a certificate only.
    const screen = await devices.register(tenant.id, {
      location_id: location.id,
      device_type: 'kds',
      name: 'Kitchen screen',
      serial_number: 'KDS-1',
    });
    const issued = await devices.enrol({
      enrollment_token: screen.enrollment_token,
      csr: (await deviceKey()).csr,
    });
    expect(issued.sync_credential).toBeUndefined();
    expect(usages(issued.certificate)).toEqual([x509.ExtendedKeyUsage.clientAuth]);
  });
});
