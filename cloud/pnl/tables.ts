/**
 * The P&L module's tables. Facts keep each synced row's latest contribution (so a row arriving again
 * replaces, never adds); quantity rollups hold units sold and hours worked per location and
 * business day; `pnl_days` holds the money per location and day that reports read, its costs
 * multiplied from the quantities at the costs and wages in force (re-priced when they change).
 */
export const EXPENSE_CATEGORIES = [
  'occupancy',
  'utilities',
  'marketing',
  'other',
  'other_income',
  'other_expenses',
] as const;
export type ExpenseCategory = (typeof EXPENSE_CATEGORIES)[number];

export const CLASSIFICATION_KINDS = ['menu_item', 'category'] as const;
export type ClassificationKind = (typeof CLASSIFICATION_KINDS)[number];
export const COST_CLASSES = ['food', 'beverage'] as const;
export type CostClass = (typeof COST_CLASSES)[number];

/** One synced order as it last arrived: what it adds to its location-day. */
export interface PnlOrderRow {
  tenant_id: string;
  location_id: string;
  id: string;
  business_day: string;
  /** 0 for a cancelled order: it adds nothing, nor do its items and payments. */
  counted: number;
  subtotal_minor: number;
}

export interface PnlLineRow {
  tenant_id: string;
  location_id: string;
  id: string;
  order_id: string;
  menu_item_id: string;
  quantity: number;
  /** The order's business day and standing, copied when either arrives ('' and 0 until the order does). */
  business_day: string;
  counted: number;
}

export interface PnlPaymentRow {
  tenant_id: string;
  location_id: string;
  id: string;
  order_id: string;
  refunded_minor: number;
  business_day: string;
  counted: number;
}

export interface PnlPunchRow {
  tenant_id: string;
  location_id: string;
  id: string;
  staff_id: string;
  kind: string;
  at: string;
}

export interface PnlRecipeRow {
  tenant_id: string;
  location_id: string;
  menu_item_id: string;
  /** JSON: [{ inventory_item_id, quantity_milli }] as the store syncs it. */
  components: string;
}

export interface PnlMenuItemRow {
  tenant_id: string;
  location_id: string;
  id: string;
  category_id: string;
  name: string;
}

/** A menu item's cost per unit sold at the item costs and classification in force, in micro-units of currency. */
export interface PnlMenuCostRow {
  tenant_id: string;
  location_id: string;
  menu_item_id: string;
  unit_cost_micros: number;
  is_beverage: number;
}

export interface PnlDayItemRow {
  tenant_id: string;
  location_id: string;
  business_day: string;
  menu_item_id: string;
  quantity: number;
}

export interface PnlDayHoursRow {
  tenant_id: string;
  location_id: string;
  business_day: string;
  staff_id: string;
  seconds: number;
}

/** The money of one location-day in cents: what every report sums. */
export interface PnlDayRow {
  tenant_id: string;
  location_id: string;
  business_day: string;
  gross_minor: number;
  discount_minor: number;
  refund_minor: number;
  food_cost_minor: number;
  beverage_cost_minor: number;
  labor_cost_minor: number;
}

export interface PnlExpenseRow {
  id: string;
  tenant_id: string;
  location_id: string | null;
  brand_id: string | null;
  expense_date: string;
  category: ExpenseCategory;
  amount_minor: number;
  description: string | null;
  created_at: string;
}

export interface PnlWageRateRow {
  id: string;
  tenant_id: string;
  staff_id: string;
  hourly_rate_minor: number;
  effective_from: string;
  /** The day before the staff member's next rate takes effect; null while it is the latest. */
  effective_to: string | null;
  created_at: string;
}

export interface PnlItemCostRow {
  id: string;
  tenant_id: string;
  inventory_item_id: string;
  /** Currency per one unit of the stock item, in millionths (recipes use thousandths of a unit). */
  unit_cost_micros: number;
  updated_at: string;
}

export interface PnlClassificationRow {
  id: string;
  tenant_id: string;
  kind: ClassificationKind;
  ref_id: string;
  cost_class: CostClass;
  updated_at: string;
}

export interface PnlBudgetRow {
  id: string;
  tenant_id: string;
  brand_id: string | null;
  location_id: string | null;
  /** YYYY-MM */
  month: string;
  /** JSON object: metric name → cents. */
  amounts: string;
  updated_at: string;
}

export interface PnlTables {
  pnl_orders: PnlOrderRow;
  pnl_lines: PnlLineRow;
  pnl_payments: PnlPaymentRow;
  pnl_punches: PnlPunchRow;
  pnl_recipes: PnlRecipeRow;
  pnl_menu_items: PnlMenuItemRow;
  pnl_menu_costs: PnlMenuCostRow;
  pnl_day_items: PnlDayItemRow;
  pnl_day_hours: PnlDayHoursRow;
  pnl_days: PnlDayRow;
  pnl_expenses: PnlExpenseRow;
  pnl_wage_rates: PnlWageRateRow;
  pnl_item_costs: PnlItemCostRow;
  pnl_classifications: PnlClassificationRow;
  pnl_budgets: PnlBudgetRow;
}
