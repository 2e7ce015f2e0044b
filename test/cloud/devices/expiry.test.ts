import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { type DeviceCloud, deviceCloud, enrolledDevice, expectError, expectOk } from './device-client.ts';

describe.each(backends)('certificates by expiry on %s', (backend) => {
  let context: DeviceCloud;
  beforeAll(async () => {
    context = await deviceCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const list = (query: string, as = context.adminA) => as.call('GET', `/v1/mdm/certificates${query}`);

  it('lists the tenant’s certificates running out within the window, soonest first', async () => {
    const first = await enrolledDevice(context);
    await context.advanceDays(30);
    const second = await enrolledDevice(context);
    const third = await enrolledDevice(context);
    expect(expectOk(await list(''))).toEqual([]);

    await context.advanceDays(40);
    // first runs out in 20 days, second and third in 50.
    expect(expectOk(await list('?expiring_within=30d'))).toEqual([
      {
        serial: first.serial,
        device_id: first.device_id,
        not_before: expect.any(String),
        not_after: first.expires_at,
        revoked: false,
        revoked_at: null,
        revocation_reason: null,
        replaced_by: null,
      },
    ]);
    expect(expectOk(await list('?expiring_within=7d'))).toEqual([]);
    expect(expectOk(await list('?expiring_within=480h'))).toHaveLength(1);
    const all = expectOk(await list('?expiring_within=60d'));
    expect(all.map((row: { serial: string }) => row.serial)).toEqual([
      first.serial,
      // Enrolled at the same instant: the serial breaks the tie.
      ...[second.serial, third.serial].sort(),
    ]);

    // Pages follow each other without gaps or repeats.
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const response = await list(
        `?expiring_within=60d&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      const body = response.json();
      seen.push(...body.data.map((row: { serial: string }) => row.serial));
      cursor = body.meta.pagination.next_cursor;
    }
    expect(seen).toEqual(all.map((row: { serial: string }) => row.serial));

    // Revoked ones only when asked for; the other tenant sees none of these.
    expectOk(await context.adminA.call('POST', `/v1/mdm/certificates/${second.serial}/revoke`, {}));
    expect(expectOk(await list('?expiring_within=60d'))).toHaveLength(2);
    expect(expectOk(await list('?expiring_within=60d&include_revoked=true'))).toHaveLength(3);
    expect(expectOk(await list('?expiring_within=60d&include_revoked=true', context.adminB))).toEqual([]);
    // Managers may look.
    expect(expectOk(await list('?expiring_within=60d', context.managerA))).toHaveLength(2);
  });

  it('answers 400 INVALID_REQUEST to a window it cannot read', async () => {
    for (const bad of ['30x', '0d', '30', '-1d', '1.5d', 'd', '12345d']) {
      const error = expectError(
        await list(`?expiring_within=${encodeURIComponent(bad)}`),
        400,
        'INVALID_REQUEST',
      );
      expect(error.details).toEqual([{ field: 'querystring.expiring_within', message: expect.any(String) }]);
    }
    expectError(await list('?cursor=nonsense'), 400, 'INVALID_REQUEST');
  });
});
