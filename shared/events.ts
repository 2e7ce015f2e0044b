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

/**
 * The cloud's own events of over-the-air rollouts (cloud/releases), written to the event log in
 * the transaction of the change they report, for admin-interface webhooks and the operations
 * console. They are not store events: `isEventType` does not know them, so no store can push one.
 */
export const ROLLOUT_EVENTS = [
  'rollout.started',
  'rollout.wave_started',
  'rollout.store_updated',
  'rollout.halted',
  'rollout.paused',
  'rollout.resumed',
  'rollout.completed',
  'rollout.aborted',
] as const;
export type RolloutEventType = (typeof ROLLOUT_EVENTS)[number];

interface RolloutEventBase {
  rollout_id: string;
  release_id: string;
  /** The version the rollout installs. */
  version: string;
}

/** Who acted: a user id, or null for the engine. */
type Actor = string | null;

/** Each rollout event's data. */
export interface RolloutEventData {
  'rollout.started': RolloutEventBase & { stores: number; wave_sizes: number[]; created_by: Actor };
  'rollout.wave_started': RolloutEventBase & { wave: number; stores: number };
  /** A store reached a final state; the event's location is the store's. */
  'rollout.store_updated': RolloutEventBase & {
    location_id: string;
    device_id: string;
    wave: number;
    state: 'healthy' | 'rolled_back' | 'failed' | 'excluded' | 'cancelled';
    reason: string | null;
    from_version: string | null;
    to_version: string;
    attempts: number;
  };
  'rollout.halted': RolloutEventBase & {
    wave: number;
    reason: string;
    failed: number;
    rolled_back: number;
    /** The wave's stores less those excluded or cancelled: what the failure share is of. */
    wave_stores: number;
    failure_share: number;
    alert_id: string | null;
  };
  'rollout.paused': RolloutEventBase & { wave: number; by: Actor };
  'rollout.resumed': RolloutEventBase & { wave: number; by: Actor; from: 'paused' | 'halted' };
  'rollout.completed': RolloutEventBase & { counts: Record<string, number> };
  'rollout.aborted': RolloutEventBase & { wave: number; by: Actor; cancelled_stores: number };
}
