import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeRowId } from '../../../cloud/commerce/catalog.ts';
import { newId } from '../../../shared/ids.ts';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { code, data, pulledRows, type Seeded, seedTenant, snapshot } from './catalog-support.ts';

describe.each(backends)('brand kitchens: stations and routing (%s)', (backend) => {
  let cloud: TestCloud;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
  });
  afterAll(() => cloud.close());

  /** A Burgers item, two Burgers stations, and the item routed to the grill for the brand. */
  async function kitchen(g: Seeded) {
    const call = g.admin.call;
    const category = data<{ id: string }>(
      await call('POST', '/v1/commerce/menu/categories', { brand_id: g.burgers.id, name: 'Burgers' }),
      201,
    );
    const item = data<{ id: string }>(
      await call('POST', '/v1/commerce/menu/items', {
        brand_id: g.burgers.id,
        category_id: category.id,
        name: 'Cheeseburger',
        price_minor: 899,
      }),
      201,
    );
    const station = async (name: string, position: number) =>
      data<{ id: string; publication: { stores_total: number } }>(
        await call('POST', '/v1/commerce/kitchen/stations', { brand_id: g.burgers.id, name, position }),
        201,
      );
    const grill = await station('Grill', 0);
    const fryer = await station('Fryer', 1);
    const routed = data<{ station_id: string; publication: { stores_total: number } }>(
      await call('PUT', `/v1/commerce/kitchen/routing/${item.id}`, { station_id: grill.id }),
    );
    await cloud.services.menu.settle();
    return { item, grill, fryer, routed };
  }

  it('publishes stations and routing to every store of the brand only, under each store’s ids', async () => {
    const g = await seedTenant(cloud, 'kitchen');
    const { item, grill, fryer, routed } = await kitchen(g);
    expect(grill.publication.stores_total).toBe(2);
    expect(routed).toMatchObject({ station_id: grill.id, publication: { stores_total: 2 } });
    const [north, south, taco] = g.stores;
    for (const store of [north!, south!]) {
      const stations = await pulledRows(cloud, store.credential, 'stations');
      expect(stations.get(storeRowId(grill.id, store.id))).toEqual({
        id: storeRowId(grill.id, store.id),
        name: 'Grill',
        position: 0,
        updated_at: expect.any(String),
      });
      expect(stations.get(storeRowId(fryer.id, store.id))).toMatchObject({ name: 'Fryer', position: 1 });
      const routes = await pulledRows(cloud, store.credential, 'station_items');
      expect([...routes.values()]).toEqual([
        { menu_item_id: storeRowId(item.id, store.id), station_id: storeRowId(grill.id, store.id) },
      ]);
    }
    expect((await pulledRows(cloud, taco!.credential, 'stations')).size).toBe(0);
    expect((await pulledRows(cloud, taco!.credential, 'station_items')).size).toBe(0);

    const moved = data<{ position: number }>(
      await g.admin.call('PATCH', `/v1/commerce/kitchen/stations/${fryer.id}`, { position: 5 }),
    );
    expect(moved.position).toBe(5);
    await cloud.services.menu.settle();
    expect(
      (await pulledRows(cloud, north!.credential, 'stations')).get(storeRowId(fryer.id, north!.id)),
    ).toMatchObject({ position: 5 });
    const listed = data<{ items: Array<{ id: string }> }>(
      await g.manager.call('GET', `/v1/commerce/kitchen/stations?brand_id=${g.burgers.id}`),
    );
    expect(listed.items.map((s) => s.id).sort()).toEqual([grill.id, fryer.id].sort());
  });

  it('routes an item elsewhere at the stores named until the brand routes it for all again', async () => {
    const g = await seedTenant(cloud, 'kitchen');
    const { item, grill, fryer } = await kitchen(g);
    const [north, south] = g.stores;
    const routeAt = async (store: { id: string; credential: string }) =>
      (await pulledRows(cloud, store.credential, 'station_items')).get(storeRowId(item.id, store.id))!
        .station_id;

    const own = data<{ station_id: string; overrides: unknown[] }>(
      await g.manager.call('PUT', `/v1/commerce/kitchen/routing/${item.id}`, {
        station_id: fryer.id,
        location_ids: [north!.id],
      }),
    );
    expect(own).toMatchObject({
      station_id: grill.id,
      overrides: [{ location_id: north!.id, station_id: fryer.id }],
    });
    await cloud.services.menu.settle();
    expect(await routeAt(north!)).toBe(storeRowId(fryer.id, north!.id));
    expect(await routeAt(south!)).toBe(storeRowId(grill.id, south!.id));

    // A change of the item's name keeps the store's own route.
    data(await g.admin.call('PATCH', `/v1/commerce/menu/items/${item.id}`, { name: 'Double' }));
    await cloud.services.menu.settle();
    expect(await routeAt(north!)).toBe(storeRowId(fryer.id, north!.id));

    const all = data<{ station_id: string; overrides: unknown[] }>(
      await g.admin.call('PUT', `/v1/commerce/kitchen/routing/${item.id}`, { station_id: grill.id }),
    );
    expect(all).toMatchObject({ station_id: grill.id, overrides: [] });
    await cloud.services.menu.settle();
    expect(await routeAt(north!)).toBe(storeRowId(grill.id, north!.id));
    expect(data(await g.manager.call('GET', `/v1/commerce/kitchen/routing/${item.id}`))).toEqual({
      menu_item_id: item.id,
      station_id: grill.id,
      overrides: [],
    });
  });

  it('gives a store opened later its brand’s stations and routing on its first snapshot', async () => {
    const g = await seedTenant(cloud, 'kitchen');
    const { item, grill, fryer } = await kitchen(g);
    const east = await g.addStore('East');
    const rows = (await snapshot(cloud, east.credential)).rows;
    expect(
      rows
        .filter((r) => r.table === 'stations')
        .map((r) => r.row_id)
        .sort(),
    ).toEqual([storeRowId(grill.id, east.id), storeRowId(fryer.id, east.id)].sort());
    expect(rows.filter((r) => r.table === 'station_items').map((r) => r.fields)).toEqual([
      { menu_item_id: storeRowId(item.id, east.id), station_id: storeRowId(grill.id, east.id) },
    ]);
  });

  it('answers bad bodies with 400, a name the brand has with 409, unknown rows with 404', async () => {
    const g = await seedTenant(cloud, 'kitchen');
    const { item, grill } = await kitchen(g);
    const admin = g.admin.call;
    for (const body of [
      { brand_id: g.burgers.id, name: '' },
      { brand_id: g.burgers.id, name: 'x'.repeat(101) },
      { brand_id: g.burgers.id, name: 'X', position: -1 },
      { brand_id: g.burgers.id, name: 'X', position: 10_001 },
      { brand_id: g.burgers.id, name: 'X', position: 1.5 },
      { brand_id: g.burgers.id, name: 'X', extra: true },
    ])
      await code(await admin('POST', '/v1/commerce/kitchen/stations', body), 400);
    expect(
      await code(
        await admin('POST', '/v1/commerce/kitchen/stations', { brand_id: g.burgers.id, name: 'GRILL' }),
        409,
      ),
    ).toBe('STATION_NAME_TAKEN');
    const tacoLine = data<{ id: string }>(
      await admin('POST', '/v1/commerce/kitchen/stations', { brand_id: g.tacos.id, name: 'Grill' }),
      201,
    );
    const route = (body: unknown, itemId = item.id) =>
      admin('PUT', `/v1/commerce/kitchen/routing/${itemId}`, body);
    await code(await route({ station_id: tacoLine.id }), 400);
    await code(await route({ station_id: grill.id, location_ids: [] }), 400);
    await code(await route({ station_id: grill.id, location_ids: [g.stores[2]!.id] }), 400);
    await code(await route({ station_id: 'nope' }), 400);
    expect(await code(await route({ station_id: newId() }), 404)).toBe('STATION_NOT_FOUND');
    expect(await code(await route({ station_id: grill.id }, newId()), 404)).toBe('ITEM_NOT_FOUND');
    expect(await code(await route({ station_id: grill.id, location_ids: [newId()] }), 404)).toBe(
      'LOCATION_NOT_FOUND',
    );
    expect(
      await code(await admin('PATCH', `/v1/commerce/kitchen/stations/${newId()}`, { name: 'X' }), 404),
    ).toBe('STATION_NOT_FOUND');
  });

  it('keeps tenants apart, and routes for the whole brand to its tenant admins', async () => {
    const g = await seedTenant(cloud, 'kitchen');
    const other = await seedTenant(cloud, 'kitchen');
    const { item, grill } = await kitchen(g);
    const stranger = other.admin.call;
    expect((await stranger('GET', `/v1/commerce/kitchen/stations/${grill.id}`)).statusCode).toBe(404);
    expect(
      (await stranger('PATCH', `/v1/commerce/kitchen/stations/${grill.id}`, { name: 'Y' })).statusCode,
    ).toBe(404);
    expect(
      (await stranger('POST', '/v1/commerce/kitchen/stations', { brand_id: g.burgers.id, name: 'Y' }))
        .statusCode,
    ).toBe(404);
    expect((await stranger('GET', `/v1/commerce/kitchen/stations?brand_id=${g.burgers.id}`)).statusCode).toBe(
      404,
    );
    expect((await stranger('GET', `/v1/commerce/kitchen/routing/${item.id}`)).statusCode).toBe(404);
    expect(
      (await stranger('PUT', `/v1/commerce/kitchen/routing/${item.id}`, { station_id: grill.id })).statusCode,
    ).toBe(404);
    const { item: theirItem } = await kitchen(other);
    expect(
      (await stranger('PUT', `/v1/commerce/kitchen/routing/${theirItem.id}`, { station_id: grill.id }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await stranger('PUT', `/v1/commerce/kitchen/routing/${theirItem.id}`, {
          station_id: grill.id,
          location_ids: [g.stores[0]!.id],
        })
      ).statusCode,
    ).toBe(404);

    const manager = g.manager.call;
    expect(
      (await manager('POST', '/v1/commerce/kitchen/stations', { brand_id: g.burgers.id, name: 'Y' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await manager('PATCH', `/v1/commerce/kitchen/stations/${grill.id}`, { name: 'Y' })).statusCode,
    ).toBe(403);
    expect(
      (await manager('PUT', `/v1/commerce/kitchen/routing/${item.id}`, { station_id: grill.id })).statusCode,
    ).toBe(403);
    expect((await manager('GET', `/v1/commerce/kitchen/routing/${item.id}`)).statusCode).toBe(200);
  });
});
