import { type Insertable, type Kysely, sql } from 'kysely';
import type { Fields } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import { refreshMenuCosts } from './costs.ts';
import { addDays, localDay } from './dates.ts';
import type { PnlTables } from './tables.ts';

const CHUNK = 400;
const chunks = <T>(items: T[]) =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

const num = (value: unknown) => Number(value ?? 0);
const text = (value: unknown) => String(value ?? '');

export interface Where {
  tenantId: string;
  locationId: string;
}

interface OrderStanding {
  business_day: string;
  counted: number;
}

async function ordersOf(db: Db, at: Where, orderIds: string[]) {
  const found = new Map<string, OrderStanding>();
  for (const ids of chunks([...new Set(orderIds)])) {
    const rows = await db
      .selectFrom('pnl_orders')
      .select(['id', 'business_day', 'counted'])
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('id', 'in', ids)
      .execute();
    for (const row of rows) found.set(row.id, { business_day: row.business_day, counted: row.counted });
  }
  return found;
}

const daysOf = (orders: Map<string, OrderStanding>) => [
  ...new Set([...orders.values()].map((o) => o.business_day)),
];

/** An order's day and standing copied onto its items and payments (by the order_id index). */
async function propagate(db: Db, at: Where, facts: Array<{ id: string } & OrderStanding>) {
  const groups = new Map<string, string[]>();
  for (const fact of facts) {
    const key = `${fact.counted}|${fact.business_day}`;
    groups.set(key, [...(groups.get(key) ?? []), fact.id]);
  }
  for (const [key, orderIds] of groups) {
    const [counted, day] = [Number(key.slice(0, 1)), key.slice(2)];
    for (const ids of chunks(orderIds))
      for (const table of ['pnl_lines', 'pnl_payments'] as const)
        await db
          .updateTable(table)
          .set({ business_day: day, counted })
          .where('tenant_id', '=', at.tenantId)
          .where('location_id', '=', at.locationId)
          .where('order_id', 'in', ids)
          .execute();
  }
}

/** Orders: each replaces its previous contribution; a cancelled order counts for nothing. */
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

export async function recordOrders(db: Db, at: Where, rows: Fields[]) {
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    id: text(row.id),
    business_day: text(row.business_day),
    counted: row.status === 'cancelled' ? 0 : 1,
    subtotal_minor: num(row.subtotal_minor),
  }));
  const before = await ordersOf(
    db,
    at,
    facts.map((f) => f.id),
  );
  await replaceFacts(db, 'pnl_orders', ['tenant_id', 'location_id', 'id'], facts);
  const changed = facts.filter((f) => {
    const old = before.get(f.id);
    return old?.business_day !== f.business_day || old.counted !== f.counted;
  });
  await propagate(db, at, changed);
  await recomputeDays(db, at, [...new Set([...daysOf(before), ...facts.map((f) => f.business_day)])]);
}

export async function recordOrderItems(db: Db, at: Where, rows: Fields[]) {
  const orders = await ordersOf(
    db,
    at,
    rows.map((row) => text(row.order_id)),
  );
  // An item whose order has not arrived yet counts when the order does.
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    id: text(row.id),
    order_id: text(row.order_id),
    menu_item_id: text(row.menu_item_id),
    quantity: num(row.quantity),
    business_day: orders.get(text(row.order_id))?.business_day ?? '',
    counted: orders.get(text(row.order_id))?.counted ?? 0,
  }));
  await replaceFacts(db, 'pnl_lines', ['tenant_id', 'location_id', 'id'], facts);
  await recomputeDays(db, at, daysOf(orders));
}

export async function recordPayments(db: Db, at: Where, rows: Fields[]) {
  const orders = await ordersOf(
    db,
    at,
    rows.map((row) => text(row.order_id)),
  );
  const facts = rows.map((row) => ({
    tenant_id: at.tenantId,
    location_id: at.locationId,
    id: text(row.id),
    order_id: text(row.order_id),
    refunded_minor: num(row.refunded_minor),
    business_day: orders.get(text(row.order_id))?.business_day ?? '',
    counted: orders.get(text(row.order_id))?.counted ?? 0,
  }));
  await replaceFacts(db, 'pnl_payments', ['tenant_id', 'location_id', 'id'], facts);
  await recomputeDays(db, at, daysOf(orders));
}

/** Punches: the hours of the days they touch are worked out again from every punch of the store. */
export async function recordPunches(db: Db, at: Where, timezone: string, rows: Fields[]) {
  // A punch whose time does not parse adds no hours (and must not fail the store's push).
  const facts = rows
    .filter((row) => Number.isFinite(Date.parse(text(row.at))))
    .map((row) => ({
      tenant_id: at.tenantId,
      location_id: at.locationId,
      id: text(row.id),
      staff_id: text(row.staff_id),
      kind: text(row.kind),
      at: new Date(text(row.at)).toISOString(),
    }));
  if (facts.length === 0) return;
  const days = new Set<string>();
  for (const ids of chunks(facts.map((f) => f.id))) {
    const old = await db
      .selectFrom('pnl_punches')
      .select('at')
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('id', 'in', ids)
      .execute();
    for (const row of old) days.add(localDay(row.at, timezone));
  }
  await replaceFacts(db, 'pnl_punches', ['tenant_id', 'location_id', 'id'], facts);
  for (const fact of facts) days.add(localDay(fact.at, timezone));
  // A clock-out after midnight closes the shift of the day before.
  for (const day of [...days]) days.add(addDays(day, -1));
  await recomputeHours(db, at, timezone, [...days]);
  await recomputeDays(db, at, [...days]);
}

/** Seconds worked per staff member and the local day their shift began; breaks are not paid. */
export function hoursOf(punches: Array<{ staff_id: string; kind: string; at: string }>, timezone: string) {
  const worked = new Map<string, number>();
  const open = new Map<string, { day: string; since: number | null; seconds: number }>();
  for (const punch of punches) {
    const t = Date.parse(punch.at);
    const shift = open.get(punch.staff_id);
    if (punch.kind === 'clock_in') {
      open.set(punch.staff_id, { day: localDay(punch.at, timezone), since: t, seconds: 0 });
      continue;
    }
    if (!shift) continue;
    if (shift.since !== null && (punch.kind === 'break_start' || punch.kind === 'clock_out')) {
      shift.seconds += Math.max(0, Math.round((t - shift.since) / 1000));
      shift.since = null;
    }
    if (punch.kind === 'break_end' && shift.since === null) shift.since = t;
    if (punch.kind !== 'clock_out') continue;
    const key = `${punch.staff_id}|${shift.day}`;
    worked.set(key, (worked.get(key) ?? 0) + shift.seconds);
    open.delete(punch.staff_id);
  }
  return [...worked].map(([key, seconds]) => {
    const [staff_id, business_day] = key.split('|') as [string, string];
    return { staff_id, business_day, seconds };
  });
}

async function recomputeHours(db: Db, at: Where, timezone: string, days: string[]) {
  const sorted = [...days].sort();
  const from = `${addDays(sorted[0]!, -2)}T00:00:00.000Z`;
  const to = `${addDays(sorted.at(-1)!, 3)}T00:00:00.000Z`;
  const punches = await db
    .selectFrom('pnl_punches')
    .select(['staff_id', 'kind', 'at'])
    .where('tenant_id', '=', at.tenantId)
    .where('location_id', '=', at.locationId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .orderBy('staff_id')
    .orderBy('at')
    .execute();
  const wanted = new Set(days);
  const hours = hoursOf(punches, timezone).filter((h) => wanted.has(h.business_day) && h.seconds > 0);
  for (const part of chunks(days))
    await db
      .deleteFrom('pnl_day_hours')
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('business_day', 'in', part)
      .execute();
  for (const part of chunks(hours))
    await db
      .insertInto('pnl_day_hours')
      .values(part.map((h) => ({ tenant_id: at.tenantId, location_id: at.locationId, ...h })))
      .execute();
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

async function sumsByDay(query: Promise<Array<{ business_day: string; total: unknown }>>) {
  return new Map((await query).map((row) => [row.business_day, num(row.total)]));
}

/**
 * A location's days worked out again from its facts: units sold per menu item, then the day's money
 * (gross from counted orders' subtotals, refunds from their payments), then its costs.
 */
export async function recomputeDays(db: Db, at: Where, days: string[]) {
  if (days.length === 0) return;
  for (const part of chunks([...new Set(days)])) {
    await db
      .deleteFrom('pnl_day_items')
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('business_day', 'in', part)
      .execute();
    await db
      .insertInto('pnl_day_items')
      .columns(['tenant_id', 'location_id', 'business_day', 'menu_item_id', 'quantity'])
      .expression(
        db
          .selectFrom('pnl_lines')
          .select((eb) => [
            'tenant_id',
            'location_id',
            'business_day',
            'menu_item_id',
            eb.fn.sum<number>('quantity').as('quantity'),
          ])
          .where('tenant_id', '=', at.tenantId)
          .where('location_id', '=', at.locationId)
          .where('business_day', 'in', part)
          .where('counted', '=', 1)
          .groupBy(['tenant_id', 'location_id', 'business_day', 'menu_item_id']),
      )
      .execute();
    const orders = db
      .selectFrom('pnl_orders')
      .select((eb) => ['business_day', eb.fn.sum<string>('subtotal_minor').as('total')])
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('counted', '=', 1)
      .where('business_day', 'in', part)
      .groupBy('business_day');
    const refunds = db
      .selectFrom('pnl_payments')
      .select((eb) => ['business_day', eb.fn.sum<string>('refunded_minor').as('total')])
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('business_day', 'in', part)
      .where('counted', '=', 1)
      .groupBy('business_day');
    const gross = await sumsByDay(orders.execute());
    const refunded = await sumsByDay(refunds.execute());
    await db
      .insertInto('pnl_days')
      .values(
        part.map((day) => ({
          tenant_id: at.tenantId,
          location_id: at.locationId,
          business_day: day,
          gross_minor: gross.get(day) ?? 0,
          discount_minor: 0,
          refund_minor: refunded.get(day) ?? 0,
          food_cost_minor: 0,
          beverage_cost_minor: 0,
          labor_cost_minor: 0,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'location_id', 'business_day']).doUpdateSet((eb) => ({
          gross_minor: eb.ref('excluded.gross_minor'),
          discount_minor: eb.ref('excluded.discount_minor'),
          refund_minor: eb.ref('excluded.refund_minor'),
        })),
      )
      .execute();
    await reprice(db, at.tenantId, { locationId: at.locationId, days: part });
  }
}

/**
 * Costs of days multiplied again from their quantities at the item costs and wages in force, each
 * location-day rounded to cents once: every report sums these, so totals add up exactly.
 */
export async function reprice(
  trx: Db,
  tenantId: string,
  scope: { locationId?: string; days?: string[] } = {},
) {
  const cost = (beverage: 0 | 1) => sql<number>`coalesce((
      select cast(round(sum(i.quantity * m.unit_cost_micros) / 10000.0) as bigint)
      from pnl_day_items i join pnl_menu_costs m
        on m.tenant_id = i.tenant_id and m.location_id = i.location_id and m.menu_item_id = i.menu_item_id
      where i.tenant_id = pnl_days.tenant_id and i.location_id = pnl_days.location_id
        and i.business_day = pnl_days.business_day and m.is_beverage = ${beverage}), 0)`;
  const labor = sql<number>`coalesce((
      select cast(round(sum(h.seconds * w.hourly_rate_minor) / 3600.0) as bigint)
      from pnl_day_hours h join pnl_wage_rates w
        on w.tenant_id = h.tenant_id and w.staff_id = h.staff_id and w.effective_from <= h.business_day
        and (w.effective_to is null or w.effective_to >= h.business_day)
      where h.tenant_id = pnl_days.tenant_id and h.location_id = pnl_days.location_id
        and h.business_day = pnl_days.business_day), 0)`;
  await trx
    .updateTable('pnl_days')
    .set({ food_cost_minor: cost(0), beverage_cost_minor: cost(1), labor_cost_minor: labor })
    .where('tenant_id', '=', tenantId)
    .$if(scope.locationId !== undefined, (q) => q.where('location_id', '=', scope.locationId!))
    .$if(scope.days !== undefined, (q) => q.where('business_day', 'in', scope.days!))
    .execute();
}
