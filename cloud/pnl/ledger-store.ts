import type { Db } from '../db/index.ts';
import type {
  ClassificationKind,
  ExpenseCategory,
  PnlBudgetRow,
  PnlClassificationRow,
  PnlExpenseRow,
  PnlItemCostRow,
  PnlWageRateRow,
} from './tables.ts';

export interface Page {
  limit: number;
  after?: string | undefined;
}

export interface ExpenseFilter {
  start_date?: string | undefined;
  end_date?: string | undefined;
  location_id?: string | undefined;
  brand_id?: string | undefined;
  category?: ExpenseCategory | undefined;
}

/** The finance ledger: one Kysely query per function, each scoped by tenant, for both dialects. */
export function createLedgerStore() {
  return {
    insertExpenses: (db: Db, rows: PnlExpenseRow[]) => db.insertInto('pnl_expenses').values(rows).execute(),
    expense: (db: Db, tenantId: string, id: string) =>
      db
        .selectFrom('pnl_expenses')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    listExpenses: (db: Db, tenantId: string, filter: ExpenseFilter, page: Page) =>
      db
        .selectFrom('pnl_expenses')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(filter.start_date !== undefined, (q) => q.where('expense_date', '>=', filter.start_date!))
        .$if(filter.end_date !== undefined, (q) => q.where('expense_date', '<=', filter.end_date!))
        .$if(filter.location_id !== undefined, (q) => q.where('location_id', '=', filter.location_id!))
        .$if(filter.brand_id !== undefined, (q) => q.where('brand_id', '=', filter.brand_id!))
        .$if(filter.category !== undefined, (q) => q.where('category', '=', filter.category!))
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit + 1)
        .execute(),
    deleteExpense: async (db: Db, tenantId: string, id: string) =>
      Number(
        (
          await db
            .deleteFrom('pnl_expenses')
            .where('tenant_id', '=', tenantId)
            .where('id', '=', id)
            .executeTakeFirst()
        ).numDeletedRows,
      ),

    wageRates: (db: Db, tenantId: string, staffId: string) =>
      db
        .selectFrom('pnl_wage_rates')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('staff_id', '=', staffId)
        .orderBy('effective_from')
        .execute(),
    wageRate: (db: Db, tenantId: string, id: string) =>
      db
        .selectFrom('pnl_wage_rates')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    upsertWageRate: (db: Db, row: PnlWageRateRow) =>
      db
        .insertInto('pnl_wage_rates')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'staff_id', 'effective_from'])
            .doUpdateSet({ hourly_rate_minor: row.hourly_rate_minor, created_at: row.created_at }),
        )
        .execute(),
    setEffectiveTo: (db: Db, tenantId: string, id: string, effectiveTo: string | null) =>
      db
        .updateTable('pnl_wage_rates')
        .set({ effective_to: effectiveTo })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute(),
    listWageRates: (db: Db, tenantId: string, staffId: string | undefined, page: Page) =>
      db
        .selectFrom('pnl_wage_rates')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(staffId !== undefined, (q) => q.where('staff_id', '=', staffId!))
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit + 1)
        .execute(),
    deleteWageRate: (db: Db, tenantId: string, id: string) =>
      db.deleteFrom('pnl_wage_rates').where('tenant_id', '=', tenantId).where('id', '=', id).execute(),

    itemCost: (db: Db, tenantId: string, itemId: string) =>
      db
        .selectFrom('pnl_item_costs')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('inventory_item_id', '=', itemId)
        .executeTakeFirst(),
    upsertItemCost: (db: Db, row: PnlItemCostRow) =>
      db
        .insertInto('pnl_item_costs')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'inventory_item_id'])
            .doUpdateSet({ unit_cost_micros: row.unit_cost_micros, updated_at: row.updated_at }),
        )
        .execute(),
    listItemCosts: (db: Db, tenantId: string, page: Page) =>
      db
        .selectFrom('pnl_item_costs')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit + 1)
        .execute(),
    deleteItemCost: (db: Db, tenantId: string, itemId: string) =>
      db
        .deleteFrom('pnl_item_costs')
        .where('tenant_id', '=', tenantId)
        .where('inventory_item_id', '=', itemId)
        .execute(),

    classification: (db: Db, tenantId: string, kind: ClassificationKind, refId: string) =>
      db
        .selectFrom('pnl_classifications')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('kind', '=', kind)
        .where('ref_id', '=', refId)
        .executeTakeFirst(),
    upsertClassification: (db: Db, row: PnlClassificationRow) =>
      db
        .insertInto('pnl_classifications')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'kind', 'ref_id'])
            .doUpdateSet({ cost_class: row.cost_class, updated_at: row.updated_at }),
        )
        .execute(),
    listClassifications: (db: Db, tenantId: string, page: Page) =>
      db
        .selectFrom('pnl_classifications')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit + 1)
        .execute(),
    deleteClassification: (db: Db, tenantId: string, kind: ClassificationKind, refId: string) =>
      db
        .deleteFrom('pnl_classifications')
        .where('tenant_id', '=', tenantId)
        .where('kind', '=', kind)
        .where('ref_id', '=', refId)
        .execute(),

    budgetFor: (
      db: Db,
      tenantId: string,
      scope: { brand_id: string | null; location_id: string | null },
      month: string,
    ) =>
      db
        .selectFrom('pnl_budgets')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('month', '=', month)
        .where((eb) =>
          eb.and([
            scope.brand_id === null ? eb('brand_id', 'is', null) : eb('brand_id', '=', scope.brand_id),
            scope.location_id === null
              ? eb('location_id', 'is', null)
              : eb('location_id', '=', scope.location_id),
          ]),
        )
        .executeTakeFirst(),
    insertBudget: (db: Db, row: PnlBudgetRow) => db.insertInto('pnl_budgets').values(row).execute(),
    updateBudget: (db: Db, tenantId: string, id: string, amounts: string, at: string) =>
      db
        .updateTable('pnl_budgets')
        .set({ amounts, updated_at: at })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute(),
    listBudgets: (db: Db, tenantId: string, filter: { month?: string | undefined }, page: Page) =>
      db
        .selectFrom('pnl_budgets')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(filter.month !== undefined, (q) => q.where('month', '=', filter.month!))
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit + 1)
        .execute(),
    deleteBudget: async (db: Db, tenantId: string, id: string) =>
      Number(
        (
          await db
            .deleteFrom('pnl_budgets')
            .where('tenant_id', '=', tenantId)
            .where('id', '=', id)
            .executeTakeFirst()
        ).numDeletedRows,
      ),
  };
}
