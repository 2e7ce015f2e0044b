import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createTestCloud, seedTenant, signedInUser, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { appliancePusher, enrolledDevice, orderFields, reader } from './fleet-cloud.ts';

const DAY_MS = 86_400_000;

/**
 * Tenant alpha: two brands, two regions, three stores. Store 1 has an appliance enrolled through
 * MDM that has just pushed (its devices, a camera, an order and a stale edit of it), a kitchen
 * screen whose certificate runs out in 10 days, a printer never enrolled and a revoked terminal.
 * The Airport kiosk's appliance only syncs, and was last heard from 80 days ago. The Harbour store
 * was never heard from. Tenant bravo has a store of its own.
 */
async function fleetWorld(cloud: TestCloud) {
  const { tenancy, sync, devices } = cloud.services;
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const drinks = await tenancy.createGroup('brands', a.tenant.id, 'Drinks');
  const north = await tenancy.createGroup('regions', a.tenant.id, 'North');
  const airport = await tenancy.createLocation(a.tenant.id, {
    name: 'Airport Kiosk',
    brand_id: drinks.id,
    region_id: north.id,
    timezone: 'Europe/Paris',
  });
  const harbour = await tenancy.createLocation(a.tenant.id, {
    name: 'Harbour 100% Fresh',
    brand_id: a.brand.id,
    region_id: north.id,
    address: '1 Quay Street',
  });

  const t0 = cloud.clock.now().toISOString();
  const airportAppliance = await sync.provisionAppliance(a.tenant.id, { location_id: airport.id });
  await appliancePusher(
    cloud,
    airportAppliance.credential,
  )([{ table: 'orders', fields: orderFields(newId(), t0) }]);
  const kds = await enrolledDevice(cloud, a.tenant.id, a.location.id, {
    device_type: 'kds',
    serial_number: 'K1',
  });
  await devices.register(a.tenant.id, {
    location_id: a.location.id,
    device_type: 'printer',
    name: 'Printer',
    serial_number: 'P1',
  });
  const pos = await devices.register(a.tenant.id, {
    location_id: a.location.id,
    device_type: 'pos',
    name: 'Old terminal',
    serial_number: 'T1',
  });
  await devices.revokeDevice(a.tenant.id, pos.id);

  // 80 of the certificates' 90 days later.
  cloud.clock.advance(80 * DAY_MS);
  const t1 = cloud.clock.now().toISOString();
  const twoMinutesAgo = new Date(cloud.clock.now().getTime() - 120_000).toISOString();
  const appliance = await enrolledDevice(cloud, a.tenant.id, a.location.id, {
    device_type: 'appliance',
    serial_number: 'A1',
  });
  const push = appliancePusher(cloud, appliance.credential!);
  const queue = { queue_depth: 3, oldest_pending_at: twoMinutesAgo };
  const seen = { location_id: a.location.id, first_seen_at: t0, last_seen_at: t1, updated_at: t1 };
  const orderId = newId();
  const first = await push(
    [
      {
        table: 'store_devices',
        fields: { id: appliance.id, device_type: 'appliance', status: 'online', firmware: '2.3.1', ...seen },
      },
      {
        table: 'store_devices',
        fields: { id: kds.id, device_type: 'kds', status: 'offline', firmware: null, ...seen },
      },
      {
        table: 'vision_camera_states',
        fields: {
          id: 'cam-1',
          name: 'Drive-thru',
          type: 'drive_thru_lane',
          enabled: 1,
          status: 'online',
          fps: 14.8,
          last_detection: null,
          zones: [],
          settings: {},
          model: null,
          updated_at: t1,
        },
      },
      { table: 'orders', fields: orderFields(orderId, t1) },
    ],
    queue,
  );
  expect(first).toEqual(['applied', 'applied', 'applied', 'applied']);
  await sync.writeFromCloud(a.tenant.id, a.location.id, 'orders', orderId, {
    ...orderFields(orderId, t1, { status: 'cancelled' }),
  });
  const stale = await push(
    [{ table: 'orders', fields: orderFields(orderId, t1, { status: 'sent' }), version: 2 }],
    queue,
  );
  expect(stale).toEqual(['conflict']);

  const token = async (tenantId: string, email: string, roles: string[]) =>
    reader(cloud, (await signedInUser(cloud, tenantId, email, roles)).token);
  return {
    a,
    b,
    drinks,
    north,
    airport,
    harbour,
    t0,
    t1,
    twoMinutesAgo,
    adminA: await token(a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    platformA: await token(a.tenant.id, 'platform@alpha.test', ['platform_admin']),
    managerA: await token(a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await token(a.tenant.id, 'staff@alpha.test', ['staff']),
    adminB: await token(b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
  };
}

type Store = { location_id: string; name: string } & Record<string, unknown>;

describe.each(backends)('the fleet overview of a tenant’s stores (%s)', (backend) => {
  let cloud: TestCloud;
  let w: Awaited<ReturnType<typeof fleetWorld>>;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
    w = await fleetWorld(cloud);
  });
  afterAll(() => cloud.close());

  const list = async (query = '', as = w.adminA) => {
    const response = await as(`/v1/fleet/stores${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      data: Store[];
      meta: { pagination: { limit: number; next_cursor: string | null } };
    };
  };
  const names = async (query: string, as = w.adminA) =>
    (await list(query, as)).data.map((store) => store.name);

  it('lists every store with what sync, MDM and vision know of it', async () => {
    const page = await list();
    expect(page.meta.pagination).toEqual({ limit: 50, next_cursor: null });
    const [store1, airport, harbour] = page.data;
    expect(store1).toEqual({
      location_id: w.a.location.id,
      name: 'Store 1',
      brand_id: w.a.brand.id,
      region_id: w.a.region.id,
      timezone: 'UTC',
      online: true,
      last_seen_at: w.t1,
      last_push_at: w.t1,
      last_pull_at: null,
      queue_depth: 3,
      oldest_pending_at: w.twoMinutesAgo,
      lag_seconds: 120,
      conflict_rate: 0.2,
      conflicts_24h: 1,
      changes_24h: 5,
      devices_total: 3,
      devices_offline: 1,
      cameras: [{ id: 'cam-1', name: 'Drive-thru', status: 'online', fps: 14.8 }],
      certificates_expiring_30d: 1,
      appliance_version: '2.3.1',
    });
    expect(airport).toMatchObject({
      location_id: w.airport.id,
      brand_id: w.drinks.id,
      region_id: w.north.id,
      timezone: 'Europe/Paris',
      online: false,
      last_seen_at: w.t0,
      last_push_at: w.t0,
      queue_depth: 0,
      lag_seconds: 0,
      changes_24h: 0,
      devices_total: 0,
      cameras: [],
      // It syncs, but no appliance of it is enrolled in MDM: the cloud does not know its version.
      appliance_version: null,
    });
    expect(harbour).toEqual({
      location_id: w.harbour.id,
      name: 'Harbour 100% Fresh',
      brand_id: w.a.brand.id,
      region_id: w.north.id,
      timezone: 'UTC',
      online: false,
      last_seen_at: null,
      last_push_at: null,
      last_pull_at: null,
      queue_depth: null,
      oldest_pending_at: null,
      lag_seconds: null,
      conflict_rate: 0,
      conflicts_24h: 0,
      changes_24h: 0,
      devices_total: 0,
      devices_offline: 0,
      cameras: [],
      certificates_expiring_30d: 0,
      appliance_version: null,
    });
  });

  it('agrees with the store’s own sync status', async () => {
    const [store1] = (await list()).data;
    const status = (await w.adminA(`/v1/sync/status/${w.a.location.id}`)).json().data;
    for (const field of [
      'online',
      'last_seen_at',
      'last_push_at',
      'last_pull_at',
      'queue_depth',
      'oldest_pending_at',
      'lag_seconds',
      'conflict_rate',
      'conflicts_24h',
      'changes_24h',
    ])
      expect(store1![field], field).toEqual(status[field]);
  });

  it('filters by brand, region, status and part of the name, and by them together', async () => {
    expect(await names(`?brand_id=${w.drinks.id}`)).toEqual(['Airport Kiosk']);
    expect(await names(`?brand_id=${w.a.brand.id}`)).toEqual(['Store 1', 'Harbour 100% Fresh']);
    expect(await names(`?region_id=${w.north.id}`)).toEqual(['Airport Kiosk', 'Harbour 100% Fresh']);
    expect(await names('?status=online')).toEqual(['Store 1']);
    expect(await names('?status=offline')).toEqual(['Airport Kiosk', 'Harbour 100% Fresh']);
    expect(await names('?q=KIOSK')).toEqual(['Airport Kiosk']);
    expect(await names('?q=r')).toEqual(['Store 1', 'Airport Kiosk', 'Harbour 100% Fresh']);
    // `%` and `_` are letters to look for, not patterns.
    expect(await names(`?q=${encodeURIComponent('100%')}`)).toEqual(['Harbour 100% Fresh']);
    expect(await names(`?q=${encodeURIComponent('%')}`)).toEqual(['Harbour 100% Fresh']);
    expect(await names('?q=_')).toEqual([]);
    expect(await names(`?brand_id=${w.a.brand.id}&region_id=${w.north.id}&status=offline&q=fresh`)).toEqual([
      'Harbour 100% Fresh',
    ]);
    expect(await names(`?brand_id=${w.drinks.id}&status=online`)).toEqual([]);
    expect(await names(`?brand_id=${newId()}`)).toEqual([]);
  });

  it('pages with limit and cursor, up to 500 stores a page', async () => {
    const first = await list('?limit=2');
    expect(first.data.map((store) => store.name)).toEqual(['Store 1', 'Airport Kiosk']);
    expect(first.meta.pagination).toEqual({ limit: 2, next_cursor: w.airport.id });
    const second = await list(`?limit=2&cursor=${first.meta.pagination.next_cursor}`);
    expect(second.data.map((store) => store.name)).toEqual(['Harbour 100% Fresh']);
    expect(second.meta.pagination.next_cursor).toBeNull();
    expect(await names(`?status=offline&limit=1&cursor=${w.airport.id}`)).toEqual(['Harbour 100% Fresh']);
    expect((await list('?limit=500')).data).toHaveLength(3);
  });

  it('reads one store with its page’s extra facts', async () => {
    const [listed] = (await list()).data;
    const response = await w.adminA(`/v1/fleet/stores/${w.a.location.id}`);
    expect(response.statusCode, response.body).toBe(200);
    const status = (await w.adminA(`/v1/sync/status/${w.a.location.id}`)).json().data;
    expect(response.json().data).toEqual({
      ...listed,
      address: null,
      location_status: 'active',
      feed_seq: status.feed_seq,
      pulled_cursor: 0,
      pending_down: status.feed_seq,
      trigger_pending: true,
    });
    expect(status.feed_seq).toBeGreaterThan(0);
    const harbour = (await w.adminA(`/v1/fleet/stores/${w.harbour.id}`)).json().data;
    expect(harbour).toMatchObject({ address: '1 Quay Street', online: false, feed_seq: 0, pending_down: 0 });
    expect((await w.adminA(`/v1/fleet/stores/${newId()}`)).statusCode).toBe(404);
  });

  it('shows another tenant none of these stores', async () => {
    const theirs = await list('', w.adminB);
    expect(theirs.data.map((store) => store.location_id)).toEqual([w.b.location.id]);
    expect(theirs.data[0]).toMatchObject({ online: false, devices_total: 0, cameras: [] });
    expect(await names(`?brand_id=${w.a.brand.id}`, w.adminB)).toEqual([]);
    expect(await names('?q=Harbour', w.adminB)).toEqual([]);
    for (const id of [w.a.location.id, w.airport.id, w.harbour.id]) {
      const response = await w.adminB(`/v1/fleet/stores/${id}`);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('LOCATION_NOT_FOUND');
    }
  });

  it('admits the tenant’s administrators, refuses store roles, and wants a token', async () => {
    expect(await names('', w.platformA)).toHaveLength(3);
    for (const as of [w.staffA, w.managerA]) {
      expect((await as('/v1/fleet/stores')).statusCode).toBe(403);
      expect((await as(`/v1/fleet/stores/${w.a.location.id}`)).statusCode).toBe(403);
    }
    const anonymous = await cloud.app.inject({ method: 'GET', url: '/v1/fleet/stores' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses query values out of their range or type with 400', async () => {
    for (const query of [
      '?limit=0',
      '?limit=501',
      '?limit=ten',
      '?cursor=not-an-id',
      '?brand_id=42',
      '?region_id=north',
      '?status=sleeping',
      '?q=',
      `?q=${'x'.repeat(101)}`,
      '?colour=red',
    ]) {
      const response = await w.adminA(`/v1/fleet/stores${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code, query).toBe('INVALID_REQUEST');
    }
    expect((await w.adminA('/v1/fleet/stores/store-1')).statusCode).toBe(400);
  });

  it('answers 200 stores in one request with one read per domain, not one per store', async () => {
    const { tenancy, sync, devices, vision } = cloud.services;
    const c = await seedTenant(cloud.services, 'charlie');
    for (let i = 2; i <= 200; i += 1)
      await tenancy.createLocation(c.tenant.id, {
        name: `Store ${i}`,
        brand_id: c.brand.id,
        region_id: c.region.id,
      });
    const admin = reader(
      cloud,
      (await signedInUser(cloud, c.tenant.id, 'admin@charlie.test', ['tenant_admin'])).token,
    );
    const reads = [
      vi.spyOn(tenancy, 'listLocations'),
      vi.spyOn(sync, 'statuses'),
      vi.spyOn(devices, 'storeSummaries'),
      vi.spyOn(vision, 'camerasAt'),
    ];
    try {
      const page = await list('?limit=500', admin);
      expect(page.data).toHaveLength(200);
      expect(page.meta.pagination.next_cursor).toBeNull();
      for (const read of reads) expect(read).toHaveBeenCalledTimes(1);
    } finally {
      for (const read of reads) read.mockRestore();
    }
  });
});
