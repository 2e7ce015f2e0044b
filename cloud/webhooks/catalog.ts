/**
 * The event catalogs of the two webhook interfaces, which patterns a subscription
 * may list, and how a domain event is published on each. The subscription interface publishes the
 * domain events as the store wrote them; the admin interface has its own names and order data,
 * and no menu or location events.
 */
import { type EventType, isEventType, ROLLOUT_EVENTS } from '../../shared/events.ts';
import { ADMIN_CATALOG, type CatalogCategory, SUBSCRIPTION_CATALOG } from './catalog-data.ts';

export type { CatalogCategory, CatalogEvent } from './catalog-data.ts';

export type WebhookInterface = 'subscription' | 'admin';

export interface DomainEvent {
  type: string;
  data: Record<string, unknown>;
  location_id: string | null;
}

export interface PublishedEvent {
  name: string;
  data: Record<string, unknown>;
}

export const CATALOGS: Record<WebhookInterface, readonly CatalogCategory[]> = {
  subscription: SUBSCRIPTION_CATALOG,
  admin: ADMIN_CATALOG,
};

const namesOf = (catalog: readonly CatalogCategory[]) =>
  new Set(catalog.flatMap((category) => category.events.map((event) => event.name)));

const NAMES: Record<WebhookInterface, ReadonlySet<string>> = {
  subscription: namesOf(SUBSCRIPTION_CATALOG),
  admin: namesOf(ADMIN_CATALOG),
};

const CATEGORIES: Record<WebhookInterface, ReadonlySet<string>> = {
  subscription: new Set(SUBSCRIPTION_CATALOG.map((c) => c.category)),
  admin: new Set(ADMIN_CATALOG.map((c) => c.category)),
};

function isValidPattern(iface: WebhookInterface, pattern: string) {
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return NAMES[iface].has(pattern);
  const category = pattern.slice(0, -'.*'.length);
  return pattern.endsWith('.*') && !category.includes('*') && CATEGORIES[iface].has(category);
}

/** The patterns a subscription may not list: unknown names, or wildcards that are not `<category>.*` of that interface (or `*`). */
export const invalidEventPatterns = (iface: WebhookInterface, patterns: readonly string[]): string[] =>
  patterns.filter((pattern) => !isValidPattern(iface, pattern));

/** Exact names, `<category>.*` and `*`; any other pattern matches only itself. */
export const matchesAny = (patterns: readonly string[], eventName: string): boolean =>
  patterns.some(
    (pattern) =>
      pattern === '*' ||
      pattern === eventName ||
      (pattern.endsWith('.*') && eventName.startsWith(pattern.slice(0, -1))),
  );

type Publish = (event: DomainEvent) => PublishedEvent | undefined;

const withLocation =
  (name: string): Publish =>
  (event) => ({ name, data: { ...event.data, location_id: event.location_id } });

// The admin interface has no `sent` or `ready` events: those reach it as updates whose
// `status` tells them apart.
const adminOrder =
  (name: string): Publish =>
  ({ data, location_id }) => ({
    name,
    data: {
      order_id: data.id,
      order_number: data.number,
      location_id,
      total: data.total,
      items: data.items,
      status: data.status,
    },
  });

/**
 * Movement kinds are `sale`, `restock` and `count`: only a restock is stock arriving; a count that
 * raises the quantity corrects the books, and a sale takes stock away.
 */
const RESTOCK_REASONS: ReadonlySet<unknown> = new Set(['restock']);

/**
 * Domain events the admin interface publishes, and as what. Absent on purpose: `payment.voided`
 * (releasing an authorization moves no money, so it is neither a refund nor a failure, and the
 * admin catalog has no void), and every `menu.*` and `location.*` event (no such categories).
 */
const ADMIN_PUBLISHING: Partial<Record<EventType, Publish>> = {
  'order.created': adminOrder('order.created'),
  'order.updated': adminOrder('order.updated'),
  'order.sent': adminOrder('order.updated'),
  'order.ready': adminOrder('order.updated'),
  'order.completed': adminOrder('order.completed'),
  'order.cancelled': adminOrder('order.cancelled'),
  'payment.processed': withLocation('payment.received'),
  'payment.failed': withLocation('payment.failed'),
  'payment.refunded': withLocation('payment.refunded'),
  'inventory.low_stock': withLocation('inventory.low_stock'),
  'inventory.out_of_stock': withLocation('inventory.out_of_stock'),
  'inventory.updated': (event) =>
    RESTOCK_REASONS.has(event.data.reason) ? withLocation('inventory.restocked')(event) : undefined,
  'employee.clocked_in': withLocation('employee.clocked_in'),
  'employee.clocked_out': withLocation('employee.clocked_out'),
};

/** A domain event as the interface publishes it, or undefined when the interface has no such event. */
export function publishedEvent(iface: WebhookInterface, event: DomainEvent): PublishedEvent | undefined {
  if (iface === 'subscription')
    return NAMES.subscription.has(event.type) ? { name: event.type, data: event.data } : undefined;
  if (ROLLOUT_NAMES.has(event.type)) return { name: event.type, data: event.data };
  return isEventType(event.type) ? ADMIN_PUBLISHING[event.type]?.(event) : undefined;
}

/** A fleet's software rollouts: the admin interface is the fleet admins' own, and carries them as written. */
const ROLLOUT_NAMES: ReadonlySet<string> = new Set(ROLLOUT_EVENTS);
