import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { SYNC_TABLES, type SyncTableName } from '../../../shared/sync/registry.ts';
import { createTestAppliance } from '../../support/appliance.ts';
import { createTestCloud, loginTokens, TEST_PASSWORD, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { callerOf, member, payment, type Row, storePusher } from '../pnl/pnl-cloud.ts';

let seq = 0;

/** Wall-clock time in New York on a June day (UTC-4) as the instant it is. */
const ny = (day: string, time: string) => {
  const [h, m] = time.split(':').map(Number) as [number, number];
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + ((h + 4) * 60 + m) * 60_000).toISOString();
};

/** A tenant with stores in two brands and regions, each store with an appliance credential. */
async function seedGroup(cloud: TestCloud) {
  const slug = `sales-${++seq}-${newId().slice(0, 6)}`;
  const tenancy = cloud.services.tenancy;
  const tenant = await tenancy.createTenant({ slug, name: `Tenant ${slug}`, tier: 'professional' });
  const burgers = await tenancy.createGroup('brands', tenant.id, 'Burgers');
  const tacos = await tenancy.createGroup('brands', tenant.id, 'Tacos');
  const east = await tenancy.createGroup('regions', tenant.id, 'East');
  const west = await tenancy.createGroup('regions', tenant.id, 'West');
  const stores = [];
  for (const [name, brand, region, timezone] of [
    ['Brooklyn', burgers, east, 'America/New_York'],
    ['Tokyo', tacos, west, 'Asia/Tokyo'],
  ] as const) {
    const location = await tenancy.createLocation(tenant.id, {
      name,
      brand_id: brand.id,
      region_id: region.id,
      timezone,
    });
    const appliance = await cloud.services.sync.provisionAppliance(tenant.id, {
      location_id: location.id,
      name,
    });
    stores.push({
      id: location.id,
      credential: appliance.credential,
      push: storePusher(cloud, appliance.credential),
    });
  }
  const admin = await member(cloud, tenant.id, `admin@${slug}.test`, ['tenant_admin']);
  const manager = await member(cloud, tenant.id, `manager@${slug}.test`, ['manager']);
  const staff = await member(cloud, tenant.id, `staff@${slug}.test`, ['staff']);
  // Tokens expire: a test that moves the clock signs in again after moving it.
  const again = async (email: string) =>
    callerOf(cloud, (await loginTokens(cloud.app, { email, password: TEST_PASSWORD })).access_token);
  return {
    tenant,
    brands: { burgers, tacos },
    regions: { east, west },
    stores,
    admin,
    manager,
    staff,
    asAdmin: () => again(`admin@${slug}.test`),
    asManager: () => again(`manager@${slug}.test`),
  };
}

function orderRow(createdAt: string, businessDay: string, total: number, status = 'completed') {
  return [
    'orders',
    {
      id: newId(),
      number: '1',
      business_day: businessDay,
      order_type: 'takeout',
      status,
      table_label: null,
      server_id: null,
      server_name: null,
      subtotal_minor: total,
      tax_minor: 0,
      total_minor: total,
      created_at: createdAt,
      updated_at: createdAt,
    },
  ] as const satisfies Row;
}

const data = (response: { statusCode: number; body: string; json(): { data: unknown } }, status = 200) => {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data as Record<string, unknown>;
};

/** What a real appliance would push of a table: its rows, in the registry's columns. */
function syncedRows(
  db: { prepare(sql: string): { all(): unknown[] } },
  table: SyncTableName,
  locationId: string,
) {
  const columns = Object.keys(SYNC_TABLES[table].columns);
  return (db.prepare(`select * from ${table}`).all() as Array<Record<string, unknown>>).map(
    (row) =>
      [
        table,
        Object.fromEntries(columns.map((c) => [c, c === 'location_id' ? locationId : row[c]])),
      ] as const satisfies Row,
  );
}

describe.each(backends)('head office sales (%s)', (backend) => {
  let cloud: TestCloud;
  let group: Awaited<ReturnType<typeof seedGroup>>;
  let other: Awaited<ReturnType<typeof seedGroup>>;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
    group = await seedGroup(cloud);
    other = await seedGroup(cloud);
  });
  afterAll(() => cloud.close());

  it('answers a store’s sales today exactly as the store itself does, from the rows it synced', async () => {
    const g = await seedGroup(cloud);
    const clock = createManualClock('2026-06-10T12:00:00.000Z');
    const t = await createTestAppliance({ clock });
    try {
      const mains = t.services.menu.createCategory({ name: 'Mains' });
      const burger = t.services.menu.createItem({
        category_id: mains.id,
        name: 'Burger',
        price_minor: 1000,
      }).id;
      const sale = async (at: string, pay: (orderId: string) => void = () => {}) => {
        clock.set(at);
        const order = await t.services.orders.create({
          order_type: 'takeout',
          items: [{ menu_item_id: burger, quantity: 10 }],
        });
        pay(order.id);
        return order.id;
      };
      const cash = (orderId: string, amount_minor: number) =>
        t.services.payments.record(orderId, { method: 'cash', amount_minor });
      const card = (
        orderId: string,
        amount_minor: number,
        extra: { capture?: boolean; tip_minor?: number } = {},
      ) =>
        t.services.payments.record(orderId, {
          method: 'card',
          amount_minor,
          card: { brand: 'visa', last4: '4242' },
          transaction_id: `tx-${orderId}`,
          ...extra,
        });
      // Last week (Wednesday 10 June), the small hours after it, and today (Wednesday 17 June).
      await sale(ny('2026-06-10', '09:30'), (id) => cash(id, 2000));
      await sale(ny('2026-06-10', '12:10'), (id) => card(id, 3000, { tip_minor: 500 }));
      await sale(ny('2026-06-10', '16:45'), (id) => cash(id, 5000));
      await sale(ny('2026-06-11', '01:30'), (id) => cash(id, 1000));
      t.services.orders.cancel(await sale(ny('2026-06-10', '10:00'), (id) => cash(id, 1500)));
      await sale(ny('2026-06-10', '11:00'), (id) => card(id, 4000, { capture: false }));
      await sale(ny('2026-06-17', '03:30'), (id) => cash(id, 7700));
      await sale(ny('2026-06-17', '08:15'), (id) => t.services.payments.refund(card(id, 4000).id, 1000));
      await sale(ny('2026-06-17', '11:00'), (id) => cash(id, 2200));
      await sale(ny('2026-06-17', '12:00'));
      await sale(ny('2026-06-17', '13:00'), (id) => t.services.payments.refund(cash(id, 500).id, 500));

      const brooklyn = g.stores[0]!;
      await brooklyn.push([
        ...syncedRows(t.db, 'location_settings', brooklyn.id),
        ...syncedRows(t.db, 'orders', brooklyn.id),
        ...syncedRows(t.db, 'payments', brooklyn.id),
      ]);
      for (const at of [ny('2026-06-17', '14:00'), ny('2026-06-17', '17:00'), ny('2026-06-18', '02:00')]) {
        clock.set(at);
        cloud.clock.set(at);
        const atStore = data(await t.call(await t.login('bob'), 'GET', '/sales/today'));
        const manager = await g.asManager();
        const atHeadOffice = data(
          await manager('GET', `/v1/commerce/sales/today?location_id=${brooklyn.id}`),
        );
        expect(atHeadOffice).toEqual({ location_id: brooklyn.id, ...atStore });
      }
      expect(
        atStoreFigures(
          data(await (await g.asAdmin())('GET', `/v1/commerce/sales/today?location_id=${brooklyn.id}`)),
        ),
      ).toEqual({
        business_day: '2026-06-17',
        sales_minor: 5200,
        orders: 2,
      });
    } finally {
      await t.close();
    }
  });

  it('leaves out cancelled orders and takes refunds off, on the store’s business day in its time zone', async () => {
    const g = await seedGroup(cloud);
    // Tokyo has synced no settings: tenancy's time zone, and the day starting at 04:00.
    const tokyo = g.stores[1]!;
    const paid = orderRow('2026-06-17T01:00:00.000Z', '2026-06-17', 3000);
    const refunded = orderRow('2026-06-17T02:00:00.000Z', '2026-06-17', 2000);
    const cancelled = orderRow('2026-06-17T03:00:00.000Z', '2026-06-17', 9000, 'cancelled');
    const fullyRefunded = orderRow('2026-06-17T03:30:00.000Z', '2026-06-17', 800);
    const authorizedOnly = orderRow('2026-06-17T04:00:00.000Z', '2026-06-17', 700);
    const yesterday = orderRow('2026-06-16T18:00:00.000Z', '2026-06-16', 5000);
    const paidByCard = payment(paid[1].id, 1000);
    await tokyo.push([
      paid,
      paidByCard,
      payment(paid[1].id, 2000),
      refunded,
      payment(refunded[1].id, 2000, 500),
      cancelled,
      payment(cancelled[1].id, 9000),
      fullyRefunded,
      payment(fullyRefunded[1].id, 800, 800),
      authorizedOnly,
      ['payments', { ...payment(authorizedOnly[1].id, 700)[1], status: 'authorized' }],
      yesterday,
      payment(yesterday[1].id, 5000),
    ]);
    const today = async () =>
      data(await (await g.asManager())('GET', `/v1/commerce/sales/today?location_id=${tokyo.id}`));

    // 18:59 UTC on the 16th is 03:59 on the 17th in Tokyo: still the 16th's business day.
    cloud.clock.set('2026-06-16T18:59:00.000Z');
    expect(atStoreFigures(await today())).toEqual({
      business_day: '2026-06-16',
      sales_minor: 5000,
      orders: 1,
    });
    cloud.clock.set('2026-06-16T19:00:00.000Z');
    const figures = await today();
    expect(atStoreFigures(figures)).toEqual({ business_day: '2026-06-17', sales_minor: 4500, orders: 2 });
    expect(figures).toMatchObject({ currency: 'USD', average_ticket_minor: 2250, location_id: tokyo.id });
    // Tokyo hours: 10:00 and 11:00 local.
    expect(
      (figures.by_hour as Array<{ hour: number; today_minor: number }>).filter((h) => h.today_minor > 0),
    ).toEqual([
      { hour: 10, today_minor: 3000, last_week_minor: 0 },
      { hour: 11, today_minor: 1500, last_week_minor: 0 },
    ]);

    // Head office's own refund counts as soon as it is made.
    data(
      await (await g.asManager())('POST', `/v1/commerce/payments/${paidByCard[1].id}/refund`, {
        amount_minor: 400,
      }),
    );
    expect(atStoreFigures(await today())).toEqual({
      business_day: '2026-06-17',
      sales_minor: 4100,
      orders: 2,
    });
  });

  it('sums each store’s day and the tenant per currency, filtered by brand or region', async () => {
    const g = await seedGroup(cloud);
    const [brooklyn, tokyo] = g.stores as [(typeof g.stores)[0], (typeof g.stores)[0]];
    await brooklyn.push([
      [
        'location_settings',
        {
          location_id: brooklyn.id,
          name: 'Brooklyn',
          timezone: 'America/New_York',
          currency: 'USD',
          tax_rate_bps: 0,
          business_day_starts_at: '05:00',
          status: 'open',
          hours: {},
          updated_at: '2026-01-01T00:00:00.000Z',
        },
      ],
    ]);
    const late = orderRow(ny('2026-06-17', '04:30'), '2026-06-16', 1200);
    const morning = orderRow(ny('2026-06-17', '09:00'), '2026-06-17', 3000);
    const voided = orderRow(ny('2026-06-17', '10:00'), '2026-06-17', 4000, 'cancelled');
    await brooklyn.push([
      late,
      payment(late[1].id, 1200),
      morning,
      payment(morning[1].id, 3000, 1000),
      voided,
      payment(voided[1].id, 4000),
    ]);
    const lunch = orderRow('2026-06-17T03:00:00.000Z', '2026-06-17', 1500);
    await tokyo.push([lunch, payment(lunch[1].id, 1500)]);

    // 16:00 UTC: noon in Brooklyn on the 17th, 01:00 on the 18th in Tokyo, still its 17th.
    cloud.clock.set('2026-06-17T16:00:00.000Z');
    const admin = await g.asAdmin();
    const summary = data(await admin('GET', '/v1/commerce/sales/summary'));
    expect(summary).toEqual({
      stores: [
        {
          location_id: brooklyn.id,
          name: 'Brooklyn',
          business_day: '2026-06-17',
          currency: 'USD',
          orders: 1,
          sales_minor: 2000,
        },
        {
          location_id: tokyo.id,
          name: 'Tokyo',
          business_day: '2026-06-17',
          currency: 'USD',
          orders: 1,
          sales_minor: 1500,
        },
      ],
      totals: [{ currency: 'USD', orders: 2, sales_minor: 3500 }],
    });
    const only = async (query: string) =>
      (
        data(await admin('GET', `/v1/commerce/sales/summary?${query}`)).stores as Array<{
          name: string;
        }>
      ).map((s) => s.name);
    expect(await only(`brand_id=${g.brands.tacos.id}`)).toEqual(['Tokyo']);
    expect(await only(`region_id=${g.regions.east.id}`)).toEqual(['Brooklyn']);
    expect(await only(`brand_id=${g.brands.tacos.id}&region_id=${g.regions.east.id}`)).toEqual([]);
    expect(await only(`brand_id=${other.brands.tacos.id}`)).toEqual([]);
    // Each store on its own business day: at 04:45 in Brooklyn (day from 05:00) it is still the 16th.
    cloud.clock.set(ny('2026-06-17', '04:45'));
    const early = data(
      await (await g.asAdmin())('GET', `/v1/commerce/sales/summary?region_id=${g.regions.east.id}`),
    );
    expect(early.stores).toEqual([
      expect.objectContaining({ business_day: '2026-06-16', orders: 1, sales_minor: 1200 }),
    ]);
  });

  it('keeps tenants and stores apart, and admits managers only', async () => {
    // Back to the time the callers signed in at.
    cloud.clock.set(new Date().toISOString());
    const brooklyn = group.stores[0]!;
    const stranger = other.admin;
    const foreign = await stranger.call('GET', `/v1/commerce/sales/today?location_id=${brooklyn.id}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('LOCATION_NOT_FOUND');
    expect(
      (await group.admin.call('GET', `/v1/commerce/sales/today?location_id=${newId()}`)).statusCode,
    ).toBe(404);
    const theirs = data(await stranger.call('GET', '/v1/commerce/sales/summary'));
    expect((theirs.stores as Array<{ location_id: string }>).map((s) => s.location_id).sort()).toEqual(
      other.stores.map((s) => s.id).sort(),
    );

    const email = `store-${newId().slice(-8)}@example.test`;
    await cloud.services.tenancy.addUser(group.tenant.id, { email, pin: '135790', roles: ['manager'] });
    const login = await cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier: email, pin: '135790', location_id: brooklyn.id },
    });
    const atBrooklyn = callerOf(cloud, login.json().status.access_token);
    expect(
      data(await atBrooklyn('GET', `/v1/commerce/sales/today?location_id=${brooklyn.id}`)).location_id,
    ).toBe(brooklyn.id);
    expect(
      (await atBrooklyn('GET', `/v1/commerce/sales/today?location_id=${group.stores[1]!.id}`)).statusCode,
    ).toBe(404);
    expect((data(await atBrooklyn('GET', '/v1/commerce/sales/summary')).stores as unknown[]).length).toBe(1);

    for (const query of ['', '?location_id=nope', `?location_id=${brooklyn.id}&business_day=2026-06-01`])
      expect((await group.manager.call('GET', `/v1/commerce/sales/today${query}`)).statusCode, query).toBe(
        400,
      );
    expect((await group.manager.call('GET', '/v1/commerce/sales/summary?brand_id=x')).statusCode).toBe(400);
    expect(
      (await group.staff.call('GET', `/v1/commerce/sales/today?location_id=${brooklyn.id}`)).statusCode,
    ).toBe(403);
    expect((await group.staff.call('GET', '/v1/commerce/sales/summary')).statusCode).toBe(403);
    expect((await cloud.app.inject({ method: 'GET', url: '/v1/commerce/sales/summary' })).statusCode).toBe(
      401,
    );
  });
});

const atStoreFigures = (figures: Record<string, unknown>) => ({
  business_day: figures.business_day,
  sales_minor: figures.sales_minor,
  orders: figures.orders,
});
