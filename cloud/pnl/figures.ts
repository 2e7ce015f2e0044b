/**
 * The statement's arithmetic on integer cents: totals add, derived figures are worked out from
 * totals, and money becomes decimal currency units (and percents are rounded) only here.
 */
export interface Totals {
  gross: number;
  discounts: number;
  refunds: number;
  food: number;
  beverage: number;
  labor: number;
  occupancy: number;
  utilities: number;
  marketing: number;
  other: number;
  other_income: number;
  other_expenses: number;
}

export const zeroTotals = (): Totals => ({
  gross: 0,
  discounts: 0,
  refunds: 0,
  food: 0,
  beverage: 0,
  labor: 0,
  occupancy: 0,
  utilities: 0,
  marketing: 0,
  other: 0,
  other_income: 0,
  other_expenses: 0,
});

export function addTotals(into: Totals, more: Totals): Totals {
  for (const key of Object.keys(into) as Array<keyof Totals>) into[key] += more[key];
  return into;
}

export const sumTotals = (list: Totals[]) => list.reduce((sum, t) => addTotals(sum, t), zeroTotals());

/** Cents of every currency metric (signed as the statement shows them). */
export function centsOf(t: Totals): Record<string, number> {
  const net = t.gross - t.discounts - t.refunds;
  const cogs = t.food + t.beverage;
  const opex = t.labor + t.occupancy + t.utilities + t.marketing + t.other;
  const operating = net - cogs - opex;
  return {
    gross_revenue: t.gross,
    discounts: -t.discounts,
    refunds: -t.refunds,
    net_revenue: net,
    food_cost: t.food,
    beverage_cost: t.beverage,
    total_cogs: cogs,
    gross_profit: net - cogs,
    labor_cost: t.labor,
    occupancy_cost: t.occupancy,
    utilities: t.utilities,
    marketing: t.marketing,
    other: t.other,
    total_operating_expenses: opex,
    operating_income: operating,
    other_income: t.other_income,
    other_expenses: t.other_expenses,
    net_income: operating + t.other_income - t.other_expenses,
  };
}

export const money = (cents: number) => Math.round(cents) / 100;
/** A share of net revenue in percent with two decimals; 0 when there is no revenue. */
export const percentOf = (part: number, whole: number) =>
  whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;

const PERCENTS: Record<string, [string, string]> = {
  gross_margin: ['gross_profit', 'net_revenue'],
  labor_percentage: ['labor_cost', 'net_revenue'],
  food_cost_percentage: ['food_cost', 'net_revenue'],
  operating_margin: ['operating_income', 'net_revenue'],
  net_margin: ['net_income', 'net_revenue'],
};

/** Every metric of the catalog (and block field) in response units. */
export function metricsOf(t: Totals): Record<string, number> {
  const cents = centsOf(t);
  const values: Record<string, number> = {};
  for (const [name, value] of Object.entries(cents)) values[name] = money(value);
  for (const [name, [part, whole]] of Object.entries(PERCENTS))
    values[name] = percentOf(cents[part]!, cents[whole]!);
  return values;
}

export const SUMMARY_FIELDS = [
  'net_revenue',
  'gross_profit',
  'gross_margin',
  'labor_cost',
  'labor_percentage',
  'food_cost',
  'food_cost_percentage',
  'operating_income',
  'operating_margin',
  'net_income',
  'net_margin',
] as const;

const pick = (values: Record<string, number>, fields: readonly string[]) =>
  Object.fromEntries(fields.map((field) => [field, values[field] ?? 0]));

export const BLOCK_FIELDS = {
  revenue: ['gross_revenue', 'discounts', 'refunds', 'net_revenue'],
  cogs: ['food_cost', 'beverage_cost', 'total_cogs'],
  operating_expenses: [
    'labor_cost',
    'occupancy_cost',
    'utilities',
    'marketing',
    'other',
    'total_operating_expenses',
  ],
  /** The custom report's operating-expense block, as the API names its fields. */
  custom_operating_expenses: [
    'labor_cost',
    'occupancy_cost',
    'utilities',
    'marketing',
    'total_operating_expenses',
  ],
  other_income: ['other_income'],
  other_expenses: ['other_expenses'],
} as const;

export const summaryOf = (t: Totals) => pick(metricsOf(t), SUMMARY_FIELDS);
export const blockOf = (t: Totals, fields: readonly string[]) => pick(metricsOf(t), fields);

export const METRIC_CATALOG = {
  revenue: ['gross_revenue', 'discounts', 'refunds', 'net_revenue'],
  cost_of_goods_sold: ['food_cost', 'beverage_cost', 'total_cogs', 'food_cost_percentage'],
  profitability: [
    'gross_profit',
    'gross_margin',
    'operating_income',
    'operating_margin',
    'net_income',
    'net_margin',
  ],
  operating_expenses: ['labor_cost', 'labor_percentage', 'occupancy_cost', 'utilities', 'marketing'],
} as const;

export const METRIC_NAMES: string[] = Object.values(METRIC_CATALOG).flat();
export const isPercentMetric = (name: string) => Object.hasOwn(PERCENTS, name);

const LABELS: Record<string, string> = {
  gross_revenue: 'Gross revenue',
  discounts: 'Discounts',
  refunds: 'Refunds',
  net_revenue: 'Net revenue',
  food_cost: 'Food cost',
  beverage_cost: 'Beverage cost',
  total_cogs: 'Total cost of goods sold',
  food_cost_percentage: 'Food cost %',
  gross_profit: 'Gross profit',
  gross_margin: 'Gross margin %',
  operating_income: 'Operating income',
  operating_margin: 'Operating margin %',
  net_income: 'Net income',
  net_margin: 'Net margin %',
  labor_cost: 'Labor cost',
  labor_percentage: 'Labor %',
  occupancy_cost: 'Occupancy',
  utilities: 'Utilities',
  marketing: 'Marketing',
};

type MetricEntry = { name: string; label: string; type: 'currency' | 'percentage' };
export const metricCatalog = () =>
  Object.fromEntries(
    Object.entries(METRIC_CATALOG).map(([category, names]) => [
      category,
      names.map((name) => ({
        name,
        label: LABELS[name]!,
        type: isPercentMetric(name) ? ('percentage' as const) : ('currency' as const),
      })),
    ]),
  ) as unknown as Record<keyof typeof METRIC_CATALOG, MetricEntry[]>;

/** Costs rank lowest first; everything else (revenue, profit, margins, discounts and refunds shown negative) highest first. */
export const LOWER_IS_BETTER = new Set([
  'food_cost',
  'beverage_cost',
  'total_cogs',
  'food_cost_percentage',
  'labor_cost',
  'labor_percentage',
  'occupancy_cost',
  'utilities',
  'marketing',
]);

export const SECTION_TYPES = [
  'revenue',
  'cogs',
  'operating_expenses',
  'other_income',
  'other_expenses',
] as const;
export type SectionType = (typeof SECTION_TYPES)[number];

export const SECTIONS: Array<{ type: SectionType; name: string; description: string }> = [
  { type: 'revenue', name: 'Revenue', description: 'Gross sales, discounts, refunds and net revenue' },
  {
    type: 'cogs',
    name: 'Cost of goods sold',
    description: 'Food and beverage cost of the items sold, from recipes and stock item costs',
  },
  {
    type: 'operating_expenses',
    name: 'Operating expenses',
    description:
      'Labor from time punches and wage rates; occupancy, utilities and marketing from the expense ledger',
  },
  {
    type: 'other_income',
    name: 'Other income',
    description: 'Income outside operations recorded in the expense ledger',
  },
  {
    type: 'other_expenses',
    name: 'Other expenses',
    description: 'Expenses outside operations recorded in the expense ledger',
  },
];

export const sectionFields = (section: SectionType): readonly string[] =>
  section === 'operating_expenses' ? BLOCK_FIELDS.custom_operating_expenses : BLOCK_FIELDS[section];
