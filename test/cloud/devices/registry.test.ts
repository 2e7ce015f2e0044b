import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type DeviceCloud,
  deviceBody,
  deviceCloud,
  enrolledDevice,
  expectError,
  expectOk,
  registerDevice,
} from './device-client.ts';

const UNKNOWN_ID = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';

describe.each(backends)('device registry on %s', (backend) => {
  let context: DeviceCloud;
  beforeAll(async () => {
    context = await deviceCloud(backend);
  });
  afterAll(() => context.cloud.close());

  it('registers a device with the fields the spec names and a token shown once', async () => {
    const body = deviceBody(context.a.location.id, { device_type: 'sensor', name: 'Walk-in fridge' });
    const created = expectOk(await context.adminA.call('POST', '/v1/mdm/devices', body), 201);
    const now = context.cloud.clock.now().getTime();
    expect(created).toEqual({
      id: expect.any(String),
      tenant_id: context.a.tenant.id,
      location_id: context.a.location.id,
      device_type: 'sensor',
      name: 'Walk-in fridge',
      serial_number: body.serial_number,
      model: 'KDS-15',
      firmware_version: '1.0.0',
      state: 'pending_activation',
      last_seen_at: null,
      enrolled_at: null,
      certificate_expires_at: null,
      enrollment_token_expires_at: new Date(now + 7 * 86_400_000).toISOString(),
      revoked_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      enrollment_token: expect.stringMatching(/^det_/),
    });
    const read = expectOk(await context.managerA.call('GET', `/v1/mdm/devices/${created.id}`));
    const { enrollment_token: _shownOnce, ...record } = created;
    expect(read).toEqual(record);
    // Administration is on the audit trail with its actor.
    const audit = await context.cloud.services.audit.list(context.a.tenant.id, {
      limit: 5,
      action: 'mdm.post /v1/mdm/devices',
    });
    expect(audit[0]).toMatchObject({ outcome: 'success', user_id: expect.any(String) });
  });

  it('answers 400 INVALID_REQUEST with details to a bad registration', async () => {
    const post = (payload: unknown) => context.adminA.call('POST', '/v1/mdm/devices', payload);
    const error = expectError(
      await post({ location_id: 'x', device_type: 'toaster', name: '', extra: 1 }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details.map((detail) => detail.field).sort()).toEqual(
      ['body.device_type', 'body.extra', 'body.location_id', 'body.name', 'body.serial_number'].sort(),
    );
    const elsewhere = expectError(await post(deviceBody(context.b.location.id)), 400, 'INVALID_REQUEST');
    expect(elsewhere.details).toEqual([
      { field: 'body.location_id', message: 'does not exist in this tenant' },
    ]);
  });

  it('registers a serial number once per tenant, again once its device is revoked', async () => {
    const body = deviceBody(context.a.location.id);
    const first = await registerDevice(context.adminA, context.a.location.id, {
      serial_number: body.serial_number,
    });
    const taken = expectError(
      await context.adminA.call('POST', '/v1/mdm/devices', body),
      409,
      'SERIAL_NUMBER_TAKEN',
    );
    expect(taken.details).toEqual([{ field: 'body.serial_number', message: 'is already registered' }]);
    // Another tenant's hardware numbering is its own business.
    expectOk(
      await context.adminB.call('POST', '/v1/mdm/devices', { ...body, location_id: context.b.location.id }),
      201,
    );
    expectOk(await context.adminA.call('POST', `/v1/mdm/devices/${first.id}/revoke`, {}));
    expectOk(await context.adminA.call('POST', '/v1/mdm/devices', body), 201);
  });

  it('lists devices by location, state and type, a page at a time', async () => {
    const printer = await registerDevice(context.adminA, context.a.location.id, { device_type: 'printer' });
    const enrolled = await enrolledDevice(context, { device_type: 'camera' });
    const list = async (query: string) => context.managerA.call('GET', `/v1/mdm/devices${query}`);
    const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);

    expect(ids(expectOk(await list('?device_type=printer')))).toContain(printer.id);
    expect(ids(expectOk(await list('?device_type=printer')))).not.toContain(enrolled.device_id);
    expect(ids(expectOk(await list('?state=active&device_type=camera')))).toEqual([enrolled.device_id]);
    expect(expectOk(await list(`?location_id=${context.b.location.id}`))).toEqual([]);

    const all = ids(expectOk(await list('?limit=200')));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const body: { data: Array<{ id: string }>; meta: { pagination: { next_cursor: string | null } } } = (
        await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      seen.push(...ids(body.data));
      cursor = body.meta.pagination.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(all);
    expectError(await list('?state=sleeping'), 400, 'INVALID_REQUEST');
  });

  it('lets managers read and only administrators change; staff see nothing', async () => {
    const device = await registerDevice(context.adminA, context.a.location.id);
    const writes: Array<[string, unknown?]> = [
      ['/v1/mdm/devices', deviceBody(context.a.location.id)],
      [`/v1/mdm/devices/${device.id}/regenerate-token`],
      [`/v1/mdm/devices/${device.id}/revoke`, {}],
      [`/v1/mdm/devices/${device.id}/restart`],
      [`/v1/mdm/devices/${device.id}/updates/cancel`],
      ['/v1/mdm/certificates/4a/revoke', {}],
    ];
    for (const [path, payload] of writes)
      expectError(await context.managerA.call('POST', path, payload), 403, 'FORBIDDEN');
    const reads = [
      '/v1/mdm/devices',
      `/v1/mdm/devices/${device.id}`,
      `/v1/mdm/devices/${device.id}/updates/status`,
      '/v1/mdm/certificates',
      `/v1/iot/devices/${device.id}/telemetry`,
    ];
    for (const path of reads) {
      expectError(await context.staffA.call('GET', path), 403, 'FORBIDDEN');
      expectError(await context.anonymous('GET', path), 401, 'MISSING_TOKEN');
    }
    expectOk(await context.managerA.call('GET', `/v1/mdm/devices/${device.id}`));
    expectError(await context.adminA.call('GET', `/v1/mdm/devices/${UNKNOWN_ID}`), 404, 'DEVICE_NOT_FOUND');
    expectError(await context.adminA.call('GET', '/v1/mdm/devices/not-a-uuid'), 400, 'INVALID_REQUEST');
  });
});
