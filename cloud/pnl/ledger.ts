import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { refreshMenuCosts } from './costs.ts';
import { parseCsv } from './csv.ts';
import { addDays, isDay } from './dates.ts';
import { reprice } from './day-deltas.ts';
import { pnlErrors } from './errors.ts';
import { createLedgerStore, type ExpenseFilter, type Page } from './ledger-store.ts';
import type { Structure } from './scope.ts';
import { BUDGET_METRICS } from './service.ts';
import {
  type ClassificationKind,
  type CostClass,
  EXPENSE_CATEGORIES,
  type ExpenseCategory,
  type PnlBudgetRow,
  type PnlClassificationRow,
  type PnlExpenseRow,
  type PnlItemCostRow,
  type PnlWageRateRow,
} from './tables.ts';

export interface LedgerDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  structure: (tenantId: string) => Promise<Structure>;
  staffExists: (tenantId: string, staffId: string) => Promise<boolean>;
}

export interface ExpenseInput {
  location_id?: string | undefined;
  brand_id?: string | undefined;
  expense_date: string;
  category: ExpenseCategory;
  amount: number;
  description?: string | undefined;
}

const MAX_IMPORT_LINES = 10_000;
const CSV_COLUMNS = ['expense_date', 'category', 'amount', 'location_id', 'brand_id', 'description'];

/** Decimal currency to integer units of 10^-places; undefined when it has more decimals than that. */
export function toUnits(value: number, places: number): number | undefined {
  const scaled = value * 10 ** places;
  const units = Math.round(scaled);
  return Math.abs(scaled - units) < 1e-6 && Number.isSafeInteger(units) ? units : undefined;
}

const money = (cents: number) => Math.round(Number(cents)) / 100;
const pageOf = <T extends { id: string }>(rows: T[], limit: number) => ({
  items: rows.slice(0, limit),
  next_cursor: rows.length > limit ? rows[limit - 1]!.id : null,
});

export const expenseView = (row: PnlExpenseRow) => ({
  id: row.id,
  location_id: row.location_id,
  brand_id: row.brand_id,
  expense_date: row.expense_date,
  category: row.category,
  amount: money(row.amount_minor),
  description: row.description,
  created_at: row.created_at,
});
export const wageRateView = (row: PnlWageRateRow) => ({
  id: row.id,
  staff_id: row.staff_id,
  hourly_rate: money(row.hourly_rate_minor),
  effective_from: row.effective_from,
  effective_to: row.effective_to,
  created_at: row.created_at,
});
export const itemCostView = (row: PnlItemCostRow) => ({
  id: row.id,
  inventory_item_id: row.inventory_item_id,
  unit_cost: Number(row.unit_cost_micros) / 1_000_000,
  updated_at: row.updated_at,
});
export const classificationView = (row: PnlClassificationRow) => ({
  id: row.id,
  kind: row.kind,
  ref_id: row.ref_id,
  cost_class: row.cost_class,
  updated_at: row.updated_at,
});
export const budgetView = (row: PnlBudgetRow) => ({
  id: row.id,
  brand_id: row.brand_id,
  location_id: row.location_id,
  month: row.month,
  amounts: Object.fromEntries(
    Object.entries(JSON.parse(row.amounts) as Record<string, number>).map(([k, v]) => [k, money(v)]),
  ),
  updated_at: row.updated_at,
});

/** The finance ledger: expenses, wage rates, stock item costs, beverage classification, budgets. */
export function createLedgerService(deps: LedgerDeps) {
  const store = createLedgerStore();
  const { db } = deps;
  const now = () => deps.clock.now().toISOString();

  /** One expense checked against the tenant's structure: the problems found, or its row. */
  function expenseRow(tenantId: string, structure: Structure, input: ExpenseInput, at: string) {
    const problems: string[] = [];
    const hasLocation = input.location_id !== undefined && input.location_id !== '';
    const hasBrand = input.brand_id !== undefined && input.brand_id !== '';
    if (hasLocation === hasBrand) problems.push('exactly one of location_id and brand_id is required');
    if (hasLocation && !structure.locations.some((l) => l.id === input.location_id))
      problems.push(`location_id: unknown location ${input.location_id}`);
    if (hasBrand && !structure.brands.some((b) => b.id === input.brand_id))
      problems.push(`brand_id: unknown brand ${input.brand_id}`);
    if (!isDay(input.expense_date))
      problems.push('expense_date: expected a calendar date in YYYY-MM-DD form');
    if (!(EXPENSE_CATEGORIES as readonly string[]).includes(input.category))
      problems.push(`category: must be one of ${EXPENSE_CATEGORIES.join(', ')}`);
    const cents = Number.isFinite(input.amount) && input.amount >= 0 ? toUnits(input.amount, 2) : undefined;
    if (cents === undefined) problems.push('amount: must be a number of at least 0 with at most 2 decimals');
    if ((input.description?.length ?? 0) > 1000) problems.push('description: at most 1000 characters');
    if (problems.length > 0) return { problems };
    const row: PnlExpenseRow = {
      id: deps.newId(),
      tenant_id: tenantId,
      location_id: hasLocation ? input.location_id! : null,
      brand_id: hasBrand ? input.brand_id! : null,
      expense_date: input.expense_date,
      category: input.category,
      amount_minor: cents!,
      description: input.description ?? null,
      created_at: at,
    };
    return { problems, row };
  }

  async function createExpense(tenantId: string, input: ExpenseInput) {
    const structure = await deps.structure(tenantId);
    const { problems, row } = expenseRow(tenantId, structure, input, now());
    if (problems.some((p) => p.includes('unknown location')))
      throw pnlErrors.locationNotFound(input.location_id ?? '');
    if (problems.some((p) => p.includes('unknown brand')))
      throw pnlErrors.brandNotFound(input.brand_id ?? '');
    if (!row) throw pnlErrors.invalid(problems.join('; '));
    await store.insertExpenses(db, [row]);
    return expenseView(row);
  }

  function csvLine(header: string[], cells: string[]): ExpenseInput {
    const get = (name: string) => {
      const index = header.indexOf(name);
      const value = index < 0 ? undefined : cells[index]?.trim();
      return value === '' ? undefined : value;
    };
    const amount = get('amount');
    return {
      expense_date: get('expense_date') ?? '',
      category: (get('category') ?? '') as ExpenseCategory,
      amount: amount !== undefined && /^\d+(\.\d+)?$/.test(amount) ? Number(amount) : Number.NaN,
      location_id: get('location_id'),
      brand_id: get('brand_id'),
      description: get('description'),
    };
  }

  /** All or nothing: any bad line refuses the file, naming every bad line and why. */
  async function importExpenses(tenantId: string, csv: string) {
    const records = parseCsv(csv).filter((r) => r.some((cell) => cell.trim() !== ''));
    const header = (records[0] ?? []).map((h) => h.trim().toLowerCase());
    const unknown = header.filter((h) => !CSV_COLUMNS.includes(h));
    const missing = ['expense_date', 'category', 'amount'].filter((h) => !header.includes(h));
    if (records.length === 0)
      throw pnlErrors.invalid('The CSV is empty; expected a header line and expense lines');
    if (unknown.length > 0 || missing.length > 0)
      throw pnlErrors.invalid(
        `line 1: header ${[...unknown.map((h) => `has unknown column ${h}`), ...missing.map((h) => `lacks column ${h}`)].join(', ')}; columns are ${CSV_COLUMNS.join(', ')}`,
      );
    if (records.length < 2) throw pnlErrors.invalid('The CSV has no expense lines');
    if (records.length - 1 > MAX_IMPORT_LINES)
      throw pnlErrors.invalid(
        `The CSV has ${records.length - 1} lines; at most ${MAX_IMPORT_LINES} per import`,
      );
    const structure = await deps.structure(tenantId);
    const at = now();
    const rows: PnlExpenseRow[] = [];
    const errors: string[] = [];
    records.slice(1).forEach((cells, i) => {
      if (cells.length > header.length) {
        errors.push(`line ${i + 2}: has ${cells.length} fields, the header ${header.length}`);
        return;
      }
      const result = expenseRow(tenantId, structure, csvLine(header, cells), at);
      if (result.row) rows.push(result.row);
      else errors.push(`line ${i + 2}: ${result.problems.join(', ')}`);
    });
    if (errors.length > 0)
      throw pnlErrors.invalid(
        `The CSV was not imported: ${errors.length} invalid line(s): ${errors.join('; ')}`,
      );
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) await store.insertExpenses(trx, rows.slice(i, i + 500));
    });
    return { imported: rows.length };
  }

  async function listExpenses(tenantId: string, filter: ExpenseFilter, page: Page) {
    return pageOf(await store.listExpenses(db, tenantId, filter, page), page.limit);
  }

  async function getExpense(tenantId: string, id: string) {
    const row = await store.expense(db, tenantId, id);
    if (!row) throw pnlErrors.notFound('Expense');
    return expenseView(row);
  }

  async function deleteExpense(tenantId: string, id: string) {
    if ((await store.deleteExpense(db, tenantId, id)) === 0) throw pnlErrors.notFound('Expense');
  }

  /** A staff member's rates end the day before the next one starts; labor is priced again. */
  async function rechain(trx: Db, tenantId: string, staffId: string) {
    const rates = await store.wageRates(trx, tenantId, staffId);
    for (const [i, rate] of rates.entries()) {
      const next = rates[i + 1];
      const to = next ? addDays(next.effective_from, -1) : null;
      if (rate.effective_to !== to) await store.setEffectiveTo(trx, tenantId, rate.id, to);
    }
    await reprice(trx, tenantId);
  }

  async function setWageRate(
    tenantId: string,
    input: { staff_id: string; hourly_rate: number; effective_from: string },
  ) {
    if (!isDay(input.effective_from))
      throw pnlErrors.invalid('Invalid effective_from: expected a calendar date in YYYY-MM-DD form');
    const cents = toUnits(input.hourly_rate, 2);
    if (cents === undefined || cents < 0)
      throw pnlErrors.invalid('hourly_rate: must be at least 0 with at most 2 decimals');
    if (!(await deps.staffExists(tenantId, input.staff_id))) throw pnlErrors.staffNotFound(input.staff_id);
    const row: PnlWageRateRow = {
      id: deps.newId(),
      tenant_id: tenantId,
      staff_id: input.staff_id,
      hourly_rate_minor: cents,
      effective_from: input.effective_from,
      effective_to: null,
      created_at: now(),
    };
    return db.transaction().execute(async (trx) => {
      await store.upsertWageRate(trx, row);
      await rechain(trx, tenantId, input.staff_id);
      const saved = (await store.wageRates(trx, tenantId, input.staff_id)).find(
        (r) => r.effective_from === input.effective_from,
      )!;
      return wageRateView(saved);
    });
  }

  async function deleteWageRate(tenantId: string, id: string) {
    await db.transaction().execute(async (trx) => {
      const row = await store.wageRate(trx, tenantId, id);
      if (!row) throw pnlErrors.notFound('Wage rate');
      await store.deleteWageRate(trx, tenantId, id);
      await rechain(trx, tenantId, row.staff_id);
    });
  }

  const listWageRates = async (tenantId: string, staffId: string | undefined, page: Page) =>
    pageOf((await store.listWageRates(db, tenantId, staffId, page)).map(wageRateView), page.limit);

  /** Costs and classes change every menu item's cost: the tenant's days are priced again. */
  async function recost(trx: Db, tenantId: string) {
    await refreshMenuCosts(trx, tenantId);
    await reprice(trx, tenantId);
  }

  async function setItemCost(tenantId: string, itemId: string, unitCost: number) {
    const micros = toUnits(unitCost, 6);
    if (micros === undefined || micros < 0)
      throw pnlErrors.invalid('unit_cost: must be at least 0 with at most 6 decimals');
    return db.transaction().execute(async (trx) => {
      const existing = await store.itemCost(trx, tenantId, itemId);
      await store.upsertItemCost(trx, {
        id: existing?.id ?? deps.newId(),
        tenant_id: tenantId,
        inventory_item_id: itemId,
        unit_cost_micros: micros,
        updated_at: now(),
      });
      await recost(trx, tenantId);
      return itemCostView((await store.itemCost(trx, tenantId, itemId))!);
    });
  }

  async function deleteItemCost(tenantId: string, itemId: string) {
    await db.transaction().execute(async (trx) => {
      if (!(await store.itemCost(trx, tenantId, itemId))) throw pnlErrors.notFound('Item cost');
      await store.deleteItemCost(trx, tenantId, itemId);
      await recost(trx, tenantId);
    });
  }

  const listItemCosts = async (tenantId: string, page: Page) =>
    pageOf((await store.listItemCosts(db, tenantId, page)).map(itemCostView), page.limit);

  async function setClassification(
    tenantId: string,
    kind: ClassificationKind,
    refId: string,
    costClass: CostClass,
  ) {
    return db.transaction().execute(async (trx) => {
      const existing = await store.classification(trx, tenantId, kind, refId);
      await store.upsertClassification(trx, {
        id: existing?.id ?? deps.newId(),
        tenant_id: tenantId,
        kind,
        ref_id: refId,
        cost_class: costClass,
        updated_at: now(),
      });
      await recost(trx, tenantId);
      return classificationView((await store.classification(trx, tenantId, kind, refId))!);
    });
  }

  async function deleteClassification(tenantId: string, kind: ClassificationKind, refId: string) {
    await db.transaction().execute(async (trx) => {
      if (!(await store.classification(trx, tenantId, kind, refId)))
        throw pnlErrors.notFound('Classification');
      await store.deleteClassification(trx, tenantId, kind, refId);
      await recost(trx, tenantId);
    });
  }

  const listClassifications = async (tenantId: string, page: Page) =>
    pageOf((await store.listClassifications(db, tenantId, page)).map(classificationView), page.limit);

  async function setBudget(
    tenantId: string,
    input: {
      brand_id?: string | undefined;
      location_id?: string | undefined;
      month: string;
      amounts: Record<string, number>;
    },
  ) {
    if ((input.brand_id === undefined) === (input.location_id === undefined))
      throw pnlErrors.invalid('Exactly one of brand_id and location_id is required');
    if (!/^\d{4}-\d{2}$/.test(input.month) || !isDay(`${input.month}-01`))
      throw pnlErrors.invalid(`Invalid month: expected YYYY-MM, got '${input.month}'`);
    const amounts: Record<string, number> = {};
    for (const [metric, value] of Object.entries(input.amounts)) {
      if (!(BUDGET_METRICS as readonly string[]).includes(metric))
        throw pnlErrors.invalid(
          `amounts.${metric}: not a budgetable metric; one of ${BUDGET_METRICS.join(', ')}`,
        );
      const cents = toUnits(value, 2);
      if (cents === undefined) throw pnlErrors.invalid(`amounts.${metric}: at most 2 decimals`);
      amounts[metric] = cents;
    }
    const structure = await deps.structure(tenantId);
    if (input.brand_id !== undefined && !structure.brands.some((b) => b.id === input.brand_id))
      throw pnlErrors.brandNotFound(input.brand_id);
    if (input.location_id !== undefined && !structure.locations.some((l) => l.id === input.location_id))
      throw pnlErrors.locationNotFound(input.location_id);
    const scope = { brand_id: input.brand_id ?? null, location_id: input.location_id ?? null };
    const at = now();
    return db.transaction().execute(async (trx) => {
      const existing = await store.budgetFor(trx, tenantId, scope, input.month);
      if (existing) await store.updateBudget(trx, tenantId, existing.id, JSON.stringify(amounts), at);
      else
        await store.insertBudget(trx, {
          id: deps.newId(),
          tenant_id: tenantId,
          ...scope,
          month: input.month,
          amounts: JSON.stringify(amounts),
          updated_at: at,
        });
      return {
        created: !existing,
        budget: budgetView((await store.budgetFor(trx, tenantId, scope, input.month))!),
      };
    });
  }

  const listBudgets = async (tenantId: string, month: string | undefined, page: Page) =>
    pageOf((await store.listBudgets(db, tenantId, { month }, page)).map(budgetView), page.limit);

  async function deleteBudget(tenantId: string, id: string) {
    if ((await store.deleteBudget(db, tenantId, id)) === 0) throw pnlErrors.notFound('Budget');
  }

  return {
    createExpense,
    importExpenses,
    listExpenses: async (tenantId: string, filter: ExpenseFilter, page: Page) => {
      const result = await listExpenses(tenantId, filter, page);
      return { items: result.items.map(expenseView), next_cursor: result.next_cursor };
    },
    getExpense,
    deleteExpense,
    setWageRate,
    deleteWageRate,
    listWageRates,
    setItemCost,
    deleteItemCost,
    listItemCosts,
    setClassification,
    deleteClassification,
    listClassifications,
    setBudget,
    listBudgets,
    deleteBudget,
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
