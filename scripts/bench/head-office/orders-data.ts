/**
 * A chain's order history written straight into the cloud's commerce projection (the tables the
 * sync observers keep), in the database itself: the benchmark measures reading the list, and two
 * million orders through the push would take longer than the rest of the run together.
 */
import { sql } from 'kysely';
import type { Store } from '../../../cloud/db/index.ts';

export interface OrderPlan {
  orders: number;
  days: number;
}

export const FIRST_DAY = '2026-01-01';

/** Orders spread evenly over the stores and days, one line each, newest on the last day. */
export async function writeOrders(
  store: Store,
  tenantId: string,
  locationIds: readonly string[],
  plan: OrderPlan,
) {
  const db = store.db;
  await sql`create table bench_stores (idx integer primary key, id text not null)`.execute(db);
  for (let start = 0; start < locationIds.length; start += 500)
    await sql`insert into bench_stores (idx, id) values ${sql.join(
      locationIds.slice(start, start + 500).map((id, i) => sql`(${start + i}, ${id})`),
    )}`.execute(db);
  const stores = locationIds.length;
  const perDay = Math.ceil(plan.orders / plan.days);
  const chunk = 250_000;
  for (let from = 0; from < plan.orders; from += chunk) {
    const to = Math.min(plan.orders, from + chunk) - 1;
    if (store.dialect === 'pg') {
      await sql`
        insert into commerce_orders
        select ${tenantId}, s.id, o.id, lpad((g % 10000)::text, 4, '0'), o.day, 'dine_in',
          case when g % 20 = 0 then 'cancelled' else 'completed' end, null, null, null, 1000, 80, 1080,
          o.at, o.at, 3
        from generate_series(${from}::int, ${to}::int) g
        join bench_stores s on s.idx = g % ${stores}::int
        cross join lateral (select
          to_char(${FIRST_DAY}::date + (g / ${perDay}::int), 'YYYY-MM-DD') as day,
          to_char(${FIRST_DAY}::date + (g / ${perDay}::int) + make_interval(secs => (g % ${perDay}::int) * 86000.0 / ${perDay}::int), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
          lpad(to_hex(g), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(g), 12, '0') as id) o`.execute(db);
      await sql`
        insert into commerce_order_items
        select ${tenantId}, s.id, lpad(to_hex(g), 8, '0') || '-1111-4000-8000-' || lpad(to_hex(g), 12, '0'),
          lpad(to_hex(g), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(g), 12, '0'),
          '{"id":"x","order_id":"x","menu_item_id":"m","name":"Cheeseburger","quantity":2,"unit_price_minor":500,"modifiers":"[]","notes":null,"status":"complete","position":0,"updated_at":"2026-01-01T00:00:00.000Z"}',
          1
        from generate_series(${from}::int, ${to}::int) g
        join bench_stores s on s.idx = g % ${stores}::int`.execute(db);
    } else {
      await sql`
        with recursive n(g) as (select ${from} union all select g + 1 from n where g < ${to})
        insert into commerce_orders
        select ${tenantId}, s.id, printf('%08x-0000-4000-8000-%012x', g, g), printf('%04d', g % 10000),
          date(${FIRST_DAY}, '+' || (g / ${perDay}) || ' days'), 'dine_in',
          case when g % 20 = 0 then 'cancelled' else 'completed' end, null, null, null, 1000, 80, 1080,
          strftime('%Y-%m-%dT%H:%M:%fZ', ${FIRST_DAY}, '+' || (g / ${perDay}) || ' days', '+' || ((g % ${perDay}) * 86000 / ${perDay}) || ' seconds'),
          strftime('%Y-%m-%dT%H:%M:%fZ', ${FIRST_DAY}, '+' || (g / ${perDay}) || ' days', '+' || ((g % ${perDay}) * 86000 / ${perDay}) || ' seconds'),
          3
        from n join bench_stores s on s.idx = g % ${stores}`.execute(db);
      await sql`
        with recursive n(g) as (select ${from} union all select g + 1 from n where g < ${to})
        insert into commerce_order_items
        select ${tenantId}, s.id, printf('%08x-1111-4000-8000-%012x', g, g), printf('%08x-0000-4000-8000-%012x', g, g),
          '{"id":"x","order_id":"x","menu_item_id":"m","name":"Cheeseburger","quantity":2,"unit_price_minor":500,"modifiers":"[]","notes":null,"status":"complete","position":0,"updated_at":"2026-01-01T00:00:00.000Z"}',
          1
        from n join bench_stores s on s.idx = g % ${stores}`.execute(db);
    }
  }
  await sql`drop table bench_stores`.execute(db);
  // What autovacuum's analyze does on a live server (test servers run without it).
  await sql`analyze`.execute(db);
  return { perDay, lastDay: await lastDay(store) };
}

async function lastDay(store: Store) {
  const row = await sql<{ day: string }>`select max(business_day) as day from commerce_orders`.execute(
    store.db,
  );
  return row.rows[0]!.day;
}
