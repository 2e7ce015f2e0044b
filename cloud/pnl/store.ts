import type { Db } from '../db/index.ts';
import type { ExpenseCategory } from './tables.ts';

const num = (value: unknown) => Number(value ?? 0);

export interface DayMoney {
  key: string;
  location_id: string;
  gross: number;
  discounts: number;
  refunds: number;
  food: number;
  beverage: number;
  labor: number;
}

export interface ExpenseSum {
  key: string;
  location_id: string | null;
  brand_id: string | null;
  category: ExpenseCategory;
  amount: number;
}

/** The location id under which `moneyOfDays` answers a set of locations summed. */
export const ALL_LOCATIONS = '*';

/** Report reads: the daily rollups and the expense ledger summed by location (and by day for trends). */
export function createPnlReadStore(db: Db) {
  return {
    async money(tenantId: string, start: string, end: string, byDay: boolean): Promise<DayMoney[]> {
      const rows = await db
        .selectFrom('pnl_days')
        .select((eb) => [
          'location_id',
          ...(byDay ? (['business_day'] as const) : []),
          eb.fn.sum<string>('gross_minor').as('gross'),
          eb.fn.sum<string>('discount_minor').as('discounts'),
          eb.fn.sum<string>('refund_minor').as('refunds'),
          eb.fn.sum<string>('food_cost_minor').as('food'),
          eb.fn.sum<string>('beverage_cost_minor').as('beverage'),
          eb.fn.sum<string>('labor_cost_minor').as('labor'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('business_day', '>=', start)
        .where('business_day', '<=', end)
        .groupBy(byDay ? ['location_id', 'business_day'] : ['location_id'])
        .execute();
      return rows.map((row) => ({
        key: byDay ? String((row as { business_day?: string }).business_day) : '',
        location_id: row.location_id,
        gross: num(row.gross),
        discounts: num(row.discounts),
        refunds: num(row.refunds),
        food: num(row.food),
        beverage: num(row.beverage),
        labor: num(row.labor),
      }));
    },

    /**
     * A set of locations' money per day, summed by the database (one row per day, not per location
     * and day): a trend's points. Rows come back under the location id `*`.
     */
    async moneyOfDays(
      tenantId: string,
      start: string,
      end: string,
      locationIds: string[] | undefined,
    ): Promise<DayMoney[]> {
      const rows = await db
        .selectFrom('pnl_days')
        .select((eb) => [
          'business_day',
          eb.fn.sum<string>('gross_minor').as('gross'),
          eb.fn.sum<string>('discount_minor').as('discounts'),
          eb.fn.sum<string>('refund_minor').as('refunds'),
          eb.fn.sum<string>('food_cost_minor').as('food'),
          eb.fn.sum<string>('beverage_cost_minor').as('beverage'),
          eb.fn.sum<string>('labor_cost_minor').as('labor'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('business_day', '>=', start)
        .where('business_day', '<=', end)
        .$if(locationIds !== undefined, (q) =>
          q.where('location_id', 'in', locationIds!.length > 0 ? locationIds! : ['']),
        )
        .groupBy('business_day')
        .execute();
      return rows.map((row) => ({
        key: row.business_day,
        location_id: ALL_LOCATIONS,
        gross: num(row.gross),
        discounts: num(row.discounts),
        refunds: num(row.refunds),
        food: num(row.food),
        beverage: num(row.beverage),
        labor: num(row.labor),
      }));
    },

    async expenses(tenantId: string, start: string, end: string, byDay: boolean): Promise<ExpenseSum[]> {
      const rows = await db
        .selectFrom('pnl_expenses')
        .select((eb) => [
          'location_id',
          'brand_id',
          'category',
          ...(byDay ? (['expense_date'] as const) : []),
          eb.fn.sum<string>('amount_minor').as('amount'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('expense_date', '>=', start)
        .where('expense_date', '<=', end)
        .groupBy(
          byDay
            ? ['location_id', 'brand_id', 'category', 'expense_date']
            : ['location_id', 'brand_id', 'category'],
        )
        .execute();
      return rows.map((row) => ({
        key: byDay ? String((row as { expense_date?: string }).expense_date) : '',
        location_id: row.location_id,
        brand_id: row.brand_id,
        category: row.category,
        amount: num(row.amount),
      }));
    },

    budgets: (tenantId: string, months: string[]) =>
      db
        .selectFrom('pnl_budgets')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('month', 'in', months)
        .execute(),
  };
}

export type PnlReadStore = ReturnType<typeof createPnlReadStore>;
