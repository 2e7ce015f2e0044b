import { describe, expect, it } from 'vitest';
import {
  CATALOGS,
  invalidEventPatterns,
  matchesAny,
  publishedEvent,
  type WebhookInterface,
} from '../../../cloud/webhooks/catalog.ts';
import {
  EVENT_CATALOG,
  EVENT_TYPES,
  isEventType,
  isSubscriptionEventType,
  ROLLOUT_EVENTS,
  STORE_ONLY_EVENTS,
} from '../../../shared/events.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';

const namesByCategory = (iface: WebhookInterface) =>
  CATALOGS[iface].map(({ category, events }) => [category, events.map((e) => e.name)]);

const makeOrderData = (overrides: Record<string, unknown> = {}) => ({
  id: 'order-1',
  number: '17',
  order_type: 'dine_in',
  status: 'open',
  items: [{ id: 'line-1', menu_item_id: 'm1', name: 'Soup', quantity: 1, unit_price: 6.5, total: 6.5 }],
  subtotal: 6.5,
  tax: 0.52,
  total: 7.02,
  created_at: '2026-06-10T13:00:00.000Z',
  ...overrides,
});

const stockData = {
  id: 'move-1',
  item_id: 'stock-1',
  name: 'Flour',
  current_quantity: 12,
  unit: 'kg',
  reorder_level: 5,
  reorder_quantity: 20,
};

describe('webhook event catalogs', () => {
  it('lists the subscription interface’s table of the spec, in its order', () => {
    expect(namesByCategory('subscription')).toEqual([
      [
        'order',
        ['order.created', 'order.updated', 'order.sent', 'order.ready', 'order.completed', 'order.cancelled'],
      ],
      ['payment', ['payment.processed', 'payment.failed', 'payment.refunded', 'payment.voided']],
      ['inventory', ['inventory.low_stock', 'inventory.out_of_stock', 'inventory.updated']],
      ['menu', ['menu.item_updated', 'menu.item_availability', 'menu.price_changed']],
      ['location', ['location.hours_changed', 'location.status_changed']],
    ]);
    expect(Object.fromEntries(namesByCategory('subscription'))).toEqual(EVENT_CATALOG);
  });

  it('lists the admin interface’s table of the spec, in its order, then the fleet’s rollouts', () => {
    expect(namesByCategory('admin')).toEqual([
      ['order', ['order.created', 'order.updated', 'order.completed', 'order.cancelled']],
      ['payment', ['payment.received', 'payment.failed', 'payment.refunded']],
      ['inventory', ['inventory.low_stock', 'inventory.out_of_stock', 'inventory.restocked']],
      ['customer', ['customer.created', 'customer.updated']],
      [
        'reservation',
        ['reservation.created', 'reservation.confirmed', 'reservation.cancelled', 'reservation.no_show'],
      ],
      ['employee', ['employee.clocked_in', 'employee.clocked_out']],
      ['loyalty', ['loyalty.points_earned', 'loyalty.points_redeemed', 'loyalty.tier_changed']],
      ['rollout', [...ROLLOUT_EVENTS]],
    ]);
  });

  it('describes every event in one sentence and shows every subscription payload', () => {
    for (const iface of ['subscription', 'admin'] as const) {
      for (const event of CATALOGS[iface].flatMap((c) => c.events)) {
        expect(event.description, event.name).toMatch(/^[A-Z].*\.$/);
        expect(event.description.split('. ')).toHaveLength(1);
      }
    }
    for (const event of CATALOGS.subscription.flatMap((c) => c.events))
      expect(event.payload_example, event.name).toBeDefined();
    const order = CATALOGS.subscription[0]!.events;
    expect(order.find((e) => e.name === 'order.sent')?.description).toMatch(/kitchen display/);
    expect(Object.keys(order[0]!.payload_example!)).toEqual([
      ...Object.keys(makeOrderData()),
      'table',
      'server',
    ]);
  });

  it('shows admin payloads as the admin interface publishes them', () => {
    const admin = new Map(CATALOGS.admin.flatMap((c) => c.events).map((e) => [e.name, e]));
    const subscription = new Map(CATALOGS.subscription.flatMap((c) => c.events).map((e) => [e.name, e]));
    const pairs = [
      ['order.created', 'order.created'],
      ['order.sent', 'order.updated'],
      ['payment.processed', 'payment.received'],
      ['payment.refunded', 'payment.refunded'],
      ['inventory.low_stock', 'inventory.low_stock'],
    ] as const;
    for (const [domain, name] of pairs) {
      const example = subscription.get(domain)!.payload_example!;
      const published = publishedEvent('admin', { type: domain, data: example, location_id: 'loc' });
      expect(Object.keys(admin.get(name)!.payload_example!), name).toEqual(Object.keys(published!.data));
    }
  });
});

describe('subscription event patterns', () => {
  it('accepts the interface’s names, its categories’ wildcards and `*`', () => {
    expect(
      invalidEventPatterns('subscription', ['order.sent', 'payment.processed', 'menu.*', 'location.*', '*']),
    ).toEqual([]);
    expect(
      invalidEventPatterns('admin', ['payment.received', 'reservation.*', 'employee.clocked_in', '*']),
    ).toEqual([]);
    expect(invalidEventPatterns('admin', [])).toEqual([]);
  });

  it('refuses the other interface’s names, unknown names and other wildcards', () => {
    expect(
      invalidEventPatterns('subscription', [
        'order.created',
        'payment.received',
        'employee.clocked_in',
        'employee.*',
        'Order.created',
        'order',
        '',
      ]),
    ).toEqual(['payment.received', 'employee.clocked_in', 'employee.*', 'Order.created', 'order', '']);
    expect(
      invalidEventPatterns('admin', [
        'payment.processed',
        'order.sent',
        'menu.*',
        'ord*',
        '*.created',
        'order.*.x',
        'order.**',
        '**',
        '.*',
        'order*',
      ]),
    ).toEqual([
      'payment.processed',
      'order.sent',
      'menu.*',
      'ord*',
      '*.created',
      'order.*.x',
      'order.**',
      '**',
      '.*',
      'order*',
    ]);
  });

  it('matches exact names, trailing wildcards and `*`', () => {
    expect(matchesAny(['order.created'], 'order.created')).toBe(true);
    expect(matchesAny(['order.created'], 'order.updated')).toBe(false);
    expect(matchesAny(['payment.*'], 'payment.received')).toBe(true);
    expect(matchesAny(['payment.*'], 'paymentx.received')).toBe(false);
    expect(matchesAny(['order.*'], 'order')).toBe(false);
    expect(matchesAny(['*'], 'loyalty.tier_changed')).toBe(true);
    expect(matchesAny([], 'order.created')).toBe(false);
    expect(matchesAny(['Order.*'], 'order.created')).toBe(false);
    expect(matchesAny(['inventory.low_stock', 'order.*'], 'order.ready')).toBe(true);
  });
});

describe('publishing a domain event', () => {
  const event = (type: string, data: Record<string, unknown>) => ({ type, data, location_id: LOCATION });

  it('publishes catalog events on the subscription interface exactly as the store wrote them', () => {
    const data = makeOrderData({ table: '4' });
    expect(publishedEvent('subscription', event('order.created', data))).toEqual({
      name: 'order.created',
      data,
    });
    expect(publishedEvent('subscription', event('payment.voided', { id: 'p1' }))).toEqual({
      name: 'payment.voided',
      data: { id: 'p1' },
    });
    for (const type of [...STORE_ONLY_EVENTS, 'kds.ticket_opened', 'payment.received'])
      expect(publishedEvent('subscription', event(type, {})), type).toBeUndefined();
  });

  it('gives the admin interface its order data, with sent and ready as updates', () => {
    const expected = (status: string) => ({
      order_id: 'order-1',
      order_number: '17',
      location_id: LOCATION,
      total: 7.02,
      items: makeOrderData().items,
      status,
    });
    expect(publishedEvent('admin', event('order.created', makeOrderData({ table: '4' })))).toEqual({
      name: 'order.created',
      data: expected('open'),
    });
    for (const status of ['sent', 'ready'])
      expect(publishedEvent('admin', event(`order.${status}`, makeOrderData({ status })))).toEqual({
        name: 'order.updated',
        data: expected(status),
      });
    expect(publishedEvent('admin', event('order.cancelled', makeOrderData({ status: 'cancelled' })))).toEqual(
      { name: 'order.cancelled', data: expected('cancelled') },
    );
  });

  it('renames payments and adds the location to payment, stock and punch data', () => {
    const payment = { id: 'p1', order_id: 'order-1', method: 'cash', amount: 7.02, tip: 0, total: 7.02 };
    expect(publishedEvent('admin', event('payment.processed', payment))).toEqual({
      name: 'payment.received',
      data: { ...payment, location_id: LOCATION },
    });
    expect(publishedEvent('admin', event('payment.failed', { ...payment, reason: 'declined' }))).toEqual({
      name: 'payment.failed',
      data: { ...payment, reason: 'declined', location_id: LOCATION },
    });
    expect(publishedEvent('admin', event('payment.voided', payment))).toBeUndefined();
    expect(publishedEvent('admin', event('inventory.out_of_stock', stockData))).toEqual({
      name: 'inventory.out_of_stock',
      data: { ...stockData, location_id: LOCATION },
    });
    const punch = { punch_id: 'punch-1', employee_id: 'ann', at: '2026-06-10T13:00:00.000Z' };
    expect(publishedEvent('admin', { type: 'employee.clocked_out', data: punch, location_id: null })).toEqual(
      { name: 'employee.clocked_out', data: { ...punch, location_id: null } },
    );
  });

  it('publishes a stock movement to the admin interface only when it is a restock', () => {
    const movement = (reason: string, change: number) =>
      event('inventory.updated', { ...stockData, change, reason });
    expect(publishedEvent('admin', movement('restock', 20))).toEqual({
      name: 'inventory.restocked',
      data: { ...stockData, change: 20, reason: 'restock', location_id: LOCATION },
    });
    expect(publishedEvent('admin', movement('count', 3))).toBeUndefined();
    expect(publishedEvent('admin', movement('sale', -1))).toBeUndefined();
  });

  it('publishes no menu, location, kitchen or unknown events to the admin interface', () => {
    for (const type of [...EVENT_CATALOG.menu, ...EVENT_CATALOG.location, 'kds.ticket_opened', 'nope'])
      expect(publishedEvent('admin', event(type, {})), type).toBeUndefined();
  });

  it('publishes every admin event it maps to under a name of the admin catalog', () => {
    const adminNames = new Set(CATALOGS.admin.flatMap((c) => c.events.map((e) => e.name)));
    const data = { ...makeOrderData(), ...stockData, reason: 'restock' };
    const published = EVENT_TYPES.map((type) => publishedEvent('admin', event(type, data))).filter(
      (p) => p !== undefined,
    );
    expect(published.length).toBeGreaterThan(0);
    for (const p of published) expect(adminNames.has(p.name), p.name).toBe(true);
  });
});

describe('domain event names', () => {
  it('accept the store’s punch events as domain events but not as subscription events', () => {
    for (const type of STORE_ONLY_EVENTS) {
      expect(isEventType(type)).toBe(true);
      expect(isSubscriptionEventType(type)).toBe(false);
    }
    expect(isEventType('order.sent')).toBe(true);
    expect(isSubscriptionEventType('order.sent')).toBe(true);
    expect(isEventType('kds.ticket_opened')).toBe(false);
  });

  it('publishes a fleet’s rollout events on the admin interface as they were written, and not on the subscription one', () => {
    const admin = new Map(CATALOGS.admin.flatMap((c) => c.events).map((e) => [e.name, e]));
    for (const name of ROLLOUT_EVENTS) {
      const example = admin.get(name)!.payload_example!;
      expect(publishedEvent('admin', { type: name, data: example, location_id: null }), name).toEqual({
        name,
        data: example,
      });
      expect(
        publishedEvent('subscription', { type: name, data: example, location_id: null }),
      ).toBeUndefined();
    }
  });
});
