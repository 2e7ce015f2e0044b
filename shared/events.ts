/**
 * The domain events of spec document 1's subscription-interface catalog. Both sides write them
 * (the appliance in the transaction of the change that caused them) and webhooks, alerting and
 * chat consume them; this list is the one place their names live.
 */
export const EVENT_CATALOG = {
  order: [
    'order.created',
    'order.updated',
    'order.sent',
    'order.ready',
    'order.completed',
    'order.cancelled',
  ],
  payment: ['payment.processed', 'payment.failed', 'payment.refunded', 'payment.voided'],
  inventory: ['inventory.low_stock', 'inventory.out_of_stock', 'inventory.updated'],
  menu: ['menu.item_updated', 'menu.item_availability', 'menu.price_changed'],
  location: ['location.hours_changed', 'location.status_changed'],
} as const;

export type EventCategory = keyof typeof EVENT_CATALOG;
export type EventType = (typeof EVENT_CATALOG)[EventCategory][number];

export const EVENT_TYPES: readonly EventType[] = Object.values(EVENT_CATALOG).flat();

export const isEventType = (value: string): value is EventType =>
  (EVENT_TYPES as readonly string[]).includes(value);

/** Money is kept in minor units; the spec's event shapes carry decimal currency units. */
export const toDecimal = (minor: number, exponent = 2): number =>
  Number((minor / 10 ** exponent).toFixed(exponent));
