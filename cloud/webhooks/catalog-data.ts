/**
 * What each catalog says of its events: descriptions and payload examples, the documentation
 * integrators read at GET /api/v1/webhooks/events.
 */
import { EVENT_CATALOG, type SubscriptionEventType } from '../../shared/events.ts';

export interface CatalogEvent {
  name: string;
  description: string;
  payload_example?: Record<string, unknown>;
}

export interface CatalogCategory {
  category: string;
  events: CatalogEvent[];
}

// Example values, consistent across events so one order can be followed through the catalog.
const LOCATION_ID = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';
const ORDER_ID = '0192f3b0-1c2d-7e3f-8a4b-5c6d7e8f9a01';
const PAYMENT_ID = '0192f3b8-2d3e-7f4a-9b5c-6d7e8f9a0b12';
const STOCK_ITEM_ID = '0192e1c4-7a8b-7c9d-8e0f-1a2b3c4d5e6f';
const MENU_ITEM_ID = '0192e1a0-3f4e-7d5c-9b6a-7f8e9d0c1b2a';

const ORDER_ITEMS = [
  {
    id: '0192f3b0-1c2e-7a01-8b02-0c03d04e05f6',
    menu_item_id: MENU_ITEM_ID,
    name: 'Margherita Pizza',
    quantity: 2,
    unit_price: 12.5,
    total: 25,
  },
  {
    id: '0192f3b0-1c2e-7a01-8b02-0c03d04e05f7',
    menu_item_id: '0192e1a0-3f4e-7d5c-9b6a-7f8e9d0c1b2b',
    name: 'House Salad',
    quantity: 1,
    unit_price: 8.75,
    total: 8.75,
  },
];

const orderExample = (status: string) => ({
  id: ORDER_ID,
  number: '42',
  order_type: 'dine_in',
  status,
  items: ORDER_ITEMS,
  subtotal: 33.75,
  tax: 2.7,
  total: 36.45,
  created_at: '2026-11-03T18:42:10.000Z',
});

const adminOrderExample = (status: string) => ({
  order_id: ORDER_ID,
  order_number: '42',
  location_id: LOCATION_ID,
  total: 36.45,
  items: ORDER_ITEMS,
  status,
});

const PAYMENT_EXAMPLE = {
  id: PAYMENT_ID,
  order_id: ORDER_ID,
  method: 'card',
  amount: 36.45,
  tip: 7,
  total: 43.45,
  card: { brand: 'visa', last4: '4242' },
  transaction_id: 'txn_3QxR7bLk9Ft42aZp',
};

const stockExample = (currentQuantity: number) => ({
  id: '0192f3c2-4e5f-7a6b-8c7d-9e0f1a2b3c4d',
  item_id: STOCK_ITEM_ID,
  name: 'Mozzarella',
  current_quantity: currentQuantity,
  unit: 'kg',
  reorder_level: 2,
  reorder_quantity: 10,
});

const MENU_ITEM_EXAMPLE = {
  id: MENU_ITEM_ID,
  category_id: '0192e19c-8a7b-7c6d-9e5f-4a3b2c1d0e9f',
  name: 'Margherita Pizza',
  description: 'San Marzano tomato, fior di latte, basil',
  price: 12.5,
  available: true,
  version: 4,
  updated_at: '2026-11-03T09:15:00.000Z',
};

const weekOf = (closes: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
      day,
      day === 'monday' ? [] : [{ opens: '11:30', closes }],
    ]),
  );

const PUNCH_EXAMPLE = {
  punch_id: '0192f3a0-0a1b-7c2d-8e3f-4a5b6c7d8e9f',
  employee_id: '0192d0f1-2a3b-7c4d-9e5f-6a7b8c9d0e1f',
  at: '2026-11-03T16:58:04.000Z',
};

/** Keyed by the domain names, so a name added to shared/events.ts must be documented here. */
const SUBSCRIPTION_DOCS: Record<SubscriptionEventType, Omit<CatalogEvent, 'name'>> = {
  'order.created': {
    description: 'An order was opened at a location.',
    payload_example: {
      ...orderExample('open'),
      table: '12',
      server: { id: '0192d0f1-2a3b-7c4d-9e5f-6a7b8c9d0e20', name: 'Maria Lopez' },
    },
  },
  'order.updated': {
    description: 'An order changed: items added, changed or removed, or items started in the kitchen.',
    payload_example: orderExample('open'),
  },
  'order.sent': {
    description: 'An order was sent to the kitchen display.',
    payload_example: orderExample('sent'),
  },
  'order.ready': {
    description: 'All items of an order are complete.',
    payload_example: orderExample('ready'),
  },
  'order.completed': {
    description: 'An order was closed.',
    payload_example: orderExample('completed'),
  },
  'order.cancelled': {
    description: 'An order was voided.',
    payload_example: orderExample('cancelled'),
  },
  'payment.processed': {
    description: 'A payment for an order was approved (captured, or authorized for capture later).',
    payload_example: PAYMENT_EXAMPLE,
  },
  'payment.failed': {
    description: 'A payment for an order was declined.',
    payload_example: { ...PAYMENT_EXAMPLE, tip: 0, total: 36.45, reason: 'insufficient_funds' },
  },
  'payment.refunded': {
    description: 'Part or all of a captured payment was given back.',
    payload_example: { ...PAYMENT_EXAMPLE, refund_amount: 12.5 },
  },
  'payment.voided': {
    description: 'A payment was voided before capture.',
    payload_example: PAYMENT_EXAMPLE,
  },
  'inventory.low_stock': {
    description: 'A stock item’s quantity fell below its reorder level.',
    payload_example: stockExample(1.8),
  },
  'inventory.out_of_stock': {
    description: 'A stock item’s quantity reached 0.',
    payload_example: stockExample(0),
  },
  'inventory.updated': {
    description: 'A stock item’s quantity changed through a sale, a restock or a count.',
    payload_example: { ...stockExample(11.8), change: 10, reason: 'restock' },
  },
  'menu.item_updated': {
    description: 'A menu item was added, or its name, description or category changed.',
    payload_example: { ...MENU_ITEM_EXAMPLE, created: false, changed: ['description'] },
  },
  'menu.item_availability': {
    description: 'A menu item became available or unavailable for ordering.',
    payload_example: { ...MENU_ITEM_EXAMPLE, available: false, version: 5 },
  },
  'menu.price_changed': {
    description: 'A menu item’s price changed.',
    payload_example: { ...MENU_ITEM_EXAMPLE, price: 13.5, version: 5, old_price: 12.5, new_price: 13.5 },
  },
  'location.hours_changed': {
    description: 'A location’s weekly opening hours changed.',
    payload_example: {
      location_id: LOCATION_ID,
      hours: weekOf('23:00'),
      previous_hours: weekOf('22:00'),
      version: 7,
      updated_at: '2026-11-02T08:00:00.000Z',
    },
  },
  'location.status_changed': {
    description: 'A location opened, closed, or closed temporarily.',
    payload_example: {
      location_id: LOCATION_ID,
      status: 'temporarily_closed',
      previous_status: 'open',
      version: 8,
      updated_at: '2026-11-03T15:20:00.000Z',
    },
  },
};

export const SUBSCRIPTION_CATALOG: readonly CatalogCategory[] = Object.entries(EVENT_CATALOG).map(
  ([category, names]) => ({
    category,
    events: names.map((name: SubscriptionEventType) => ({ name, ...SUBSCRIPTION_DOCS[name] })),
  }),
);

// Customer, reservation and loyalty events have no source in the platform yet and the API shows
// no data for them, so they carry no example: an invented one would read as a promise.
const USER_ID = '0193e0a4-3b0c-7d0e-892e-2a0c0b580944';

const ROLLOUT_EXAMPLE = {
  rollout_id: '0193e0a4-5a0e-7f00-8b30-4a0e0d7a2b66',
  release_id: '0193e0a4-490d-7e0f-8a2f-390d0c691a55',
  version: '1.4.0',
};

export const ADMIN_CATALOG: readonly CatalogCategory[] = [
  {
    category: 'order',
    events: [
      {
        name: 'order.created',
        description: 'An order was opened at a location.',
        payload_example: adminOrderExample('open'),
      },
      {
        name: 'order.updated',
        description: 'An order changed, was sent to the kitchen or became ready; `status` says where it is.',
        payload_example: adminOrderExample('sent'),
      },
      {
        name: 'order.completed',
        description: 'An order was closed.',
        payload_example: adminOrderExample('completed'),
      },
      {
        name: 'order.cancelled',
        description: 'An order was voided.',
        payload_example: adminOrderExample('cancelled'),
      },
    ],
  },
  {
    category: 'payment',
    events: [
      {
        name: 'payment.received',
        description: 'A payment for an order was approved.',
        payload_example: { ...PAYMENT_EXAMPLE, location_id: LOCATION_ID },
      },
      {
        name: 'payment.failed',
        description: 'A payment for an order was declined.',
        payload_example: { ...SUBSCRIPTION_DOCS['payment.failed'].payload_example, location_id: LOCATION_ID },
      },
      {
        name: 'payment.refunded',
        description: 'Part or all of a captured payment was given back.',
        payload_example: { ...PAYMENT_EXAMPLE, refund_amount: 12.5, location_id: LOCATION_ID },
      },
    ],
  },
  {
    category: 'inventory',
    events: [
      {
        name: 'inventory.low_stock',
        description: 'A stock item’s quantity fell below its reorder level.',
        payload_example: { ...stockExample(1.8), location_id: LOCATION_ID },
      },
      {
        name: 'inventory.out_of_stock',
        description: 'A stock item’s quantity reached 0.',
        payload_example: { ...stockExample(0), location_id: LOCATION_ID },
      },
      {
        name: 'inventory.restocked',
        description: 'A delivery of a stock item was booked in.',
        payload_example: { ...stockExample(11.8), change: 10, reason: 'restock', location_id: LOCATION_ID },
      },
    ],
  },
  {
    category: 'customer',
    events: [
      { name: 'customer.created', description: 'A customer record was created.' },
      { name: 'customer.updated', description: 'A customer record changed.' },
    ],
  },
  {
    category: 'reservation',
    events: [
      { name: 'reservation.created', description: 'A reservation was made.' },
      { name: 'reservation.confirmed', description: 'A reservation was confirmed.' },
      { name: 'reservation.cancelled', description: 'A reservation was cancelled.' },
      { name: 'reservation.no_show', description: 'The party of a reservation did not arrive.' },
    ],
  },
  {
    category: 'employee',
    events: [
      {
        name: 'employee.clocked_in',
        description: 'An employee clocked in at a location.',
        payload_example: { ...PUNCH_EXAMPLE, location_id: LOCATION_ID },
      },
      {
        name: 'employee.clocked_out',
        description: 'An employee clocked out at a location.',
        payload_example: { ...PUNCH_EXAMPLE, at: '2026-11-04T01:03:47.000Z', location_id: LOCATION_ID },
      },
    ],
  },
  {
    category: 'loyalty',
    events: [
      { name: 'loyalty.points_earned', description: 'A customer earned loyalty points.' },
      { name: 'loyalty.points_redeemed', description: 'A customer redeemed loyalty points.' },
      { name: 'loyalty.tier_changed', description: 'A customer moved to another loyalty tier.' },
    ],
  },
  // Beyond the spec's table: the fleet's own software rollouts (issue 25), for its admins.
  {
    category: 'rollout',
    events: [
      {
        name: 'rollout.started',
        description: 'A release began rolling out to the targeted stores, in waves.',
        payload_example: { ...ROLLOUT_EXAMPLE, stores: 3, wave_sizes: [1, 2], created_by: USER_ID },
      },
      {
        name: 'rollout.wave_started',
        description: 'The next wave of a rollout began.',
        payload_example: { ...ROLLOUT_EXAMPLE, wave: 2, stores: 2 },
      },
      {
        name: 'rollout.store_updated',
        description:
          'A store of a rollout reached a final state: healthy on the new version, rolled back (with why), failed, excluded or cancelled.',
        payload_example: {
          ...ROLLOUT_EXAMPLE,
          location_id: LOCATION_ID,
          device_id: '0193e0a4-7c2f-7a11-9d41-5b1f0e8a3c77',
          wave: 2,
          state: 'rolled_back',
          reason: 'the database is at migration 31, newer than this version’s 30',
          from_version: '1.3.2',
          to_version: '1.4.0',
          attempts: 1,
        },
      },
      {
        name: 'rollout.halted',
        description:
          'A rollout stopped itself because a wave’s failures passed its threshold, and raised an alert.',
        payload_example: {
          ...ROLLOUT_EXAMPLE,
          wave: 2,
          reason: '1 of 2 stores failed or rolled back (threshold 20%)',
          failed: 0,
          rolled_back: 1,
          wave_stores: 2,
          failure_share: 0.5,
          alert_id: '0193e0a4-8d30-7b22-8e52-6c2f1f9b4d88',
        },
      },
      {
        name: 'rollout.paused',
        description: 'An admin paused a rollout.',
        payload_example: { ...ROLLOUT_EXAMPLE, wave: 2, by: USER_ID },
      },
      {
        name: 'rollout.resumed',
        description: 'An admin resumed a paused or halted rollout.',
        payload_example: { ...ROLLOUT_EXAMPLE, wave: 2, by: USER_ID, from: 'halted' },
      },
      {
        name: 'rollout.completed',
        description: 'Every store of a rollout reached a final state.',
        payload_example: {
          ...ROLLOUT_EXAMPLE,
          counts: { healthy: 2, failed: 0, rolled_back: 0, excluded: 1, cancelled: 0 },
        },
      },
      {
        name: 'rollout.aborted',
        description: 'An admin aborted a rollout; updates not yet done were cancelled.',
        payload_example: { ...ROLLOUT_EXAMPLE, wave: 1, by: USER_ID, cancelled_stores: 2 },
      },
    ],
  },
];
