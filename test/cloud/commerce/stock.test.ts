import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeRowId } from '../../../cloud/commerce/catalog.ts';
import { newId } from '../../../shared/ids.ts';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { code, data, pulledRows, rawPusher, type Seeded, seedTenant, snapshot } from './catalog-support.ts';

type Level = {
  location_id: string;
  inventory_item_id: string;
  name: string | null;
  quantity_milli: number;
  reorder_level_milli: number | null;
  low: boolean;
};
type Page<T> = { items: T[]; next_cursor: string | null };

describe.each(backends)('brand stock items, recipes and stock levels (%s)', (backend) => {
  let cloud: TestCloud;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
  });
  afterAll(() => cloud.close());

  /** A Burgers item with a brand recipe of buns and beef. */
  async function burgerWithRecipe(g: Seeded) {
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
    const stockItem = async (name: string, unit: string, reorder: number) =>
      data<{ id: string; publication: { stores_total: number } }>(
        await call('POST', '/v1/commerce/stock/items', {
          brand_id: g.burgers.id,
          name,
          unit,
          reorder_level_milli: reorder,
          reorder_quantity_milli: reorder * 4,
        }),
        201,
      );
    const buns = await stockItem('Buns', 'each', 10_000);
    const beef = await stockItem('Beef', 'kg', 2_000);
    const recipe = data<{ components: unknown[]; publication: { stores_total: number } }>(
      await call('PUT', `/v1/commerce/menu/items/${item.id}/recipe`, {
        components: [
          { stock_item_id: buns.id, quantity_milli: 1000 },
          { stock_item_id: beef.id, quantity_milli: 150 },
        ],
      }),
    );
    await cloud.services.menu.settle();
    return { category, item, buns, beef, recipe };
  }

  it('publishes stock items and recipes to every store of the brand only, naming each store’s own rows', async () => {
    const g = await seedTenant(cloud, 'stock');
    const { item, buns, beef, recipe } = await burgerWithRecipe(g);
    expect(buns.publication.stores_total).toBe(2);
    expect(recipe.publication.stores_total).toBe(2);
    const [north, south, taco] = g.stores;

    for (const store of [north!, south!]) {
      const items = await pulledRows(cloud, store.credential, 'inventory_items');
      expect(items.get(storeRowId(buns.id, store.id))).toEqual({
        id: storeRowId(buns.id, store.id),
        name: 'Buns',
        unit: 'each',
        reorder_level_milli: 10_000,
        reorder_quantity_milli: 40_000,
        updated_at: expect.any(String),
      });
      const recipes = await pulledRows(cloud, store.credential, 'recipes');
      const row = recipes.get(storeRowId(item.id, store.id))!;
      expect(row.menu_item_id).toBe(storeRowId(item.id, store.id));
      expect(JSON.parse(String(row.components))).toEqual(
        expect.arrayContaining([
          { inventory_item_id: storeRowId(buns.id, store.id), quantity_milli: 1000 },
          { inventory_item_id: storeRowId(beef.id, store.id), quantity_milli: 150 },
        ]),
      );
    }
    expect((await pulledRows(cloud, taco!.credential, 'inventory_items')).size).toBe(0);
    expect((await pulledRows(cloud, taco!.credential, 'recipes')).size).toBe(0);

    const renamed = data<{ name: string; publication: { id: string } }>(
      await g.admin.call('PATCH', `/v1/commerce/stock/items/${buns.id}`, { name: 'Brioche buns' }),
    );
    expect(renamed.name).toBe('Brioche buns');
    await cloud.services.menu.settle();
    const after = await pulledRows(cloud, north!.credential, 'inventory_items');
    expect(after.get(storeRowId(buns.id, north!.id))!.name).toBe('Brioche buns');
    const listed = data<{ items: Array<{ id: string }> }>(
      await g.manager.call('GET', `/v1/commerce/stock/items?brand_id=${g.burgers.id}`),
    );
    expect(listed.items.map((i) => i.id).sort()).toEqual([buns.id, beef.id].sort());
    expect(data(await g.manager.call('GET', `/v1/commerce/menu/items/${item.id}/recipe`))).toMatchObject({
      menu_item_id: item.id,
      components: [
        { stock_item_id: buns.id, quantity_milli: 1000 },
        { stock_item_id: beef.id, quantity_milli: 150 },
      ],
    });
  });

  it('gives a store opened later its brand’s stock items and recipes on its first snapshot', async () => {
    const g = await seedTenant(cloud, 'stock');
    const { item, buns, beef } = await burgerWithRecipe(g);
    const east = await g.addStore('East');
    const rows = (await snapshot(cloud, east.credential)).rows;
    expect(
      rows
        .filter((r) => r.table === 'inventory_items')
        .map((r) => r.row_id)
        .sort(),
    ).toEqual([storeRowId(buns.id, east.id), storeRowId(beef.id, east.id)].sort());
    const recipe = rows.find((r) => r.table === 'recipes')!;
    expect(recipe.row_id).toBe(storeRowId(item.id, east.id));
    expect(JSON.parse(String(recipe.fields.components))).toHaveLength(2);
  });

  it('counts each store’s stock from its pushed movements, a movement pushed again only once', async () => {
    const g = await seedTenant(cloud, 'stock');
    const { buns, beef } = await burgerWithRecipe(g);
    const [north, south] = g.stores;
    const northBuns = storeRowId(buns.id, north!.id);
    const northBeef = storeRowId(beef.id, north!.id);
    const pusher = rawPusher(cloud, north!.credential);
    const movement = (itemId: string, kind: string, delta: number) =>
      pusher.insert('inventory_movements', {
        id: newId(),
        inventory_item_id: itemId,
        kind,
        delta_milli: delta,
        reference: null,
        created_at: new Date().toISOString(),
      });
    const count = movement(northBuns, 'count', 24_000);
    const sale = movement(northBuns, 'sale', -2_000);
    expect(await pusher.push([count, sale, movement(northBeef, 'count', 5_000)])).toEqual([
      'applied',
      'applied',
      'applied',
    ]);
    // The same change again (a lost answer), and the same movement under a new change id.
    expect(await pusher.push([sale])).toEqual(['duplicate']);
    expect(
      await pusher.push([
        { ...sale, change_id: newId() },
        { ...count, change_id: newId() },
      ]),
    ).toEqual(['applied', 'applied']);

    const levels = data<Page<Level>>(
      await g.manager.call('GET', `/v1/commerce/stock/levels?location_id=${north!.id}`),
    );
    expect(Object.fromEntries(levels.items.map((l) => [l.inventory_item_id, l.quantity_milli]))).toEqual({
      [northBuns]: 22_000,
      [northBeef]: 5_000,
    });
    expect(levels.items.find((l) => l.inventory_item_id === northBuns)).toMatchObject({
      name: 'Buns',
      reorder_level_milli: 10_000,
      low: false,
    });
    const southLevels = data<Page<Level>>(
      await g.manager.call('GET', `/v1/commerce/stock/levels?location_id=${south!.id}`),
    );
    expect(southLevels.items.every((l) => l.quantity_milli === 0)).toBe(true);
  });

  it('lists items at or below their reorder level across stores, a page at a time', async () => {
    const g = await seedTenant(cloud, 'stock');
    const { buns, beef } = await burgerWithRecipe(g);
    const [north, south, taco] = g.stores;
    const push = async (store: { id: string; credential: string }, itemId: string, delta: number) => {
      const pusher = rawPusher(cloud, store.credential);
      const fields = {
        id: newId(),
        inventory_item_id: itemId,
        kind: 'count',
        delta_milli: delta,
        reference: null,
        created_at: new Date().toISOString(),
      };
      expect(await pusher.push([pusher.insert('inventory_movements', fields)])).toEqual(['applied']);
    };
    await push(north!, storeRowId(buns.id, north!.id), 10_000); // at its level: low
    await push(north!, storeRowId(beef.id, north!.id), 2_001); // above
    await push(south!, storeRowId(buns.id, south!.id), 50_000); // above; south's beef is 0: low
    // A Tacos store's own item, below its level.
    const own = newId();
    const taco0 = rawPusher(cloud, taco!.credential);
    expect(
      await taco0.push([
        taco0.insert('inventory_items', {
          id: own,
          name: 'Tortillas',
          unit: 'each',
          reorder_level_milli: 5_000,
          reorder_quantity_milli: 0,
          updated_at: new Date().toISOString(),
        }),
      ]),
    ).toEqual(['applied']);

    const key = (l: Level) => `${l.location_id}/${l.inventory_item_id}`;
    const everywhere = data<Page<Level>>(await g.admin.call('GET', '/v1/commerce/stock/low'));
    expect(everywhere.items.map(key).sort()).toEqual(
      [
        `${north!.id}/${storeRowId(buns.id, north!.id)}`,
        `${south!.id}/${storeRowId(beef.id, south!.id)}`,
        `${taco!.id}/${own}`,
      ].sort(),
    );
    expect(everywhere.items.every((l) => l.low)).toBe(true);
    const burgers = data<Page<Level>>(
      await g.admin.call('GET', `/v1/commerce/stock/low?brand_id=${g.burgers.id}`),
    );
    expect(burgers.items).toHaveLength(2);
    const first = data<Page<Level>>(
      await g.admin.call('GET', `/v1/commerce/stock/low?brand_id=${g.burgers.id}&limit=1`),
    );
    expect(first.items).toHaveLength(1);
    const second = data<Page<Level>>(
      await g.admin.call(
        'GET',
        `/v1/commerce/stock/low?brand_id=${g.burgers.id}&limit=1&cursor=${first.next_cursor}`,
      ),
    );
    expect(second.items).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    expect([...first.items, ...second.items].map(key).sort()).toEqual(burgers.items.map(key).sort());
    const oneStore = data<Page<Level>>(
      await g.admin.call('GET', `/v1/commerce/stock/low?location_id=${taco!.id}`),
    );
    expect(oneStore.items.map((l) => l.name)).toEqual(['Tortillas']);
  });

  it('answers bad bodies with 400, and unknown or other brands’ rows as the menu does', async () => {
    const g = await seedTenant(cloud, 'stock');
    const { item, buns } = await burgerWithRecipe(g);
    const admin = g.admin.call;
    const tacoBeans = data<{ id: string }>(
      await admin('POST', '/v1/commerce/stock/items', { brand_id: g.tacos.id, name: 'Beans', unit: 'kg' }),
      201,
    );
    for (const body of [
      { brand_id: g.burgers.id, name: 'X', unit: 'cup' },
      { brand_id: g.burgers.id, name: '  ', unit: 'each' },
      { brand_id: g.burgers.id, name: 'X', unit: 'each', reorder_level_milli: -1 },
      { brand_id: g.burgers.id, name: 'X', unit: 'each', reorder_level_milli: 1.5 },
      { brand_id: g.burgers.id, name: 'X', unit: 'each', reorder_level_milli: 1e12 },
      { brand_id: g.burgers.id, name: 'X', unit: 'each', extra: 1 },
    ])
      await code(await admin('POST', '/v1/commerce/stock/items', body), 400);
    expect(
      await code(
        await admin('POST', '/v1/commerce/stock/items', {
          brand_id: g.burgers.id,
          name: 'buns',
          unit: 'each',
        }),
        409,
      ),
    ).toBe('STOCK_ITEM_NAME_TAKEN');
    const recipe = (components: unknown) =>
      admin('PUT', `/v1/commerce/menu/items/${item.id}/recipe`, { components });
    for (const components of [
      [{ stock_item_id: buns.id, quantity_milli: 0 }],
      [{ stock_item_id: buns.id, quantity_milli: 0.5 }],
      [{ stock_item_id: 'nope', quantity_milli: 1 }],
      [
        { stock_item_id: buns.id, quantity_milli: 1 },
        { stock_item_id: buns.id, quantity_milli: 2 },
      ],
      [{ stock_item_id: tacoBeans.id, quantity_milli: 1 }],
    ])
      await code(await recipe(components), 400);
    expect(await code(await recipe([{ stock_item_id: newId(), quantity_milli: 1 }]), 404)).toBe(
      'STOCK_ITEM_NOT_FOUND',
    );
    expect(
      await code(await admin('PUT', `/v1/commerce/menu/items/${newId()}/recipe`, { components: [] }), 404),
    ).toBe('ITEM_NOT_FOUND');
    expect(
      await code(
        await admin('POST', '/v1/commerce/stock/items', { brand_id: newId(), name: 'X', unit: 'g' }),
        404,
      ),
    ).toBe('BRAND_NOT_FOUND');
    expect(await code(await admin('GET', `/v1/commerce/stock/levels?location_id=${newId()}`), 404)).toBe(
      'LOCATION_NOT_FOUND',
    );
    await code(await admin('GET', '/v1/commerce/stock/low?cursor=nope'), 400);
    await code(await admin('GET', '/v1/commerce/stock/low?limit=1000'), 400);
  });

  it('keeps tenants apart, and changing a brand’s stock to its tenant admins', async () => {
    const g = await seedTenant(cloud, 'stock');
    const other = await seedTenant(cloud, 'stock');
    const { item, buns } = await burgerWithRecipe(g);
    const stranger = other.admin.call;
    expect((await stranger('GET', `/v1/commerce/stock/items/${buns.id}`)).statusCode).toBe(404);
    expect((await stranger('PATCH', `/v1/commerce/stock/items/${buns.id}`, { name: 'Y' })).statusCode).toBe(
      404,
    );
    expect(
      (await stranger('POST', '/v1/commerce/stock/items', { brand_id: g.burgers.id, name: 'Y', unit: 'g' }))
        .statusCode,
    ).toBe(404);
    expect((await stranger('GET', `/v1/commerce/stock/items?brand_id=${g.burgers.id}`)).statusCode).toBe(404);
    expect((await stranger('GET', `/v1/commerce/menu/items/${item.id}/recipe`)).statusCode).toBe(404);
    expect(
      (await stranger('PUT', `/v1/commerce/menu/items/${item.id}/recipe`, { components: [] })).statusCode,
    ).toBe(404);
    // A recipe in another tenant cannot name this tenant's stock items.
    const { item: theirItem } = await burgerWithRecipe(other);
    expect(
      (
        await stranger('PUT', `/v1/commerce/menu/items/${theirItem.id}/recipe`, {
          components: [{ stock_item_id: buns.id, quantity_milli: 1 }],
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await stranger('GET', `/v1/commerce/stock/levels?location_id=${g.stores[0]!.id}`)).statusCode,
    ).toBe(404);
    expect((await stranger('GET', `/v1/commerce/stock/low?location_id=${g.stores[0]!.id}`)).statusCode).toBe(
      404,
    );
    expect((await stranger('GET', `/v1/commerce/stock/low?brand_id=${g.burgers.id}`)).statusCode).toBe(404);
    const theirs = data<Page<Level>>(await stranger('GET', '/v1/commerce/stock/low'));
    expect(theirs.items.every((l) => other.stores.some((s) => s.id === l.location_id))).toBe(true);

    const manager = g.manager.call;
    expect(
      (await manager('POST', '/v1/commerce/stock/items', { brand_id: g.burgers.id, name: 'Y', unit: 'g' }))
        .statusCode,
    ).toBe(403);
    expect((await manager('PATCH', `/v1/commerce/stock/items/${buns.id}`, { name: 'Y' })).statusCode).toBe(
      403,
    );
    expect(
      (await manager('PUT', `/v1/commerce/menu/items/${item.id}/recipe`, { components: [] })).statusCode,
    ).toBe(403);
    expect((await manager('GET', `/v1/commerce/stock/items/${buns.id}`)).statusCode).toBe(200);
    expect((await manager('GET', '/v1/commerce/stock/low')).statusCode).toBe(200);
  });
});
