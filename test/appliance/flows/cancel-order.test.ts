import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestAppliance, type TestAppliance } from '../../support/appliance.ts';

describe('voiding an order at the store', () => {
  let t: TestAppliance;
  let burger: string;
  let station: string;

  beforeEach(async () => {
    t = await createTestAppliance();
    const mains = t.services.menu.createCategory({ name: 'Mains' });
    burger = t.services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
    station = t.services.kitchen.createStation({ name: 'Grill' }).id;
    t.services.kitchen.routeItem(burger, station);
  });
  afterEach(() => t.close());

  async function sentOrder() {
    const created = await t.services.orders.create({
      order_type: 'dine_in',
      items: [{ menu_item_id: burger, quantity: 1 }],
    });
    return t.services.sendOrder(created.id);
  }
  const board = async () => {
    const response = await t.call(t.cashier, 'GET', `/kds/stations/${station}/tickets`);
    expect(response.statusCode).toBe(200);
    return response.json().data as Array<{ order_id: string }>;
  };

  it('takes its tickets off the kitchen’s screens, telling the screens that listen', async () => {
    const order = await sentOrder();
    const other = await sentOrder();
    expect(await board()).toHaveLength(2);
    t.db.exec('delete from events');

    const voided = await t.call(t.manager, 'POST', `/orders/${order.id}/cancel`);
    expect(voided.statusCode).toBe(200);
    expect(voided.json().data.status).toBe('cancelled');

    expect((await board()).map((ticket) => ticket.order_id)).toEqual([other.id]);
    expect(t.events().map((e) => [e.type, e.data.order_id ?? e.data.id, e.data.status])).toEqual([
      ['order.cancelled', order.id, 'cancelled'],
      ['kds.ticket_updated', order.id, 'done'],
    ]);
  });

  it('leaves the tickets on the screens when the void is refused', async () => {
    const order = await sentOrder();
    t.services.orders.completeItem(order.id, order.items[0]!.id);
    t.services.completeOrder(order.id);
    const ticket = t.services.kitchen.board(station)[0];
    expect(ticket?.status).toBe('open');

    const late = await t.call(t.manager, 'POST', `/orders/${order.id}/cancel`);
    expect(late.statusCode).toBe(409);
    expect(await board()).toHaveLength(1);
  });
});
