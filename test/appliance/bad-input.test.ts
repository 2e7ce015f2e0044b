import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAppliance, type TestAppliance } from '../support/appliance.ts';

const UNKNOWN = '01900000-0000-7000-8000-00000000dead';

/**
 * The list of bad input, each sent over HTTP to a store with orders in every state. Each
 * must be refused in the error envelope and leave every table of the store byte-for-byte as it was.
 */
describe('bad input at the appliance', () => {
  let t: TestAppliance;
  let burger: string;
  let shake: string;
  let open: { id: string; itemId: string };
  let completed: string;
  let cancelled: { id: string; itemId: string };

  /** Every row of every table, in order: any write at all changes it. */
  const digest = () => {
    const tables = t.db
      .prepare("select name from sqlite_master where type = 'table' order by name")
      .pluck()
      .all() as string[];
    return JSON.stringify(
      tables.map((table) => [table, t.db.prepare(`select * from "${table}" order by rowid`).all()]),
    );
  };

  const createOrder = async (items: object[]) => {
    const response = await t.call(t.cashier, 'POST', '/orders', { order_type: 'dine_in', items });
    expect(response.statusCode).toBe(201);
    const order = response.json().data as { id: string; items: Array<{ id: string }> };
    return { id: order.id, itemId: order.items[0]?.id ?? '' };
  };

  beforeAll(async () => {
    t = await createTestAppliance();
    const mains = t.services.menu.createCategory({ name: 'Mains' });
    burger = t.services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 1000 }).id;
    shake = t.services.menu.createItem({ category_id: mains.id, name: 'Shake', price_minor: 450 }).id;
    expect(
      (await t.call(t.cashier, 'PUT', `/menu/items/${shake}/availability`, { available: false })).statusCode,
    ).toBe(200);

    open = await createOrder([{ menu_item_id: burger, quantity: 2 }]);
    const done = await createOrder([{ menu_item_id: burger, quantity: 1 }]);
    await t.call(t.cashier, 'POST', `/orders/${done.id}/send`);
    await t.call(t.cashier, 'POST', `/orders/${done.id}/items/${done.itemId}/complete`);
    expect((await t.call(t.cashier, 'POST', `/orders/${done.id}/complete`)).statusCode).toBe(200);
    completed = done.id;
    cancelled = await createOrder([{ menu_item_id: burger, quantity: 1 }]);
    expect((await t.call(t.manager, 'POST', `/orders/${cancelled.id}/cancel`)).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  const line = (menu_item_id: string, quantity = 1) => ({ menu_item_id, quantity });
  type Case = [name: string, send: () => ReturnType<TestAppliance['call']>, status: number, code: string];
  const cases: Case[] = [
    [
      'an unknown menu item',
      () => t.call(t.cashier, 'POST', '/orders', { order_type: 'takeout', items: [line(UNKNOWN)] }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'an unavailable menu item',
      () => t.call(t.cashier, 'POST', '/orders', { order_type: 'takeout', items: [line(shake)] }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'an unavailable item added to an open order',
      () => t.call(t.cashier, 'POST', `/orders/${open.id}/items`, { items: [line(shake)] }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'quantity 0',
      () => t.call(t.cashier, 'POST', '/orders', { order_type: 'takeout', items: [line(burger, 0)] }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'a negative quantity',
      () => t.call(t.cashier, 'POST', `/orders/${open.id}/items`, { items: [line(burger, -1)] }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'an item changed to quantity 0',
      () => t.call(t.cashier, 'PATCH', `/orders/${open.id}/items/${open.itemId}`, { quantity: 0 }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'an unknown order type',
      () => t.call(t.cashier, 'POST', '/orders', { order_type: 'drone', items: [line(burger)] }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'paying more than is due',
      () => t.call(t.cashier, 'POST', `/orders/${open.id}/payments`, { method: 'cash', amount: 20.01 }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'paying a negative amount',
      () => t.call(t.cashier, 'POST', `/orders/${open.id}/payments`, { method: 'cash', amount: -1 }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'voiding a completed order',
      () => t.call(t.manager, 'POST', `/orders/${completed}/cancel`),
      409,
      'INVALID_ORDER_STATE',
    ],
    [
      'adding to a cancelled order',
      () => t.call(t.cashier, 'POST', `/orders/${cancelled.id}/items`, { items: [line(burger)] }),
      409,
      'ORDER_NOT_EDITABLE',
    ],
    [
      'changing a cancelled order’s item',
      () => t.call(t.cashier, 'PATCH', `/orders/${cancelled.id}/items/${cancelled.itemId}`, { quantity: 3 }),
      409,
      'ORDER_NOT_EDITABLE',
    ],
    [
      'removing a cancelled order’s item',
      () => t.call(t.cashier, 'DELETE', `/orders/${cancelled.id}/items/${cancelled.itemId}`),
      409,
      'ORDER_NOT_EDITABLE',
    ],
    [
      'sending a cancelled order',
      () => t.call(t.cashier, 'POST', `/orders/${cancelled.id}/send`),
      409,
      'INVALID_ORDER_STATE',
    ],
    [
      'a cashier voiding an order',
      () => t.call(t.cashier, 'POST', `/orders/${open.id}/cancel`),
      403,
      'FORBIDDEN',
    ],
    [
      'an unknown order',
      () => t.call(t.cashier, 'POST', `/orders/${UNKNOWN}/items`, { items: [line(burger)] }),
      404,
      'ORDER_NOT_FOUND',
    ],
    [
      'an unknown field',
      () =>
        t.call(t.cashier, 'POST', '/orders', { order_type: 'takeout', items: [line(burger)], discount: 100 }),
      400,
      'INVALID_REQUEST',
    ],
  ];

  it.each(cases)('refuses %s in the envelope and changes nothing', async (_name, send, status, code) => {
    const before = digest();
    const response = await send();
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ error: { code, message: expect.any(String) } });
    expect(response.json().meta.request_id).toBe(response.headers['x-request-id']);
    expect(digest()).toBe(before);
  });

  it('refuses a PIN of 5 digits naming body.pin, and counts no failed attempt', async () => {
    const before = digest();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier: 'bob', pin: '12345' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([{ field: 'body.pin', message: expect.any(String) }]);
    expect(digest()).toBe(before);
  });
});
