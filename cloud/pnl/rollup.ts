/**
 * The stores' synced rows reaching the day rollups. Each fact table keeps a row's latest
 * contribution, so a row that arrives again, changes or is deleted moves the rollups by the
 * difference from what it added before: exact, never double-counted, and as cheap on a busy day
 * as on a quiet one.
 */
import { type Insertable, type Kysely, sql } from 'kysely';
import type { Fields } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import { refreshMenuCosts } from './costs.ts';
import { chunks, createDayDeltas, reprice, type Where } from './day-deltas.ts';
import type { PnlLineRow, PnlOrderRow, PnlPaymentRow, PnlTables } from './tables.ts';

type DayDeltas = ReturnType<typeof createDayDeltas>;
type OrderFact = PnlOrderRow;
type LineFact = PnlLineRow;
type PaymentFact = PnlPaymentRow;

const num = (value: unknown) => Number(value ?? 0);
const text = (value: unknown) => String(value ?? '');

/** The stored facts of one store's rows by id (bigints read back as numbers on both backends). */
async function factsOf<T extends 'pnl_orders' | 'pnl_lines' | 'pnl_payments'>(
  db: Db,
  table: T,
  at: Where,
  column: 'id' | 'order_id',
  ids: readonly string[],
): Promise<Array<PnlTables[T]>> {
  const loose = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const found: Array<PnlTables[T]> = [];
  for (const part of chunks([...new Set(ids)])) {
    const rows = await loose
      .selectFrom(table)
      .selectAll()
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where(column, 'in', part)
      .execute();
    for (const row of rows) found.push(numeric(row) as unknown as PnlTables[T]);
  }
  return found;
}

const NUMERIC = ['counted', 'subtotal_minor', 'quantity', 'refunded_minor'];
const numeric = (row: Record<string, unknown>) => {
  for (const column of NUMERIC) if (column in row) row[column] = Number(row[column]);
  return row;
};

const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));

/**
 * Writes each fact over the stored one with its key (every other column replaced): a synced row
 * that arrives again replaces its contribution instead of adding to it.
 */
async function replaceFacts<T extends keyof PnlTables & string>(
  db: Db,
  table: T,
  key: ReadonlyArray<keyof PnlTables[T] & string>,
  facts: ReadonlyArray<Insertable<PnlTables[T]>>,
) {
  const replaced = Object.keys(facts[0] ?? {}).filter((column) => !key.includes(column as never));
  const loose = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const excluded = Object.fromEntries(replaced.map((column) => [column, sql.ref(`excluded.${column}`)]));
  for (const part of chunks([...facts]))
    await loose
      .insertInto(table as string)
      .values(part as Array<Record<string, unknown>>)
      .onConflict((oc) => oc.columns([...key]).doUpdateSet(excluded))
      .execute();
}

async function deleteFacts(db: Db, table: 'pnl_lines' | 'pnl_payments', at: Where, ids: string[]) {
  for (const part of chunks(ids))
    await db
      .deleteFrom(table)
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('id', 'in', part)
      .execute();
}

const addLine = (deltas: DayDeltas, line: LineFact, sign: 1 | -1) => {
  if (line.counted) deltas.units(line.business_day, line.menu_item_id, sign * line.quantity);
};
const addPayment = (deltas: DayDeltas, payment: PaymentFact, sign: 1 | -1) => {
  if (payment.counted) deltas.refund(payment.business_day, sign * payment.refunded_minor);
};
const addOrder = (deltas: DayDeltas, order: OrderFact, sign: 1 | -1) => {
  deltas.touch(order.business_day);
  if (order.counted) deltas.gross(order.business_day, sign * order.subtotal_minor);
};

/** Orders: each replaces its previous contribution; a cancelled or deleted order counts for nothing. */
export async function recordOrders(db: Db, at: Where, rows: Fields[]) {
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    id: text(row.id),
    business_day: text(row.business_day),
    counted: row.status === 'cancelled' ? 0 : 1,
    subtotal_minor: num(row.subtotal_minor),
  }));
  await applyOrders(db, at, facts);
}

/** A deleted order keeps its day and stops counting, with its items and payments. */
export async function forgetOrders(db: Db, at: Where, ids: string[]) {
  const stored = await factsOf(db, 'pnl_orders', at, 'id', ids);
  await applyOrders(
    db,
    at,
    stored.map((order) => ({ ...order, counted: 0 })),
  );
}

async function applyOrders(db: Db, at: Where, facts: OrderFact[]) {
  if (facts.length === 0) return;
  const before = byId(
    await factsOf(
      db,
      'pnl_orders',
      at,
      'id',
      facts.map((f) => f.id),
    ),
  );
  await replaceFacts(db, 'pnl_orders', ['tenant_id', 'location_id', 'id'], facts);
  const deltas = createDayDeltas();
  for (const fact of facts) {
    const old = before.get(fact.id);
    if (old) addOrder(deltas, old, -1);
    addOrder(deltas, fact, 1);
  }
  const moved = facts.filter((f) => {
    const old = before.get(f.id);
    return old?.business_day !== f.business_day || old.counted !== f.counted;
  });
  await moveDependents(db, at, moved, deltas);
  await deltas.write(db, at);
}

/**
 * An order that changed day or standing takes its items and payments with it: each leaves what
 * it added where it was and adds it where the order now is.
 */
async function moveDependents(db: Db, at: Where, orders: OrderFact[], deltas: DayDeltas) {
  if (orders.length === 0) return;
  const now = byId(orders);
  const ids = orders.map((o) => o.id);
  const [lines, payments] = [
    await factsOf(db, 'pnl_lines', at, 'order_id', ids),
    await factsOf(db, 'pnl_payments', at, 'order_id', ids),
  ];
  const follow = <T extends LineFact | PaymentFact>(fact: T): T => {
    const order = now.get(fact.order_id)!;
    return { ...fact, business_day: order.business_day, counted: order.counted };
  };
  for (const line of lines) {
    addLine(deltas, line, -1);
    addLine(deltas, follow(line), 1);
  }
  for (const payment of payments) {
    addPayment(deltas, payment, -1);
    addPayment(deltas, follow(payment), 1);
  }
  const lineOrders = new Set(lines.map((l) => l.order_id));
  const paymentOrders = new Set(payments.map((p) => p.order_id));
  await propagate(
    db,
    'pnl_lines',
    at,
    orders.filter((o) => lineOrders.has(o.id)),
  );
  await propagate(
    db,
    'pnl_payments',
    at,
    orders.filter((o) => paymentOrders.has(o.id)),
  );
}

/** An order's day and standing copied onto its items or payments (by the order_id index). */
async function propagate(db: Db, table: 'pnl_lines' | 'pnl_payments', at: Where, orders: OrderFact[]) {
  const groups = new Map<string, string[]>();
  for (const order of orders) {
    const key = `${order.counted}|${order.business_day}`;
    groups.set(key, [...(groups.get(key) ?? []), order.id]);
  }
  for (const [key, orderIds] of groups) {
    const [counted, day] = [Number(key.slice(0, 1)), key.slice(2)];
    for (const ids of chunks(orderIds))
      await db
        .updateTable(table)
        .set({ business_day: day, counted })
        .where('tenant_id', '=', at.tenantId)
        .where('location_id', '=', at.locationId)
        .where('order_id', 'in', ids)
        .execute();
  }
}

/** An item or payment counts on its order's day while the order counts; one whose order has not arrived yet counts when it does. */
async function standingOf(db: Db, at: Where, rows: Fields[]) {
  const orders = byId(
    await factsOf(
      db,
      'pnl_orders',
      at,
      'id',
      rows.map((row) => text(row.order_id)),
    ),
  );
  return (orderId: string) => ({
    business_day: orders.get(orderId)?.business_day ?? '',
    counted: orders.get(orderId)?.counted ?? 0,
  });
}

export async function recordOrderItems(db: Db, at: Where, rows: Fields[]) {
  const standing = await standingOf(db, at, rows);
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    id: text(row.id),
    order_id: text(row.order_id),
    menu_item_id: text(row.menu_item_id),
    quantity: num(row.quantity),
    ...standing(text(row.order_id)),
  }));
  await applyFacts(db, at, 'pnl_lines', facts, addLine);
}

export async function recordPayments(db: Db, at: Where, rows: Fields[]) {
  const standing = await standingOf(db, at, rows);
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    id: text(row.id),
    order_id: text(row.order_id),
    refunded_minor: num(row.refunded_minor),
    ...standing(text(row.order_id)),
  }));
  await applyFacts(db, at, 'pnl_payments', facts, addPayment);
}

async function applyFacts<T extends 'pnl_lines' | 'pnl_payments'>(
  db: Db,
  at: Where,
  table: T,
  facts: Array<PnlTables[T]>,
  add: (deltas: DayDeltas, fact: PnlTables[T], sign: 1 | -1) => void,
) {
  if (facts.length === 0) return;
  const deltas = createDayDeltas();
  for (const old of await factsOf(
    db,
    table,
    at,
    'id',
    facts.map((f) => f.id),
  ))
    add(deltas, old, -1);
  await replaceFacts(db, table, ['tenant_id', 'location_id', 'id'], facts as never);
  for (const fact of facts) add(deltas, fact, 1);
  await deltas.write(db, at);
}

/** Deleted items and payments take back what they added. */
export async function forgetFacts(db: Db, at: Where, table: 'pnl_lines' | 'pnl_payments', ids: string[]) {
  const deltas = createDayDeltas();
  const stored = await factsOf(db, table, at, 'id', ids);
  if (stored.length === 0) return;
  for (const fact of stored)
    if (table === 'pnl_lines') addLine(deltas, fact as LineFact, -1);
    else addPayment(deltas, fact as PaymentFact, -1);
  await deleteFacts(db, table, at, ids);
  await deltas.write(db, at);
}

/** Recipes and menu items change what an item costs: the store's costs are worked out again. */
export async function recordRecipes(db: Db, at: Where, rows: Fields[]) {
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    menu_item_id: text(row.menu_item_id),
    components: typeof row.components === 'string' ? row.components : JSON.stringify(row.components ?? []),
  }));
  await replaceFacts(db, 'pnl_recipes', ['tenant_id', 'location_id', 'menu_item_id'], facts);
  await refreshMenuCosts(db, at.tenantId, at.locationId);
  await reprice(db, at.tenantId, { locationId: at.locationId });
}

export async function recordMenuItems(db: Db, at: Where, rows: Fields[]) {
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    id: text(row.id),
    category_id: text(row.category_id),
    name: text(row.name),
  }));
  await replaceFacts(db, 'pnl_menu_items', ['tenant_id', 'location_id', 'id'], facts);
  await refreshMenuCosts(db, at.tenantId, at.locationId);
  await reprice(db, at.tenantId, { locationId: at.locationId });
}

/** A deleted recipe or menu item no longer prices what the store sold. */
export async function forgetCosting(
  db: Db,
  at: Where,
  table: 'pnl_recipes' | 'pnl_menu_items',
  ids: string[],
) {
  const key = table === 'pnl_recipes' ? 'menu_item_id' : 'id';
  for (const part of chunks(ids))
    await db
      .deleteFrom(table)
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where(key, 'in', part)
      .execute();
  await refreshMenuCosts(db, at.tenantId, at.locationId);
  await reprice(db, at.tenantId, { locationId: at.locationId });
}
