import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createLocationService } from '../../../appliance/location/service.ts';
import { createMenuService } from '../../../appliance/menu/service.ts';
import { createOrderService, type OrderService } from '../../../appliance/orders/service.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';

describe('orders', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let clock: ManualClock;
  let orders: OrderService;
  let burger: string;
  let fries: string;
  let soldOut: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'orders-'));
    db = openApplianceDb(dir);
    // 15:00 in New York: well inside the business day that began at 04:00.
    clock = createManualClock('2026-06-10T19:00:00.000Z');
    const changes = createChangeLog(db, { clock, newId, locationId: LOCATION });
    const location = createLocationService({ db, changes, clock });
    location.ensure(LOCATION, { name: 'Main St', timezone: 'America/New_York', tax_rate_bps: 825 });
    const menu = createMenuService({ db, changes, clock, newId });
    const mains = menu.createCategory({ name: 'Mains' });
    burger = menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
    fries = menu.createItem({ category_id: mains.id, name: 'Fries', price_minor: 199 }).id;
    soldOut = menu.createItem({
      category_id: mains.id,
      name: 'Shake',
      price_minor: 450,
      available: false,
    }).id;
    db.exec('delete from outbox; delete from events');
    orders = createOrderService({ db, changes, menu, location, clock, newId });
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const events = () =>
    (
      db.prepare('select type, data from events order by seq').all() as Array<{ type: string; data: string }>
    ).map((row) => ({ type: row.type, data: JSON.parse(row.data) }));
  const count = (table: string) => (db.prepare(`select count(*) n from ${table}`).get() as { n: number }).n;

  it('creates an order with exact totals, its number, its outbox rows and order.created', async () => {
    const order = await orders.create({
      order_type: 'dine_in',
      table: '12',
      server: { id: 'staff-1', name: 'Ann' },
      items: [
        { menu_item_id: burger, quantity: 2, modifiers: ['no onions'] },
        { menu_item_id: fries, quantity: 1 },
      ],
    });
    // 2 × 3.49 + 1.99 = 8.97; 8.25% of 897 cents = 74.0025 cents, rounded to 74.
    expect(order).toMatchObject({
      number: '1',
      business_day: '2026-06-10',
      status: 'open',
      subtotal: 8.97,
      tax: 0.74,
      total: 9.71,
    });
    expect(order.items.map((i) => [i.name, i.quantity, i.unit_price, i.total])).toEqual([
      ['Burger', 2, 3.49, 6.98],
      ['Fries', 1, 1.99, 1.99],
    ]);
    expect(
      db.prepare("select table_name, operation from outbox where table_name <> 'events' order by seq").all(),
    ).toEqual([
      { table_name: 'order_items', operation: 'insert' },
      { table_name: 'order_items', operation: 'insert' },
      { table_name: 'orders', operation: 'insert' },
    ]);
    const [created] = events();
    expect(created).toEqual({
      type: 'order.created',
      data: {
        id: order.id,
        number: '1',
        order_type: 'dine_in',
        status: 'open',
        items: order.items.map(({ id, menu_item_id, name, quantity, unit_price, total }) => ({
          id,
          menu_item_id,
          name,
          quantity,
          unit_price,
          total,
        })),
        subtotal: 8.97,
        tax: 0.74,
        total: 9.71,
        created_at: order.created_at,
        table: '12',
        server: { id: 'staff-1', name: 'Ann' },
      },
    });
  });

  it('numbers orders per business day, restarting when the next one begins', async () => {
    const numbers = [];
    for (let i = 0; i < 3; i++)
      numbers.push((await orders.create({ order_type: 'takeout', items: [] })).number);
    clock.set('2026-06-11T07:30:00.000Z'); // 03:30 in New York: still the 10th's business day
    numbers.push((await orders.create({ order_type: 'takeout', items: [] })).number);
    clock.set('2026-06-11T08:30:00.000Z'); // 04:30: a new business day
    const next = await orders.create({ order_type: 'drive_thru', items: [] });
    expect(numbers).toEqual(['1', '2', '3', '4']);
    expect(next).toMatchObject({ number: '1', business_day: '2026-06-11' });
  });

  it('refuses unknown and unavailable menu items by position, writing nothing', async () => {
    const unknown = orders.create({
      order_type: 'dine_in',
      items: [
        { menu_item_id: burger, quantity: 1 },
        { menu_item_id: newId(), quantity: 1 },
      ],
    });
    await expect(unknown).rejects.toMatchObject({
      status: 400,
      details: [{ field: 'body.items.1.menu_item_id' }],
    });
    const unavailable = orders.create({
      order_type: 'dine_in',
      items: [{ menu_item_id: soldOut, quantity: 1 }],
    });
    await expect(unavailable).rejects.toMatchObject({
      status: 400,
      details: [{ field: 'body.items.0.menu_item_id', message: 'is not available right now' }],
    });
    expect([
      count('orders'),
      count('order_items'),
      count('order_numbers'),
      count('outbox'),
      count('events'),
    ]).toEqual([0, 0, 0, 0, 0]);
  });

  it('changes items only while open, recomputing the totals each time', async () => {
    const order = await orders.create({
      order_type: 'dine_in',
      items: [{ menu_item_id: burger, quantity: 1 }],
    });
    const added = await orders.addItems(order.id, [{ menu_item_id: fries, quantity: 2 }]);
    expect(added).toMatchObject({ subtotal: 7.47, tax: 0.62, total: 8.09 });
    const changed = orders.changeItem(order.id, added.items[1]!.id, { quantity: 1, notes: 'extra salt' });
    expect(changed).toMatchObject({ subtotal: 5.48 });
    const removed = orders.removeItem(order.id, added.items[0]!.id);
    expect(removed.items.map((i) => i.name)).toEqual(['Fries']);
    orders.send(order.id);
    expect(() => orders.changeItem(order.id, removed.items[0]!.id, { quantity: 3 })).toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_EDITABLE' }),
    );
    await expect(orders.addItems(order.id, [{ menu_item_id: burger, quantity: 1 }])).rejects.toMatchObject({
      code: 'ORDER_NOT_EDITABLE',
    });
  });

  it('runs the lifecycle with its events in order: created, updated, sent, ready, completed', async () => {
    const order = await orders.create({
      order_type: 'dine_in',
      items: [{ menu_item_id: burger, quantity: 1 }],
    });
    expect(() => orders.complete(order.id)).toThrow(expect.objectContaining({ code: 'INVALID_ORDER_STATE' }));
    await orders.addItems(order.id, [{ menu_item_id: fries, quantity: 1 }]);
    const sent = orders.send(order.id);
    expect(sent.items.every((i) => i.status === 'sent')).toBe(true);
    const half = orders.completeItem(order.id, sent.items[0]!.id);
    expect(half.status).toBe('sent');
    const ready = orders.completeItem(order.id, sent.items[1]!.id);
    expect(ready.status).toBe('ready');
    const done = orders.complete(order.id);
    expect(done.status).toBe('completed');
    expect(events().map((e) => e.type)).toEqual([
      'order.created',
      'order.updated',
      'order.sent',
      'order.updated',
      'order.ready',
      'order.completed',
    ]);
    expect(() => orders.cancel(order.id)).toThrow(
      expect.objectContaining({ code: 'INVALID_ORDER_STATE', status: 409 }),
    );
  });

  it('cancels an unfinished order, after which it cannot change', async () => {
    const order = await orders.create({
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 1 }],
    });
    expect(() => orders.send(newId())).toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_FOUND', status: 404 }),
    );
    expect(() => orders.send(order.id)).not.toThrow();
    expect(orders.cancel(order.id).status).toBe('cancelled');
    expect(() => orders.removeItem(order.id, order.items[0]!.id)).toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_EDITABLE' }),
    );
    expect(events().at(-1)).toMatchObject({
      type: 'order.cancelled',
      data: { id: order.id, status: 'cancelled' },
    });
    expect(() => orders.send(order.id)).toThrow(expect.objectContaining({ code: 'INVALID_ORDER_STATE' }));
  });
});
