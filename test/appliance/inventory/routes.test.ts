import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestAppliance, type TestAppliance } from '../../support/appliance.ts';

describe('inventory routes', () => {
  let t: TestAppliance;
  let db: TestAppliance['db'];
  let services: TestAppliance['services'];
  let manager: string;
  let cashier: string;
  let burger: string;
  const call = (...args: Parameters<TestAppliance['call']>) => t.call(...args);
  const events = () => t.events();

  beforeEach(async () => {
    t = await createTestAppliance();
    ({ db, services, manager, cashier } = t);
    const mains = services.menu.createCategory({ name: 'Mains' });
    burger = services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
    // Seeding the menu wrote events of its own; each test reads only what it causes.
    t.db.exec('delete from events');
  });
  afterEach(() => t.close());

  const createItem = async (body: object) => {
    const response = await call(manager, 'POST', '/inventory/items', body);
    expect(response.statusCode).toBe(201);
    return response.json().data.id as string;
  };
  const stock = async () =>
    Object.fromEntries(
      (await call(cashier, 'GET', '/inventory/items'))
        .json()
        .data.map((i: { name: string; current_quantity: number }) => [i.name, i.current_quantity]),
    );

  it('deducts a completed order’s recipe once, and says when stock runs low', async () => {
    const bun = await createItem({ name: 'Bun', unit: 'each', quantity: 10, reorder_level: 9 });
    const patty = await createItem({ name: 'Beef', unit: 'kg', quantity: 5 });
    const recipe = await call(manager, 'PUT', `/menu/items/${burger}/recipe`, {
      components: [
        { inventory_item_id: bun, quantity: 1 },
        { inventory_item_id: patty, quantity: 0.15 },
      ],
    });
    expect(recipe.statusCode).toBe(200);
    expect(recipe.json().data.components).toHaveLength(2);

    const created = await call(cashier, 'POST', '/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 2 }],
    });
    const order = created.json().data as { id: string; items: Array<{ id: string }> };
    await call(cashier, 'POST', `/orders/${order.id}/send`);
    await call(cashier, 'POST', `/orders/${order.id}/items/${order.items[0]?.id}/complete`);
    db.exec('delete from events');
    expect((await call(cashier, 'POST', `/orders/${order.id}/complete`)).statusCode).toBe(200);
    expect(await stock()).toEqual({ Bun: 8, Beef: 4.7 });
    expect(events().map((e) => e.type)).toEqual([
      'order.completed',
      'inventory.updated',
      'inventory.low_stock',
      'inventory.updated',
    ]);
    expect(events()[2]?.data).toMatchObject({ item_id: bun, name: 'Bun', current_quantity: 8 });

    expect((await call(cashier, 'POST', `/orders/${order.id}/complete`)).statusCode).toBe(409);
    expect(await stock()).toEqual({ Bun: 8, Beef: 4.7 });
  });

  it('completes nothing when the stock deduction fails part-way', async () => {
    const bun = await createItem({ name: 'Bun', unit: 'each', quantity: 10 });
    const patty = await createItem({ name: 'Beef', unit: 'kg', quantity: 5 });
    await call(manager, 'PUT', `/menu/items/${burger}/recipe`, {
      components: [
        { inventory_item_id: bun, quantity: 1 },
        { inventory_item_id: patty, quantity: 0.15 },
      ],
    });
    const created = await call(cashier, 'POST', '/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 2 }],
    });
    const order = created.json().data as { id: string; items: Array<{ id: string }> };
    await call(cashier, 'POST', `/orders/${order.id}/send`);
    await call(cashier, 'POST', `/orders/${order.id}/items/${order.items[0]?.id}/complete`);
    const count = (table: string) =>
      (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    const before = {
      outbox: count('outbox'),
      events: count('events'),
      movements: count('inventory_movements'),
    };
    // The bun's movement is written first; the beef's then fails as a full disk would.
    db.exec(`create temp trigger fail_beef before insert on inventory_movements
      when new.inventory_item_id = '${patty}' begin select raise(abort, 'disk I/O error'); end`);

    const failed = await call(cashier, 'POST', `/orders/${order.id}/complete`);
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('INTERNAL_ERROR');
    expect((await call(cashier, 'GET', `/orders/${order.id}`)).json().data.status).toBe('ready');
    expect(await stock()).toEqual({ Bun: 10, Beef: 5 });
    expect({
      outbox: count('outbox'),
      events: count('events'),
      movements: count('inventory_movements'),
    }).toEqual(before);

    db.exec('drop trigger fail_beef');
    expect((await call(cashier, 'POST', `/orders/${order.id}/complete`)).statusCode).toBe(200);
    expect(await stock()).toEqual({ Bun: 8, Beef: 4.7 });
  });

  it('restocks and counts for staff, and keeps items and recipes to managers', async () => {
    expect((await call(cashier, 'POST', '/inventory/items', { name: 'Bun', unit: 'each' })).statusCode).toBe(
      403,
    );
    const bun = await createItem({ name: 'Bun', unit: 'each', quantity: 2 });
    expect((await call(cashier, 'PUT', `/menu/items/${burger}/recipe`, { components: [] })).statusCode).toBe(
      403,
    );
    const restocked = await call(cashier, 'POST', `/inventory/items/${bun}/restock`, { quantity: 10 });
    expect(restocked.json().data.current_quantity).toBe(12);
    const counted = await call(cashier, 'POST', `/inventory/items/${bun}/count`, { quantity: 11 });
    expect(counted.json().data.current_quantity).toBe(11);
    const zero = await call(cashier, 'POST', `/inventory/items/${bun}/restock`, { quantity: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().error.details[0].field).toBe('body.quantity');
  });

  it('answers 404 for an unknown stock item or menu item, and 409 for a taken name', async () => {
    const unknown = '01900000-0000-7000-8000-0000000000ff';
    const bun = await createItem({ name: 'Bun', unit: 'each' });
    const missing = await call(cashier, 'POST', `/inventory/items/${unknown}/restock`, { quantity: 1 });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('INVENTORY_ITEM_NOT_FOUND');
    const noMenuItem = await call(manager, 'PUT', `/menu/items/${unknown}/recipe`, {
      components: [{ inventory_item_id: bun, quantity: 1 }],
    });
    expect(noMenuItem.statusCode).toBe(404);
    const taken = await call(manager, 'POST', '/inventory/items', { name: 'Bun', unit: 'each' });
    expect(taken.statusCode).toBe(409);
  });
});
