import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CASHIER, createTestAppliance, type TestAppliance } from '../../support/appliance.ts';

const UNKNOWN = '01900000-0000-7000-8000-0000000000ff';

describe('order routes', () => {
  let t: TestAppliance;
  let services: TestAppliance['services'];
  let manager: string;
  let cashier: string;
  let burger: string;
  let fries: string;
  const call = (...args: Parameters<TestAppliance['call']>) => t.call(...args);
  const events = () => t.events();
  const openOrder = async () => {
    const response = await call(cashier, 'POST', '/orders', {
      order_type: 'dine_in',
      items: [{ menu_item_id: burger, quantity: 1 }],
    });
    expect(response.statusCode).toBe(201);
    return response.json().data as { id: string; items: Array<{ id: string }> };
  };

  beforeEach(async () => {
    t = await createTestAppliance();
    ({ services, manager, cashier } = t);
    const mains = services.menu.createCategory({ name: 'Mains' });
    burger = services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
    fries = services.menu.createItem({ category_id: mains.id, name: 'Fries', price_minor: 199 }).id;
    // Seeding the menu wrote events of its own; each test reads only what it causes.
    t.db.exec('delete from events');
  });
  afterEach(() => t.close());

  it('runs an order from creation to completion, with its events in order', async () => {
    const created = await call(cashier, 'POST', '/orders', {
      order_type: 'dine_in',
      table: '12',
      items: [{ menu_item_id: burger, quantity: 2, modifiers: ['no onions'] }],
    });
    expect(created.statusCode).toBe(201);
    const order = created.json().data;
    expect(order).toMatchObject({
      number: '1',
      status: 'open',
      table: '12',
      server: { id: CASHIER, name: 'Bob' },
    });
    const id = order.id as string;

    const added = await call(cashier, 'POST', `/orders/${id}/items`, {
      items: [{ menu_item_id: fries, quantity: 1, notes: 'extra salt' }],
    });
    expect(added.statusCode).toBe(200);
    const [burgerLine, friesLine] = added.json().data.items;
    expect(
      (await call(cashier, 'PATCH', `/orders/${id}/items/${burgerLine.id}`, { quantity: 3 })).statusCode,
    ).toBe(200);
    const removed = await call(cashier, 'DELETE', `/orders/${id}/items/${friesLine.id}`);
    expect(removed.json().data).toMatchObject({ subtotal: 10.47, items: [{ quantity: 3 }] });
    expect((await call(cashier, 'POST', `/orders/${id}/send`)).json().data.status).toBe('sent');
    const prepared = await call(cashier, 'POST', `/orders/${id}/items/${burgerLine.id}/complete`);
    expect(prepared.json().data.status).toBe('ready');
    expect((await call(cashier, 'POST', `/orders/${id}/complete`)).json().data.status).toBe('completed');
    const fetched = await call(cashier, 'GET', `/orders/${id}`);
    expect(fetched.json().data).toMatchObject({ id, status: 'completed', total: 10.47 });

    expect(events().map((e) => e.type)).toEqual([
      'order.created',
      'order.updated',
      'order.updated',
      'order.updated',
      'order.sent',
      'order.ready',
      'order.completed',
    ]);
    expect(events()[0]?.data).toMatchObject({ id, table: '12', server: { id: CASHIER, name: 'Bob' } });
  });

  it('rejects a zero quantity naming the field, and an item not on the menu', async () => {
    const zero = await call(cashier, 'POST', '/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 0 }],
    });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().error.details.map((d: { field: string }) => d.field)).toContain(
      'body.items.0.quantity',
    );
    const unknown = await call(cashier, 'POST', '/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: UNKNOWN, quantity: 1 }],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toEqual([
      { field: 'body.items.0.menu_item_id', message: expect.any(String) },
    ]);
    expect(events()).toEqual([]);
  });

  it('takes a dry-run order through the whole create path and leaves nothing behind', async () => {
    const counts = () =>
      t.db
        .prepare(
          `select (select count(*) from orders) as orders, (select count(*) from order_items) as items,
             (select count(*) from outbox) as outbox, (select count(*) from events) as events,
             (select count(*) from order_numbers) as numbers`,
        )
        .get();
    const before = counts();
    const dry = await call(cashier, 'POST', '/orders?dry_run=true', {
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 2 }],
    });
    expect(dry.statusCode).toBe(200);
    expect(dry.json().data).toMatchObject({
      dry_run: true,
      number: '1',
      status: 'open',
      server: { id: CASHIER, name: 'Bob' },
      items: [{ menu_item_id: burger, quantity: 2, total: 6.98 }],
      subtotal: 6.98,
    });
    expect(counts()).toEqual(before);
    expect((await call(cashier, 'GET', `/orders/${dry.json().data.id}`)).statusCode).toBe(404);

    // Refused as the real thing would be, and the numbering goes on as if it had never run.
    services.menu.setAvailability(fries, false);
    const refused = await call(cashier, 'POST', '/orders?dry_run=true', {
      order_type: 'takeout',
      items: [{ menu_item_id: fries, quantity: 1 }],
    });
    expect(refused.statusCode).toBe(400);
    expect((await openOrder()) as unknown).toMatchObject({ number: '1' });
    expect(
      (await call(cashier, 'POST', '/orders?dry_run=maybe', { order_type: 'takeout', items: [] })).statusCode,
    ).toBe(400);
  });

  it('lets only managers void, refuses to edit a voided order, and never voids a completed one', async () => {
    const order = await openOrder();
    expect((await call(cashier, 'POST', `/orders/${order.id}/cancel`)).statusCode).toBe(403);
    const voided = await call(manager, 'POST', `/orders/${order.id}/cancel`);
    expect(voided.statusCode).toBe(200);
    expect(voided.json().data.status).toBe('cancelled');
    const edit = await call(cashier, 'POST', `/orders/${order.id}/items`, {
      items: [{ menu_item_id: fries, quantity: 1 }],
    });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().error.code).toBe('ORDER_NOT_EDITABLE');

    const done = await openOrder();
    await call(cashier, 'POST', `/orders/${done.id}/send`);
    await call(cashier, 'POST', `/orders/${done.id}/items/${done.items[0]?.id}/complete`);
    expect((await call(cashier, 'POST', `/orders/${done.id}/complete`)).statusCode).toBe(200);
    const late = await call(manager, 'POST', `/orders/${done.id}/cancel`);
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe('INVALID_ORDER_STATE');
  });

  it('answers 401 without a token, 400 for a malformed id and 404 for an unknown order', async () => {
    expect((await call(undefined, 'GET', `/orders/${UNKNOWN}`)).statusCode).toBe(401);
    expect((await call(undefined, 'POST', '/orders', { order_type: 'takeout', items: [] })).statusCode).toBe(
      401,
    );
    const malformed = await call(cashier, 'GET', '/orders/not-an-id');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details[0].field).toBe('params.order_id');
    const missing = await call(cashier, 'GET', `/orders/${UNKNOWN}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('ORDER_NOT_FOUND');
    expect((await call(cashier, 'POST', `/orders/${UNKNOWN}/send`)).statusCode).toBe(404);
  });
});
