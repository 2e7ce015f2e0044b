import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeRowId } from '../../../cloud/commerce/catalog.ts';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { type member, item as orderLine, storePusher } from '../pnl/pnl-cloud.ts';
import { data, pull, type Reply, seedTenant } from './catalog-support.ts';

const menuLine = (orderId: string, menuItemId: string) => orderLine(orderId, menuItemId, 1, 899);

type Publication = {
  id: string;
  state: string;
  stores: Array<{ location_id: string; state: string }>;
} & Record<string, unknown>;

describe.each(backends)('brand menus published to the stores (%s)', (backend) => {
  let cloud: TestCloud;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
  });
  afterAll(() => cloud.close());

  const publication = async (call: Awaited<ReturnType<typeof member>>['call'], id: string) =>
    data<Publication>(await call('GET', `/v1/commerce/menu/publications/${id}`));

  async function menuWithItem(g: Awaited<ReturnType<typeof seedTenant>>) {
    const category = data<{ id: string; publication: { id: string } }>(
      await g.admin.call('POST', '/v1/commerce/menu/categories', { brand_id: g.burgers.id, name: 'Burgers' }),
      201,
    );
    const item = data<{ id: string; publication: { id: string; stores_total: number } }>(
      await g.admin.call('POST', '/v1/commerce/menu/items', {
        brand_id: g.burgers.id,
        category_id: category.id,
        name: 'Cheeseburger',
        description: 'Two patties',
        price_minor: 899,
      }),
      201,
    );
    await cloud.services.menu.settle();
    return { category, item };
  }

  it('writes a new item into every store of the brand under a derived id, and shows when each has pulled it', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { category, item } = await menuWithItem(g);
    expect(item.publication.stores_total).toBe(2);
    const [north, south, taco] = g.stores;

    const pending = await publication(g.admin.call, item.publication.id);
    expect(pending.state).toBe('pending');
    expect(pending.stores.map((s) => s.state)).toEqual(['pending', 'pending']);

    const changes = (await pull(cloud, north!.credential)).changes;
    const row = changes.find((c) => c.table === 'menu_items')!;
    expect(row.row_id).toBe(storeRowId(item.id, north!.id));
    expect(row.fields).toMatchObject({
      category_id: storeRowId(category.id, north!.id),
      name: 'Cheeseburger',
      description: 'Two patties',
      price_minor: 899,
      available: 1,
    });
    expect(changes.find((c) => c.table === 'menu_categories')!.row_id).toBe(
      storeRowId(category.id, north!.id),
    );

    const half = await publication(g.admin.call, item.publication.id);
    expect(half.state).toBe('pending');
    expect(Object.fromEntries(half.stores.map((s) => [s.location_id, s.state]))).toEqual({
      [north!.id]: 'applied',
      [south!.id]: 'pending',
    });
    await pull(cloud, south!.credential);
    expect((await publication(g.admin.call, item.publication.id)).state).toBe('applied');
    expect((await pull(cloud, taco!.credential)).changes.filter((c) => c.table.startsWith('menu'))).toEqual(
      [],
    );

    const events = await cloud.store.db
      .selectFrom('domain_events')
      .select(['location_id', 'type', 'data'])
      .where('tenant_id', '=', g.tenant.id)
      .where('type', 'like', 'menu.%')
      .execute();
    expect(events.map((e) => [e.location_id, e.type]).sort()).toEqual(
      [
        [north!.id, 'menu.item_updated'],
        [south!.id, 'menu.item_updated'],
      ].sort(),
    );
    expect(JSON.parse(events[0]!.data)).toMatchObject({ name: 'Cheeseburger', price: 8.99, created: true });
  });

  it('changes a price for the brand or for one store, emitting menu.price_changed once per store that changed', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { item } = await menuWithItem(g);
    const [north, south] = g.stores;
    const priceOf = async (store: { credential: string; id: string }) =>
      (await pull(cloud, store.credential)).changes
        .filter((c) => c.row_id === storeRowId(item.id, store.id))
        .at(-1)!.fields.price_minor;

    const own = data<{ overrides: unknown[]; publication: { id: string } }>(
      await g.manager.call('PUT', `/v1/commerce/menu/items/${item.id}/price`, {
        price_minor: 999,
        location_ids: [north!.id],
      }),
    );
    expect(own.overrides).toEqual([{ location_id: north!.id, price_minor: 999, available: null }]);
    await cloud.services.menu.settle();
    expect(await priceOf(north!)).toBe(999);
    expect(await priceOf(south!)).toBe(899);

    const all = data<{ price_minor: number; overrides: unknown[] }>(
      await g.admin.call('PUT', `/v1/commerce/menu/items/${item.id}/price`, { price_minor: 1099 }),
    );
    expect(all).toMatchObject({ price_minor: 1099, overrides: [] });
    await cloud.services.menu.settle();
    expect(await priceOf(north!)).toBe(1099);
    expect(await priceOf(south!)).toBe(1099);

    const changes = await cloud.store.db
      .selectFrom('domain_events')
      .select(['location_id', 'data'])
      .where('tenant_id', '=', g.tenant.id)
      .where('type', '=', 'menu.price_changed')
      .orderBy('occurred_at')
      .execute();
    const byStore = (id: string) =>
      changes
        .filter((e) => e.location_id === id)
        .map((e) => JSON.parse(e.data) as { old_price: number; new_price: number });
    expect(byStore(north!.id).map((e) => [e.old_price, e.new_price])).toEqual([
      [8.99, 9.99],
      [9.99, 10.99],
    ]);
    expect(byStore(south!.id).map((e) => [e.old_price, e.new_price])).toEqual([[8.99, 10.99]]);

    const off = data<{ publication: { id: string } }>(
      await g.admin.call('PUT', `/v1/commerce/menu/items/${item.id}/availability`, { available: false }),
    );
    await cloud.services.menu.settle();
    expect((await publication(g.admin.call, off.publication.id)).stores_written).toBe(2);
    const availability = await cloud.store.db
      .selectFrom('domain_events')
      .select('location_id')
      .where('tenant_id', '=', g.tenant.id)
      .where('type', '=', 'menu.item_availability')
      .execute();
    expect(availability).toHaveLength(2);
  });

  it('names the brand item each store’s order line stands for, the same catalog id at every store', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { item } = await menuWithItem(g);
    const [north, south] = g.stores;
    const lines = [];
    for (const store of [north!, south!]) {
      const order = newId();
      await storePusher(
        cloud,
        store.credential,
      )([
        [
          'orders',
          {
            id: order,
            number: '1',
            business_day: '2026-03-01',
            order_type: 'dine_in',
            status: 'open',
            table_label: null,
            server_id: null,
            server_name: null,
            subtotal_minor: 899,
            tax_minor: 0,
            total_minor: 899,
            created_at: '2026-03-01T12:00:00.000Z',
            updated_at: '2026-03-01T12:00:00.000Z',
          },
        ],
        menuLine(order, storeRowId(item.id, store.id)),
        menuLine(order, newId()),
      ]);
      const detail = data<{ items: Array<{ menu_item_id: string; catalog_id: string | null }> }>(
        await g.manager.call('GET', `/v1/commerce/orders/${order}`),
      );
      lines.push(...detail.items);
    }
    expect(lines.filter((l) => l.catalog_id !== null).map((l) => l.catalog_id)).toEqual([item.id, item.id]);
    expect(lines.filter((l) => l.catalog_id === null)).toHaveLength(2);
  });

  it('sets a price list in one publication, for the brand or for the stores named', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { category, item } = await menuWithItem(g);
    const second = data<{ id: string }>(
      await g.admin.call('POST', '/v1/commerce/menu/items', {
        brand_id: g.burgers.id,
        category_id: category.id,
        name: 'Fries',
        price_minor: 349,
      }),
      201,
    );
    await cloud.services.menu.settle();
    const [north, south] = g.stores;
    const list = data<{ items: number; publication: { id: string; stores_total: number } }>(
      await g.admin.call('PUT', '/v1/commerce/menu/prices', {
        brand_id: g.burgers.id,
        prices: [
          { item_id: item.id, price_minor: 1000 },
          { item_id: second.id, price_minor: 400 },
        ],
      }),
    );
    expect(list).toMatchObject({ items: 2, publication: { stores_total: 2 } });
    await cloud.services.menu.settle();
    for (const store of [north!, south!]) {
      const prices = Object.fromEntries(
        (await pull(cloud, store.credential)).changes
          .filter((c) => c.table === 'menu_items')
          .map((c) => [c.row_id, c.fields.price_minor]),
      );
      expect(prices).toEqual({
        [storeRowId(item.id, store.id)]: 1000,
        [storeRowId(second.id, store.id)]: 400,
      });
    }
    const own = data<{ publication: { stores_total: number } }>(
      await g.manager.call('PUT', '/v1/commerce/menu/prices', {
        brand_id: g.burgers.id,
        prices: [{ item_id: second.id, price_minor: 450 }],
        location_ids: [south!.id],
      }),
    );
    expect(own.publication.stores_total).toBe(1);
    const fries = data<{ overrides: unknown[] }>(
      await g.admin.call('GET', `/v1/commerce/menu/items/${second.id}`),
    );
    expect(fries.overrides).toEqual([{ location_id: south!.id, price_minor: 450, available: null }]);

    const refused = async (body: unknown, status: number) => {
      const response = await g.admin.call('PUT', '/v1/commerce/menu/prices', body);
      expect(response.statusCode, response.body).toBe(status);
    };
    await refused(
      {
        brand_id: g.burgers.id,
        prices: [
          { item_id: item.id, price_minor: 1 },
          { item_id: item.id, price_minor: 2 },
        ],
      },
      400,
    );
    await refused({ brand_id: g.burgers.id, prices: [{ item_id: newId(), price_minor: 1 }] }, 404);
    await refused({ brand_id: g.tacos.id, prices: [{ item_id: item.id, price_minor: 1 }] }, 400);
    await refused({ brand_id: newId(), prices: [{ item_id: item.id, price_minor: 1 }] }, 404);
    await refused({ brand_id: g.burgers.id, prices: [] }, 400);
    expect(
      (
        await g.manager.call('PUT', '/v1/commerce/menu/prices', {
          brand_id: g.burgers.id,
          prices: [{ item_id: item.id, price_minor: 1 }],
        })
      ).statusCode,
    ).toBe(403);
  });

  it('keeps a store’s own change until head office changes the same row, and lists the conflict', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { item } = await menuWithItem(g);
    const north = g.stores[0]!;
    const rowId = storeRowId(item.id, north.id);
    const fields = (await pull(cloud, north.credential)).changes.find((c) => c.row_id === rowId)!.fields;
    const hlc = createHlc('appliance-test');
    const push = (price: number, base: number) =>
      cloud.app.inject({
        method: 'POST',
        url: '/v1/sync/push',
        headers: { authorization: `Appliance ${north.credential}` },
        payload: {
          changes: [
            {
              change_id: newId(),
              table: 'menu_items',
              row_id: rowId,
              op: 'update',
              base_version: base,
              version: base + 1,
              hlc: hlc.tick(),
              fields: { ...fields, price_minor: price },
            },
          ],
        },
      });
    const ownPrice = data<{ results: Array<{ status: string }> }>(await push(949, 1));
    expect(ownPrice.results[0]!.status).toBe('applied');
    // Head office changes the same row: its row replaces the store's, price included.
    data(await g.admin.call('PATCH', `/v1/commerce/menu/items/${item.id}`, { description: 'Three patties' }));
    await cloud.services.menu.settle();
    // The store, not having pulled yet, changes its price again on the version it knew.
    const clash = data<{ results: Array<{ status: string; row?: { fields: Record<string, unknown> } }> }>(
      await push(979, 2),
    );
    expect(clash.results[0]!.status).toBe('conflict');
    expect(clash.results[0]!.row!.fields).toMatchObject({ description: 'Three patties', price_minor: 899 });
    const conflicts = data<Array<{ row_id: string }>>(
      await g.admin.call('GET', `/v1/sync/conflicts/${north.id}`),
    );
    expect(conflicts.map((c) => c.row_id)).toContain(rowId);
  });

  it('gives a store opened later the whole menu on its first snapshot', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { category, item } = await menuWithItem(g);
    const location = await cloud.services.tenancy.createLocation(g.tenant.id, {
      name: 'East',
      brand_id: g.burgers.id,
      region_id: g.region.id,
    });
    const appliance = await cloud.services.sync.provisionAppliance(g.tenant.id, {
      location_id: location.id,
      name: 'East',
    });
    const snapshot = data<{ rows: Array<{ table: string; row_id: string }> }>(
      await cloud.app.inject({
        method: 'GET',
        url: '/v1/sync/snapshot?limit=1000',
        headers: { authorization: `Appliance ${appliance.credential}` },
      }),
    );
    expect(
      snapshot.rows
        .filter((r) => r.table.startsWith('menu'))
        .map((r) => r.row_id)
        .sort(),
    ).toEqual([storeRowId(category.id, location.id), storeRowId(item.id, location.id)].sort());
  });

  it('finishes a publication a restart interrupted', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { item } = await menuWithItem(g);
    const id = newId();
    await cloud.store.db
      .updateTable('commerce_menu_items')
      .set({ name: 'Double cheeseburger' })
      .where('id', '=', item.id)
      .execute();
    await cloud.store.db
      .insertInto('commerce_publications')
      .values({
        tenant_id: g.tenant.id,
        id,
        brand_id: g.burgers.id,
        change: 'item',
        catalog_ids: JSON.stringify([item.id]),
        location_ids: JSON.stringify([g.stores[0]!.id, g.stores[1]!.id]),
        state: 'publishing',
        created_at: new Date().toISOString(),
        published_at: null,
      })
      .execute();
    await cloud.store.db
      .insertInto('commerce_publication_stores')
      .values({
        tenant_id: g.tenant.id,
        publication_id: id,
        location_id: g.stores[0]!.id,
        feed_seq: 1,
        written_at: new Date().toISOString(),
      })
      .execute();
    expect((await publication(g.admin.call, id)).state).toBe('publishing');
    await cloud.services.menu.resume();
    await cloud.services.menu.settle();
    const done = await publication(g.admin.call, id);
    expect(done.stores_written).toBe(2);
    const south = (await pull(cloud, g.stores[1]!.credential)).changes.filter(
      (c) => c.row_id === storeRowId(item.id, g.stores[1]!.id),
    );
    expect(south.at(-1)!.fields.name).toBe('Double cheeseburger');
  });

  it('answers unknown brands, categories, items and stores with 404, and bad bodies with 400', async () => {
    const g = await seedTenant(cloud, 'menu');
    const { category, item } = await menuWithItem(g);
    const code = async (response: Reply, status: number) => {
      expect(response.statusCode, response.body).toBe(status);
      return response.json().error?.code;
    };
    const admin = g.admin.call;
    expect(
      await code(await admin('POST', '/v1/commerce/menu/categories', { brand_id: newId(), name: 'X' }), 404),
    ).toBe('BRAND_NOT_FOUND');
    expect(
      await code(
        await admin('POST', '/v1/commerce/menu/items', {
          brand_id: g.burgers.id,
          category_id: newId(),
          name: 'X',
          price_minor: 1,
        }),
        404,
      ),
    ).toBe('CATEGORY_NOT_FOUND');
    await code(
      await admin('POST', '/v1/commerce/menu/items', {
        brand_id: g.tacos.id,
        category_id: category.id,
        name: 'X',
        price_minor: 1,
      }),
      400,
    );
    expect(
      await code(await admin('PUT', `/v1/commerce/menu/items/${newId()}/price`, { price_minor: 1 }), 404),
    ).toBe('ITEM_NOT_FOUND');
    expect(
      await code(
        await admin('PUT', `/v1/commerce/menu/items/${item.id}/price`, {
          price_minor: 1,
          location_ids: [newId()],
        }),
        404,
      ),
    ).toBe('LOCATION_NOT_FOUND');
    await code(
      await admin('PUT', `/v1/commerce/menu/items/${item.id}/price`, {
        price_minor: 1,
        location_ids: [g.stores[2]!.id],
      }),
      400,
    );
    for (const body of [
      { price_minor: -1 },
      { price_minor: 1.5 },
      { price_minor: '5' },
      { price_minor: 1e12 },
      { price_minor: 1, location_ids: [] },
      { price_minor: 1, extra: true },
    ])
      await code(await admin('PUT', `/v1/commerce/menu/items/${item.id}/price`, body), 400);
    for (const body of [
      { brand_id: g.burgers.id, name: '   ' },
      { brand_id: g.burgers.id, name: 'x'.repeat(101) },
      { name: 'X' },
    ])
      await code(await admin('POST', '/v1/commerce/menu/categories', body), 400);
    expect(await code(await admin('GET', `/v1/commerce/menu/publications/${newId()}`), 404)).toBe(
      'PUBLICATION_NOT_FOUND',
    );
  });

  it('keeps tenants apart and lets managers change only the stores they name', async () => {
    const g = await seedTenant(cloud, 'menu');
    const other = await seedTenant(cloud, 'menu');
    const { category, item } = await menuWithItem(g);
    const stranger = other.admin.call;
    expect(
      (await stranger('POST', '/v1/commerce/menu/categories', { brand_id: g.burgers.id, name: 'X' }))
        .statusCode,
    ).toBe(404);
    expect((await stranger('GET', `/v1/commerce/menu/items/${item.id}`)).statusCode).toBe(404);
    expect(
      (await stranger('PATCH', `/v1/commerce/menu/categories/${category.id}`, { name: 'Y' })).statusCode,
    ).toBe(404);
    expect(
      (await stranger('PUT', `/v1/commerce/menu/items/${item.id}/price`, { price_minor: 1 })).statusCode,
    ).toBe(404);
    expect(
      (
        await other.admin.call('PUT', `/v1/commerce/menu/items/${item.id}/price`, {
          price_minor: 1,
          location_ids: [g.stores[0]!.id],
        })
      ).statusCode,
    ).toBe(404);
    expect((await stranger('GET', `/v1/commerce/menu/items?brand_id=${g.burgers.id}`)).statusCode).toBe(404);
    expect(
      (await g.manager.call('POST', '/v1/commerce/menu/categories', { brand_id: g.burgers.id, name: 'X' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await g.manager.call('PUT', `/v1/commerce/menu/items/${item.id}/price`, { price_minor: 5 }))
        .statusCode,
    ).toBe(403);
    const listed = data<{ items: Array<{ id: string }> }>(
      await g.manager.call('GET', `/v1/commerce/menu/items?brand_id=${g.burgers.id}`),
    );
    expect(listed.items.map((i) => i.id)).toEqual([item.id]);
  });
});
