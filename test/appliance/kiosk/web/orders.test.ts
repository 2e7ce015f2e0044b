import { describe, expect, it } from 'vitest';
import {
  applyOrderEvent,
  applyTicket,
  type Order,
  orderCard,
  orderCards,
  pruneTickets,
  type Ticket,
} from '../../../../appliance/kiosk/web/src/lib/orders.ts';

const makeOrder = (overrides: Partial<Order> = {}): Order => ({
  id: 'o-1',
  number: '12',
  order_type: 'dine_in',
  status: 'sent',
  table: '4',
  items: [
    { id: 'i-1', name: 'Burger', quantity: 1, status: 'sent' },
    { id: 'i-2', name: 'Fries', quantity: 2, status: 'pending' },
  ],
  total: 14.5,
  created_at: '2025-05-01T12:00:00.000Z',
  ...overrides,
});

const makeTicket = (overrides: Partial<Ticket> = {}): Ticket => ({
  id: 't-1',
  order_id: 'o-1',
  station_id: 's-1',
  priority: 'normal',
  status: 'open',
  created_at: '2025-05-01T12:01:00.000Z',
  version: 1,
  items: [{ order_item_id: 'i-1', name: 'Burger', quantity: 1, status: 'pending' }],
  ...overrides,
});

describe('open orders from the feed', () => {
  it('adds an order from its event and keeps item statuses the event does not carry', () => {
    const orders = { 'o-1': makeOrder() };
    const event = { ...makeOrder({ status: 'ready' }), items: [{ id: 'i-1', name: 'Burger', quantity: 1 }] };
    const next = applyOrderEvent(orders, event);
    expect(next['o-1']?.status).toBe('ready');
    expect(next['o-1']?.items).toEqual([{ id: 'i-1', name: 'Burger', quantity: 1, status: 'sent' }]);
    expect(next['o-1']?.table).toBe('4');
  });

  it('drops completed and cancelled orders', () => {
    const orders = { 'o-1': makeOrder() };
    expect(applyOrderEvent(orders, makeOrder({ status: 'completed' }))).toEqual({});
    expect(applyOrderEvent(orders, makeOrder({ status: 'cancelled' }))).toEqual({});
    expect(applyOrderEvent({}, makeOrder({ status: 'completed' }))).toEqual({});
  });

  it('ignores data that is not an order', () => {
    const orders = { 'o-1': makeOrder() };
    expect(applyOrderEvent(orders, null)).toBe(orders);
    expect(applyOrderEvent(orders, { id: 5 })).toBe(orders);
  });

  it('keeps the newest version of a ticket', () => {
    const newer = makeTicket({ version: 3 });
    expect(applyTicket({ 't-1': newer }, makeTicket({ version: 2 }))['t-1']).toBe(newer);
    expect(applyTicket({ 't-1': makeTicket() }, newer)['t-1']).toBe(newer);
  });

  it('prunes the tickets of orders that left', () => {
    expect(
      pruneTickets(
        { 't-1': makeTicket(), 't-2': makeTicket({ id: 't-2', order_id: 'gone' }) },
        { 'o-1': makeOrder() },
      ),
    ).toEqual({
      't-1': makeTicket(),
    });
  });
});

describe('an order card', () => {
  it('takes the kitchen’s word on items, and the order’s where no ticket has them', () => {
    const card = orderCard(makeOrder(), [makeTicket()]);
    expect(card.items.map((i) => i.state)).toEqual(['cooking', 'new']);
    const done = orderCard(makeOrder(), [
      makeTicket({
        status: 'done',
        items: [{ order_item_id: 'i-1', name: 'Burger', quantity: 1, status: 'done' }],
      }),
    ]);
    expect(done.items[0]?.state).toBe('done');
  });

  it('runs its clock from the oldest open ticket, else from the order', () => {
    expect(orderCard(makeOrder(), [makeTicket()]).since).toBe('2025-05-01T12:01:00.000Z');
    expect(orderCard(makeOrder(), [makeTicket({ status: 'done' })]).since).toBe('2025-05-01T12:00:00.000Z');
  });

  it('is a rush when an open ticket is', () => {
    expect(orderCard(makeOrder(), [makeTicket({ priority: 'rush' })]).rush).toBe(true);
    expect(orderCard(makeOrder(), [makeTicket({ priority: 'rush', status: 'done' })]).rush).toBe(false);
  });

  it('lists the longest-waiting order first', () => {
    const cards = orderCards(
      {
        'o-1': makeOrder(),
        'o-2': makeOrder({ id: 'o-2', number: '13', created_at: '2025-05-01T11:50:00.000Z' }),
      },
      {},
    );
    expect(cards.map((c) => c.order.number)).toEqual(['13', '12']);
  });
});
