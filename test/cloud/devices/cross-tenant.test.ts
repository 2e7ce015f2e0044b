import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedTenant } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import {
  type DeviceCloud,
  deviceBody,
  deviceCloud,
  enrolledDevice,
  expectError,
  expectOk,
  member,
} from './device-client.ts';

let tenantSeq = 0;

describe.each(backends)('devices across tenants on %s', (backend) => {
  let shared: DeviceCloud;
  /**
   * The file's cloud and tenant A, with a tenant B of the running test's own (its advanceDays signs
   * in the file's B again, not this one).
   */
  let context: DeviceCloud;
  // One cloud for the file; each test has a B of its own: a device one test gives B would otherwise
  // show in another's check that B's lists are empty.
  beforeAll(async () => {
    shared = await deviceCloud(backend);
  });
  beforeEach(async () => {
    const n = ++tenantSeq;
    const b = await seedTenant(shared.cloud.services, `bravo-${n}`);
    const adminB = await member(shared.cloud, b.tenant.id, `admin@bravo-${n}.test`, ['tenant_admin']);
    context = { ...shared, b, adminB };
  });
  afterAll(() => shared.cloud.close());

  it('answers 404 to B’s admin for every endpoint about A’s device, and changes nothing', async () => {
    const device = await enrolledDevice(context);
    const id = device.device_id;
    const services = context.cloud.services.devices;
    const update = await services.queueCommand(context.a.tenant.id, id, {
      kind: 'update',
      payload: { version: '2.0.0' },
    });
    await services.recordStoreMinutes(context.cloud.store.db, context.a.tenant.id, context.a.location.id, [
      {
        id: `minute-${id}`,
        device_id: id,
        minute: context.cloud.clock.now().toISOString(),
        samples: 1,
        metrics: { t: 1 },
      },
    ]);
    const snapshot = async () => ({
      device: expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${id}`)),
      update: expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${id}/updates/status`)),
      commands: await services.commandsFor(context.a.tenant.id, { deviceId: id, limit: 100 }),
      revoked: expectOk(await context.anonymous('GET', '/v1/mdm/certificates/revoked')),
    });
    const before = await snapshot();

    const attempts: Array<[method: 'GET' | 'POST', path: string, code: string, payload?: unknown]> = [
      ['GET', `/v1/mdm/devices/${id}`, 'DEVICE_NOT_FOUND'],
      ['POST', `/v1/mdm/devices/${id}/regenerate-token`, 'DEVICE_NOT_FOUND'],
      ['POST', `/v1/mdm/devices/${id}/revoke`, 'DEVICE_NOT_FOUND', {}],
      ['POST', `/v1/mdm/devices/${id}/restart`, 'DEVICE_NOT_FOUND'],
      ['GET', `/v1/mdm/devices/${id}/updates/status`, 'DEVICE_NOT_FOUND'],
      ['POST', `/v1/mdm/devices/${id}/updates/cancel`, 'DEVICE_NOT_FOUND'],
      ['GET', `/v1/iot/devices/${id}/telemetry?period=7d`, 'DEVICE_NOT_FOUND'],
      [
        'POST',
        `/v1/mdm/certificates/${device.serial}/revoke`,
        'CERTIFICATE_NOT_FOUND',
        { reason: 'key_compromise' },
      ],
    ];
    for (const [method, path, code, payload] of attempts) {
      const response = await context.adminB.call(method, path, payload);
      expect(response.body).not.toContain(device.serial);
      expectError(response, 404, code);
    }

    // Lists show B's own rows only, whatever the filter.
    expect(expectOk(await context.adminB.call('GET', '/v1/mdm/devices'))).toEqual([]);
    expect(
      expectOk(await context.adminB.call('GET', `/v1/mdm/devices?location_id=${context.a.location.id}`)),
    ).toEqual([]);
    expect(
      expectOk(
        await context.adminB.call('GET', '/v1/mdm/certificates?expiring_within=3650d&include_revoked=true'),
      ),
    ).toEqual([]);
    // Nor can B register a device at A's store.
    expectError(
      await context.adminB.call('POST', '/v1/mdm/devices', deviceBody(context.a.location.id)),
      400,
      'INVALID_REQUEST',
    );

    const after = await snapshot();
    expect(after).toEqual(before);
    expect(after.update).toMatchObject({ command_id: update.command_id, state: 'queued' });
    expect(after.device.state).toBe('active');
  });

  it('keeps B’s reads and writes on B’s devices', async () => {
    const mine = expectOk(
      await context.adminB.call('POST', '/v1/mdm/devices', deviceBody(context.b.location.id)),
      201,
    );
    expect(
      expectOk(await context.adminB.call('GET', '/v1/mdm/devices')).map((row: { id: string }) => row.id),
    ).toEqual([mine.id]);
    expectError(await context.adminA.call('GET', `/v1/mdm/devices/${mine.id}`), 404, 'DEVICE_NOT_FOUND');
    expectError(
      await context.managerA.call('GET', `/v1/iot/devices/${mine.id}/telemetry`),
      404,
      'DEVICE_NOT_FOUND',
    );
  });
});
