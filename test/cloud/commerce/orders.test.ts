import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { at, item, member, payment, type Row, storePusher } from '../pnl/pnl-cloud.ts';

type Caller = Awaited<ReturnType<typeof member>>;
let seq = 0;

/** A tenant with two stores of one brand, each with an appliance credential to push and pull with. */
async function seedGroup(cloud: TestCloud) {
  const slug = `commerce-${++seq}-${newId().slice(0, 6)}`;
  const tenancy = cloud.services.tenancy;
  const tenant = await tenancy.createTenant({ slug, name: `Tenant ${slug}`, tier: 'professional' });
  const brand = await tenancy.createGroup('brands', tenant.id, 'Burgers');
  const region = await tenancy.createGroup('regions', tenant.id, 'East');
  const stores = [];
  for (const name of ['North', 'South']) {
    const location = await tenancy.createLocation(tenant.id, {
      name,
      brand_id: brand.id,
      region_id: region.id,
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
  return { tenant, stores, admin, manager, staff };
}

function orderRow(
  day: string,
  time: string,
  fields: { status?: string; type?: string; number?: string; total?: number } = {},
) {
  const id = newId();
  const total = fields.total ?? 1000;
  return [
    'orders',
    {
      id,
      number: fields.number ?? id.slice(-4),
      business_day: day,
      order_type: fields.type ?? 'dine_in',
      status: fields.status ?? 'sent',
      table_label: 'T4',
      server_id: null,
      server_name: null,
      subtotal_minor: total,
      tax_minor: 0,
      total_minor: total,
      created_at: at(day, time),
      updated_at: at(day, time),
    },
  ] as const satisfies Row;
}

const data = (response: { statusCode: number; body: string; json(): { data: unknown } }, status = 200) => {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data as Record<string, unknown>;
};

async function pulled(cloud: TestCloud, credential: string) {
  const response = await cloud.app.inject({
    method: 'GET',
    url: '/v1/sync/pull?cursor=0&limit=1000',
    headers: { authorization: `Appliance ${credential}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.changes as Array<{
    table: string;
    row_id: string;
    version: number;
    fields: Record<string, unknown>;
  }>;
}

describe.each(backends)('head office orders (%s)', (backend) => {
  let cloud: TestCloud;
  let group: Awaited<ReturnType<typeof seedGroup>>;
  let other: Awaited<ReturnType<typeof seedGroup>>;
  const north = () => group.stores[0]!;
  const south = () => group.stores[1]!;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
    group = await seedGroup(cloud);
    other = await seedGroup(cloud);
  });
  afterAll(() => cloud.close());

  it('lists every store’s pushed orders newest first, with the store’s fields and location_id', async () => {
    const g = await seedGroup(cloud);
    const first = orderRow('2026-03-01', '10:00');
    const second = orderRow('2026-03-01', '11:00', { number: 'A-7', type: 'takeout' });
    const third = orderRow('2026-03-02', '09:00', { status: 'completed' });
    await g.stores[0]!.push([first, item(first[1].id, newId(), 2, 450), second, third]);
    const southOrder = orderRow('2026-03-01', '12:00');
    await g.stores[1]!.push([southOrder]);

    const all = data(await g.manager.call('GET', '/v1/commerce/orders'));
    const ids = (all.items as Array<{ id: string }>).map((o) => o.id);
    expect(ids).toEqual([third[1].id, southOrder[1].id, second[1].id, first[1].id]);
    const listed = (all.items as Array<Record<string, unknown>>).find((o) => o.id === first[1].id)!;
    expect(listed).toMatchObject({
      location_id: g.stores[0]!.id,
      number: first[1].number,
      status: 'sent',
      table: 'T4',
      server: null,
      total: 10,
      items: [expect.objectContaining({ quantity: 2, unit_price: 4.5, total: 9, modifiers: [] })],
    });
    expect(all.next_cursor).toBeNull();

    const filtered = async (query: string) =>
      (data(await g.admin.call('GET', `/v1/commerce/orders?${query}`)).items as Array<{ id: string }>).map(
        (o) => o.id,
      );
    expect(await filtered(`location_id=${g.stores[1]!.id}`)).toEqual([southOrder[1].id]);
    expect(await filtered(`location_id=${g.stores[0]!.id}&business_day=2026-03-01`)).toEqual([
      second[1].id,
      first[1].id,
    ]);
    expect(await filtered('business_day_from=2026-03-02')).toEqual([third[1].id]);
    expect(await filtered('business_day_to=2026-03-01&order_type=takeout')).toEqual([second[1].id]);
    expect(await filtered('status=completed')).toEqual([third[1].id]);
    expect(await filtered('status=completed&status=sent')).toHaveLength(4);
    expect(await filtered('number=A-7')).toEqual([second[1].id]);
  });

  it('pages with next_cursor without losing or repeating an order', async () => {
    const g = await seedGroup(cloud);
    const rows = Array.from({ length: 23 }, (_, i) =>
      orderRow('2026-04-01', `10:${String(i).padStart(2, '0')}`),
    );
    // Two orders at one instant: the id breaks the tie.
    rows.push(orderRow('2026-04-01', '10:05'));
    await g.stores[0]!.push(rows);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = data(
        await g.manager.call(
          'GET',
          `/v1/commerce/orders?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        ),
      );
      seen.push(...(page.items as Array<{ id: string }>).map((o) => o.id));
      cursor = page.next_cursor as string | null;
    } while (cursor);
    expect(seen).toHaveLength(24);
    expect(new Set(seen).size).toBe(24);
  });

  it('refuses bad queries with a clear 400', async () => {
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=1.5',
      'cursor=nope',
      'business_day=2026-13-01',
      'status=lost',
      'order_type=boat',
      'location_id=not-a-uuid',
      'color=red',
    ]) {
      const response = await group.manager.call('GET', `/v1/commerce/orders?${query}`);
      expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
      expect(response.json().error.code).toBeTypeOf('string');
    }
  });

  it('shows one order with its items and payments, and 404 for an unknown one', async () => {
    const order = orderRow('2026-03-05', '10:00', { status: 'completed', total: 1200 });
    const pay = payment(order[1].id, 1200);
    await north().push([order, item(order[1].id, newId(), 1, 1200), pay]);
    const detail = data(await group.manager.call('GET', `/v1/commerce/orders/${order[1].id}`));
    expect(detail).toMatchObject({
      id: order[1].id,
      location_id: north().id,
      status: 'completed',
      payments: [
        {
          id: pay[1].id,
          location_id: north().id,
          method: 'card',
          status: 'captured',
          amount: 12,
          refunded: 0,
          card: { brand: 'visa', last4: '4242' },
        },
      ],
    });
    expect((detail.items as unknown[]).length).toBe(1);
    const missing = await group.manager.call('GET', `/v1/commerce/orders/${newId()}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('ORDER_NOT_FOUND');
  });

  it('voids an order: the store’s feed carries it, P&L stops counting it, and a second void is refused', async () => {
    const order = orderRow('2026-03-06', '10:00', { status: 'sent', total: 800 });
    await north().push([order]);
    const cancelled = data(await group.manager.call('POST', `/v1/commerce/orders/${order[1].id}/cancel`));
    expect(cancelled).toMatchObject({ id: order[1].id, status: 'cancelled', version: 2 });

    const feed = (await pulled(cloud, north().credential)).filter((c) => c.row_id === order[1].id);
    expect(feed).toEqual([expect.objectContaining({ table: 'orders', version: 2 })]);
    expect(feed[0]!.fields.status).toBe('cancelled');
    expect(await pulled(cloud, south().credential)).not.toContainEqual(
      expect.objectContaining({ row_id: order[1].id }),
    );

    const again = await group.manager.call('POST', `/v1/commerce/orders/${order[1].id}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('INVALID_ORDER_STATE');

    const pnl = await cloud.store.db
      .selectFrom('pnl_orders')
      .select('counted')
      .where('id', '=', order[1].id)
      .executeTakeFirstOrThrow();
    expect(Number(pnl.counted)).toBe(0);
  });

  it('refuses to void an order the store completed', async () => {
    const order = orderRow('2026-03-06', '11:00', { status: 'completed' });
    await north().push([order]);
    const response = await group.admin.call('POST', `/v1/commerce/orders/${order[1].id}/cancel`);
    expect(response.statusCode).toBe(409);
    expect(response.json().error.message).toBe('An order that is completed cannot be cancelled');
    expect(data(await group.admin.call('GET', `/v1/commerce/orders/${order[1].id}`)).status).toBe(
      'completed',
    );
  });

  it('refunds part, then the rest, never more than was paid', async () => {
    const order = orderRow('2026-03-07', '10:00', { status: 'completed', total: 1500 });
    const pay = payment(order[1].id, 1500);
    await north().push([order, pay]);
    const url = `/v1/commerce/payments/${pay[1].id}/refund`;
    expect(data(await group.manager.call('POST', url, { amount_minor: 500 }))).toMatchObject({ refunded: 5 });
    const tooMuch = await group.manager.call('POST', url, { amount_minor: 1001 });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().error.details).toEqual([
      { field: 'body.amount_minor', message: 'must be at most 1000' },
    ]);
    expect(data(await group.manager.call('POST', url, {}))).toMatchObject({ refunded: 15, version: 3 });
    const nothingLeft = await group.manager.call('POST', url, {});
    expect(nothingLeft.statusCode).toBe(400);

    const feed = (await pulled(cloud, north().credential)).filter((c) => c.row_id === pay[1].id);
    expect(feed.map((c) => c.fields.refunded_minor)).toEqual([500, 1500]);
    for (const bad of [
      { amount_minor: 0 },
      { amount_minor: -5 },
      { amount_minor: 1.5 },
      { amount_minor: '5' },
      { extra: 1 },
    ])
      expect((await group.manager.call('POST', url, bad)).statusCode, JSON.stringify(bad)).toBe(400);
  });

  it('refuses to refund a payment that was not captured', async () => {
    const order = orderRow('2026-03-07', '11:00');
    const pay = payment(order[1].id, 900);
    const voided = ['payments', { ...pay[1], status: 'voided' }] as const satisfies Row;
    await north().push([order, voided]);
    const response = await group.manager.call('POST', `/v1/commerce/payments/${pay[1].id}/refund`, {});
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
  });

  it('gives one of two refunds of everything at once, never both', async () => {
    const order = orderRow('2026-03-08', '10:00', { status: 'completed', total: 700 });
    const pay = payment(order[1].id, 700);
    await north().push([order, pay]);
    const url = `/v1/commerce/payments/${pay[1].id}/refund`;
    const answers = await Promise.all([
      group.manager.call('POST', url, {}),
      group.admin.call('POST', url, {}),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
    const detail = data(await group.admin.call('GET', `/v1/commerce/orders/${order[1].id}`));
    expect((detail.payments as Array<{ refunded: number }>)[0]!.refunded).toBe(7);
  });

  it('keeps tenants apart: another tenant’s orders and payments are not found, never listed', async () => {
    const order = orderRow('2026-03-09', '10:00');
    const pay = payment(order[1].id, 1000);
    await north().push([order, pay]);
    const stranger: Caller = other.admin;
    expect((await stranger.call('GET', `/v1/commerce/orders/${order[1].id}`)).statusCode).toBe(404);
    expect((await stranger.call('POST', `/v1/commerce/orders/${order[1].id}/cancel`)).statusCode).toBe(404);
    expect((await stranger.call('POST', `/v1/commerce/payments/${pay[1].id}/refund`, {})).statusCode).toBe(
      404,
    );
    const listed = data(await stranger.call('GET', `/v1/commerce/orders?location_id=${north().id}`));
    expect(listed.items).toEqual([]);
    expect(data(await group.admin.call('GET', `/v1/commerce/orders/${order[1].id}`)).status).toBe('sent');
  });

  it('admits managers and admins only', async () => {
    expect((await group.staff.call('GET', '/v1/commerce/orders')).statusCode).toBe(403);
    expect((await cloud.app.inject({ method: 'GET', url: '/v1/commerce/orders' })).statusCode).toBe(401);
  });
});
