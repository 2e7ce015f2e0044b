import { businessDayOf, businessTimeOf, shiftBusinessDay } from '../../shared/business-day.ts';
import type { Clock } from '../../shared/clock.ts';
import { salesOf, summarizeSales } from '../../shared/commerce/sales.ts';
import type { Db } from '../db/index.ts';
import { calendarOf, calendarRows, type StoreCalendar } from './calendar.ts';
import * as errors from './errors.ts';
import { sees, type Viewer } from './service.ts';

/** A store as tenancy knows it. */
export interface StoreInfo {
  id: string;
  name: string;
  timezone: string;
}

/** The tenant's stores, from tenancy. */
export interface StoreDirectory {
  store(tenantId: string, locationId: string): Promise<StoreInfo | undefined>;
  /** Every store of the tenant, or of one brand or region. */
  stores(tenantId: string, filter: { brandId?: string; regionId?: string }): Promise<StoreInfo[]>;
}

// Ids in one `in` list: far below either database's limit on parameters in one statement.
const CHUNK = 500;

const chunks = <T>(values: readonly T[]) =>
  Array.from({ length: Math.ceil(values.length / CHUNK) }, (_, i) =>
    values.slice(i * CHUNK, (i + 1) * CHUNK),
  );

/**
 * What each order's sales come to by the store's rule: its captured payments less their refunds,
 * tips left out. Payments are kept as the store's synced fields, so they are summed here.
 */
async function netCaptured(db: Db, tenantId: string, orderIds: readonly string[]) {
  const net = new Map<string, number>();
  for (const ids of chunks(orderIds)) {
    const payments = await db
      .selectFrom('commerce_payments')
      .select(['order_id', 'fields'])
      .where('tenant_id', '=', tenantId)
      .where('order_id', 'in', ids)
      .execute();
    for (const payment of payments) {
      const fields = JSON.parse(payment.fields) as Record<string, unknown>;
      if (fields.status !== 'captured') continue;
      const minor = Number(fields.amount_minor) - Number(fields.refunded_minor);
      net.set(payment.order_id, (net.get(payment.order_id) ?? 0) + minor);
    }
  }
  return net;
}

/** The orders of these stores' business days, each store with its own day. */
async function ordersOf(db: Db, tenantId: string, days: ReadonlyMap<string, string>) {
  const orders = [];
  for (const ids of chunks([...days.keys()])) {
    const rows = await db
      .selectFrom('commerce_orders')
      .select(['location_id', 'id', 'status', 'created_at', 'business_day'])
      .where('tenant_id', '=', tenantId)
      .where('location_id', 'in', ids)
      .where('business_day', 'in', [...new Set(ids.map((id) => days.get(id)!))])
      .execute();
    orders.push(...rows.filter((row) => days.get(row.location_id) === row.business_day));
  }
  return orders;
}

/**
 * Head office's sales figures, from the commerce projection by the stores' own rule and on each
 * store's own business day (shared/commerce/sales.ts), so a store and head office agree.
 */
export function createSalesService(deps: { db: Db; clock: Clock; stores: StoreDirectory }) {
  const { db } = deps;

  async function calendarsOf(tenantId: string, stores: readonly StoreInfo[]) {
    const calendars = new Map<string, StoreCalendar>();
    for (const ids of chunks(stores)) {
      const rows = await calendarRows(
        db,
        tenantId,
        ids.map((store) => store.id),
      );
      for (const store of ids) calendars.set(store.id, calendarOf(rows.get(store.id), store.timezone));
    }
    return calendars;
  }

  /** One store's day: its orders that count, at their business time. */
  async function daySales(tenantId: string, locationId: string, day: string, calendar: StoreCalendar) {
    const orders = await ordersOf(db, tenantId, new Map([[locationId, day]]));
    const net = await netCaptured(
      db,
      tenantId,
      orders.map((order) => order.id),
    );
    return salesOf(orders, net, (at) => businessTimeOf(at, calendar.timezone, calendar.startsAt));
  }

  return {
    /** One store's sales today against the same weekday last week, as the store answers it. */
    async today(viewer: Viewer, locationId: string) {
      const store = sees(viewer, locationId)
        ? await deps.stores.store(viewer.tenantId, locationId)
        : undefined;
      if (!store) throw errors.locationNotFound();
      const calendar = (await calendarsOf(viewer.tenantId, [store])).get(store.id)!;
      const now = businessTimeOf(deps.clock.now(), calendar.timezone, calendar.startsAt);
      const lastWeekDay = shiftBusinessDay(now.businessDay, -7);
      return {
        location_id: locationId,
        ...summarizeSales({
          now,
          currency: calendar.currency,
          today: await daySales(viewer.tenantId, locationId, now.businessDay, calendar),
          lastWeek: {
            businessDay: lastWeekDay,
            sales: await daySales(viewer.tenantId, locationId, lastWeekDay, calendar),
          },
        }),
      };
    },

    /**
     * Every store's sales so far today, each on its own business day, and the tenant's total per
     * currency: money in two currencies is never added up.
     */
    async summary(viewer: Viewer, filter: { brandId?: string; regionId?: string }) {
      const stores = (await deps.stores.stores(viewer.tenantId, filter))
        .filter((store) => sees(viewer, store.id))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
      const calendars = await calendarsOf(viewer.tenantId, stores);
      const now = deps.clock.now();
      const days = new Map(
        stores.map((s) => [
          s.id,
          businessDayOf(now, calendars.get(s.id)!.timezone, calendars.get(s.id)!.startsAt),
        ]),
      );
      const orders = await ordersOf(db, viewer.tenantId, days);
      const net = await netCaptured(
        db,
        viewer.tenantId,
        orders.map((order) => order.id),
      );
      const figures = stores.map((store) => {
        const calendar = calendars.get(store.id)!;
        const sales = salesOf(
          orders.filter((order) => order.location_id === store.id),
          net,
          (at) => businessTimeOf(at, calendar.timezone, calendar.startsAt),
        );
        return {
          location_id: store.id,
          name: store.name,
          business_day: days.get(store.id)!,
          currency: calendar.currency,
          orders: sales.length,
          sales_minor: sales.reduce((sum, sale) => sum + sale.minor, 0),
        };
      });
      return { stores: figures, totals: totalsByCurrency(figures) };
    },
  };
}

function totalsByCurrency(stores: ReadonlyArray<{ currency: string; orders: number; sales_minor: number }>) {
  const totals = new Map<string, { currency: string; orders: number; sales_minor: number }>();
  for (const { currency, orders, sales_minor } of stores) {
    const total = totals.get(currency) ?? { currency, orders: 0, sales_minor: 0 };
    totals.set(currency, {
      currency,
      orders: total.orders + orders,
      sales_minor: total.sales_minor + sales_minor,
    });
  }
  return [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

export type SalesService = ReturnType<typeof createSalesService>;
