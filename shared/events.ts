/**
 * The domain events of the webhook subscription interface's catalog, plus the few the store
 * writes that only the admin interface publishes. Both sides write them (the appliance in the
 * transaction of the change that caused them) and webhooks, alerting and chat consume them; these
 * lists are the one place their names live.
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

/**
 * Events of the store that neither webhook catalog lists, yet that sync to the cloud like any
 * domain event. Time punches: the admin interface publishes them, the subscription interface has
 * no such events. A device's temperature alert: its data is the alerting API's device form of an
 * incident (`type: 'temperature_alert'`, `device_id`, `location_id`, `severity`, `description`),
 * which the cloud's alerting (issue 10) opens an incident from. The camera pipeline's: an order
 * checked at the pickup window (`verified`, `missing_items`, `extra_items`: the kiosk and the KDS
 * raise a mismatch), and a camera's figures crossing a threshold (`metric`, `severity`, `state`
 * raised or cleared).
 */
export const STORE_ONLY_EVENTS = [
  'employee.clocked_in',
  'employee.clocked_out',
  'device.temperature_alert',
  'vision.order_verified',
  'vision.alert',
] as const;

export type EventCategory = keyof typeof EVENT_CATALOG;
export type SubscriptionEventType = (typeof EVENT_CATALOG)[EventCategory][number];
export type StoreOnlyEventType = (typeof STORE_ONLY_EVENTS)[number];
/** Every domain event: what the store emits and syncs up, and what the cloud's event log holds. */
export type EventType = SubscriptionEventType | StoreOnlyEventType;

export const SUBSCRIPTION_EVENT_TYPES: readonly SubscriptionEventType[] = Object.values(EVENT_CATALOG).flat();
export const EVENT_TYPES: readonly EventType[] = [...SUBSCRIPTION_EVENT_TYPES, ...STORE_ONLY_EVENTS];

export const isEventType = (value: string): value is EventType =>
  (EVENT_TYPES as readonly string[]).includes(value);

export const isSubscriptionEventType = (value: string): value is SubscriptionEventType =>
  (SUBSCRIPTION_EVENT_TYPES as readonly string[]).includes(value);

/** Money is kept in minor units; the documented event shapes carry decimal currency units. */
export const toDecimal = (minor: number, exponent = 2): number =>
  Number((minor / 10 ** exponent).toFixed(exponent));
