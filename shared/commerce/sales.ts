/**
 * A store's sales of its day, as the store answers GET /v1/commerce/sales/today and head office
 * answers it for any store from the synced rows: one rule and one shape on both sides.
 */
import { Type } from '@sinclair/typebox';
import type { BusinessTime } from '../business-day.ts';

/** One order that counts towards a day's sales, with when in the day it was opened. */
export interface Sale {
  minor: number;
  at: BusinessTime;
}

/**
 * A day's orders that count: not cancelled, and captured less refunded above zero (`net`, by order
 * id); each counts at the business time its order was opened.
 */
export function salesOf(
  orders: ReadonlyArray<{ id: string; status: string; created_at: string }>,
  net: ReadonlyMap<string, number>,
  businessTime: (at: Date) => BusinessTime,
): Sale[] {
  return orders.flatMap((order) => {
    if (order.status === 'cancelled') return [];
    const minor = net.get(order.id) ?? 0;
    return minor > 0 ? [{ minor, at: businessTime(new Date(order.created_at)) }] : [];
  });
}

const total = (sales: Sale[]) => sales.reduce((sum, sale) => sum + sale.minor, 0);

/** The change in percent, to one decimal; null when there is nothing to compare against. */
const changePct = (now: number, before: number) =>
  before === 0 ? null : Math.round(((now - before) / before) * 1000) / 10;

/**
 * Today's sales against the same weekday last week: last week's whole day, and its sales up to
 * the moment of its day that today has reached, which is what `change_pct` compares against.
 */
export function summarizeSales(input: {
  now: BusinessTime;
  currency: string;
  today: Sale[];
  lastWeek: { businessDay: string; sales: Sale[] };
}) {
  const { now, today, lastWeek } = input;
  const salesMinor = total(today);
  const toSameTime = total(lastWeek.sales.filter((sale) => sale.at.minutesIntoDay <= now.minutesIntoDay));
  const inHour = (sales: Sale[], hour: number) => total(sales.filter((sale) => sale.at.hour === hour));
  return {
    business_day: now.businessDay,
    currency: input.currency,
    sales_minor: salesMinor,
    orders: today.length,
    average_ticket_minor: today.length === 0 ? 0 : Math.round(salesMinor / today.length),
    last_week: {
      business_day: lastWeek.businessDay,
      sales_minor: total(lastWeek.sales),
      orders: lastWeek.sales.length,
      to_same_time_minor: toSameTime,
    },
    change_pct: changePct(salesMinor, toSameTime),
    by_hour: Array.from({ length: 24 }, (_, hour) => ({
      hour,
      today_minor: inHour(today, hour),
      last_week_minor: inHour(lastWeek.sales, hour),
    })),
  };
}

export type SalesToday = ReturnType<typeof summarizeSales>;

const Minor = Type.Integer({ description: 'minor units (cents)' });
const BusinessDay = Type.String({ format: 'date' });

export const SALES_TODAY_DESCRIPTION =
  'Sales of the store’s current business day (its time zone, from business_day_starts_at) and of the same ' +
  'weekday a week before. An order counts towards the business day it was opened in when it is not ' +
  'cancelled and its captured card and cash payments, less refunds, come to more than zero; that net is its ' +
  'sale (tax included, tips left out; authorized-only, voided and declined payments do not count). ' +
  'Orders still open count as soon as they are paid.';

export const salesTodayFields = {
  business_day: BusinessDay,
  currency: Type.String(),
  sales_minor: Minor,
  orders: Type.Integer(),
  average_ticket_minor: Minor,
  last_week: Type.Object({
    business_day: BusinessDay,
    sales_minor: Minor,
    orders: Type.Integer(),
    to_same_time_minor: { ...Minor, description: 'last week’s sales up to the time of day it is now' },
  }),
  change_pct: Type.Union([Type.Number(), Type.Null()], {
    description: 'sales_minor against last_week.to_same_time_minor, one decimal; null when that is 0',
  }),
  by_hour: Type.Array(
    Type.Object({
      hour: Type.Integer({ minimum: 0, maximum: 23, description: 'local hour the order was opened' }),
      today_minor: Minor,
      last_week_minor: { ...Minor, description: 'last week’s whole hour' },
    }),
    { minItems: 24, maxItems: 24 },
  ),
};

export const SalesTodaySchema = Type.Object(salesTodayFields, { description: SALES_TODAY_DESCRIPTION });
