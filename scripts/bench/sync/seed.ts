/**
 * What stores write while offline, written through the appliance's own services so the outbox holds
 * exactly the rows, versions, stamps and events a store produces: orders with items and payments,
 * time punches with managers' corrections, and for the 72-hour store a whole trading period.
 */
import type { Order } from '../../../appliance/orders/service.ts';
import type { PunchKind } from '../../../appliance/timeclock/service.ts';
import { newId } from '../../../shared/ids.ts';
import type { BenchAppliance } from './appliance.ts';
import { OFFLINE_BASE } from './plan.ts';

type Services = BenchAppliance['services'];

const HOUR_MS = 3_600_000;
// Orders created in one event-loop turn commit together (the order service's group commit).
const ORDER_CHUNK = 256;
const PUNCH_STAFF = 200;
const PUNCH_STEP_MS = 10_000;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export function createMenu(services: Services, count: number) {
  const category = services.menu.createCategory({ name: `Mains ${newId().slice(-6)}` });
  return range(count).map((i) =>
    services.menu.createItem({ category_id: category.id, name: `Item ${i}`, price_minor: 500 + i }),
  );
}

/** 1–3 distinct menu items, one or two of each. */
export const newOrder = (menuIds: string[], n: number) => ({
  order_type: 'takeout' as const,
  items: range(1 + (n % 3)).map((i) => ({
    menu_item_id: menuIds[(n + i) % menuIds.length]!,
    quantity: 1 + ((n + i) % 2),
  })),
});

const payInCash = (services: Services, order: Order) =>
  services.payments.record(order.id, { method: 'cash', amount_minor: Math.round(order.total * 100) });

/** `count` orders of 1–3 items, each paid in cash: 5–7 outbox rows apiece with their events. */
export async function seedOrders(app: BenchAppliance, count: number) {
  const menuIds = createMenu(app.services, 3).map((item) => item.id);
  for (let done = 0; done < count; done += ORDER_CHUNK) {
    const chunk = range(Math.min(ORDER_CHUNK, count - done));
    const orders = await Promise.all(
      chunk.map((i) => app.services.orders.create(newOrder(menuIds, done + i))),
    );
    for (const order of orders) payInCash(app.services, order);
  }
}

/** How far back the punching store's clock starts: its backlog spans most of three days. */
export const PUNCH_CLOCK_BACK_MS = 72 * HOUR_MS;

/**
 * `count` punches by 200 staff in turn, clocking in and out ten seconds of store time apart; every
 * tenth punch that is a clock-in is then corrected by a manager to a minute earlier. The store's
 * clock must have been PUNCH_CLOCK_BACK_MS behind from its first write, before any sync, and is back
 * at now afterwards: a correction takes in the stamps its punch's document holds, and the hybrid
 * clock refuses one more than a day ahead of the wall clock, the store's own stamps included.
 */
export function seedPunches(app: BenchAppliance, count: number) {
  const staff = range(PUNCH_STAFF).map(() => newId());
  const managerId = newId();
  let corrections = 0;
  for (let i = 0; i < count; i++) {
    app.clock.advance(PUNCH_STEP_MS);
    const kind: PunchKind = Math.floor(i / staff.length) % 2 === 0 ? 'clock_in' : 'clock_out';
    const punch = app.services.timeclock.punch(staff[i % staff.length]!, kind);
    if (i % 10 !== 0 || kind !== 'clock_in') continue;
    const at = new Date(Date.parse(punch.at) - 60_000).toISOString();
    app.services.timeclock.correct(punch.id, { at, managerId, reason: 'forgot to clock in' });
    corrections += 1;
  }
  app.clock.set(0);
  return { punches: count, corrections };
}

export type StoreBase = ReturnType<typeof seedStoreBase>;

/**
 * What the 72-hour store had synced before it went offline: a menu whose items use stock through
 * recipes, stock delivered once, and each of its staff's first shift (four days ago).
 */
export function seedStoreBase(app: BenchAppliance) {
  const { services } = app;
  app.clock.set(-96 * HOUR_MS);
  const menu = createMenu(services, OFFLINE_BASE.menuItems).map((item) => item.id);
  const stock = range(OFFLINE_BASE.stockItems).map(
    (i) => services.inventory.create({ name: `Stock ${i}`, unit: 'each' }).id,
  );
  for (const id of stock) services.inventory.restock(id, 1000);
  menu.forEach((id, i) => {
    services.inventory.setRecipe(id, [
      { inventory_item_id: stock[i % stock.length]!, quantity: 0.1 },
      { inventory_item_id: stock[(i + 1) % stock.length]!, quantity: 0.2 },
    ]);
  });
  const staff = range(OFFLINE_BASE.staff).map(() => newId());
  const clockIns = new Map<string, string>();
  const punches: string[] = [];
  for (const staffId of staff) {
    app.clock.advance(60_000);
    const clockIn = services.timeclock.punch(staffId, 'clock_in');
    app.clock.advance(60_000);
    punches.push(clockIn.id, services.timeclock.punch(staffId, 'clock_out').id);
    clockIns.set(clockIn.id, clockIn.at);
  }
  app.clock.set(0);
  return { menu, stock, staff, punches, clockIns };
}

/** An order from the till to the pass: created, paid, sent, each item prepared, completed (stock moves). */
async function tradeOrder(services: Services, menu: string[], n: number) {
  const order = await services.orders.create(newOrder(menu, n * 7));
  payInCash(services, order);
  services.sendOrder(order.id);
  for (const item of order.items) services.orders.completeItem(order.id, item.id);
  services.completeOrder(order.id);
}

/** The menu items the store reprices while offline: the first half of its menu. */
const STORE_REPRICED = OFFLINE_BASE.menuItems / 2;

/** The store's other business between orders, each kind on its own rhythm. */
function storeChores(services: Services, base: StoreBase) {
  const onShift = new Set<string>();
  const clockIns = [...base.clockIns];
  const managerId = newId();
  return (n: number) => {
    if (n % 10 === 0) {
      const id = base.menu[(n / 10) % STORE_REPRICED]!;
      services.menu.changePrice(id, services.menu.getItem(id).price_minor + 1);
    }
    if (n % 5 === 0) {
      const staffId = base.staff[(n / 5) % base.staff.length]!;
      services.timeclock.punch(staffId, onShift.has(staffId) ? 'clock_out' : 'clock_in');
      if (!onShift.delete(staffId)) onShift.add(staffId);
    }
    if (n % 10 === 5) {
      // A manager moves a first-shift clock-in earlier: payroll corrects the same punches meanwhile.
      const index = ((n - 5) / 10) % clockIns.length;
      const [id, at] = clockIns[index]!;
      const earlier = new Date(Date.parse(at) - 30_000).toISOString();
      services.timeclock.correct(id, { at: earlier, managerId, reason: 'badge reader was late' });
      clockIns[index] = [id, earlier];
    }
    if (n % 20 === 0) services.inventory.restock(base.stock[(n / 20) % base.stock.length]!, 10);
  };
}

/**
 * Trading until `target` outbox rows wait: orders through their whole life and, in between, price
 * changes, staff clocking in and out, managers' corrections of punches and deliveries. On true time:
 * the store synced its base, and its clock must not fall a day behind the stamps it saw then (see
 * seedPunches), so the three days are a backlog written now rather than a replay.
 */
export async function seedOfflinePeriod(app: BenchAppliance, base: StoreBase, target: number) {
  const newest = app.db.prepare('select coalesce(max(seq), 0) as seq from outbox');
  const written = (() => {
    const first = (newest.get() as { seq: number }).seq;
    return () => (newest.get() as { seq: number }).seq - first;
  })();
  const chores = storeChores(app.services, base);
  let orders = 0;
  while (written() < target) {
    await tradeOrder(app.services, base.menu, orders);
    chores(orders);
    orders += 1;
  }
  return { changes: written(), orders };
}
