import type { BusinessTime } from '../location/index.ts';

/** What the sales figures need from the store's location: its currency and its business time. */
export interface SalesCalendar {
  get(): { currency: string };
  businessTime(at: Date): BusinessTime;
}

/** One order that counts towards a day's sales, with when in the day it was opened. */
export interface Sale {
  minor: number;
  at: BusinessTime;
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
