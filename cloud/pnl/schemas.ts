import { type TSchema, Type } from '@sinclair/typebox';
import { CurrencyUnits, MAX_CURRENCY_UNITS } from '../../shared/http/numbers.ts';
import { BLOCK_FIELDS, SECTION_TYPES, SUMMARY_FIELDS } from './figures.ts';
import { CLASSIFICATION_KINDS, COST_CLASSES, EXPENSE_CATEGORIES } from './tables.ts';

const literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const numbers = (fields: readonly string[]) =>
  Type.Object(Object.fromEntries(fields.map((f) => [f, Type.Number()])), { additionalProperties: false });

export const DetailSchema = Type.Object(
  { detail: Type.String() },
  { description: 'Every P&L error: `{ detail }`' },
);
export const pnlErrorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, DetailSchema]));
export const Success = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

const Day = (description: string) =>
  Type.String({ description: `${description} (YYYY-MM-DD)`, examples: ['2026-01-31'] });
const PeriodBody = { start_date: Day('First day included'), end_date: Day('Last day included') };
export const PeriodSchema = Type.Object({ start_date: Type.String(), end_date: Type.String() });
export const SummarySchema = numbers(SUMMARY_FIELDS);
const RevenueSchema = numbers(BLOCK_FIELDS.revenue);
const CogsSchema = numbers(BLOCK_FIELDS.cogs);
const OpexSchema = numbers(BLOCK_FIELDS.operating_expenses);
const Keyed = <T extends TSchema>(entry: T) => Type.Record(Type.String(), entry);

export const PeriodBodySchema = Type.Object(PeriodBody, { additionalProperties: false });

export const ConsolidatedBodySchema = Type.Object(
  {
    ...PeriodBody,
    brand_ids: Type.Optional(Type.Array(Type.String(), { description: 'Omitted: every brand' })),
    include_budget: Type.Optional(Type.Boolean({ default: false })),
    include_prior_period: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export const ConsolidatedSchema = Type.Object({
  period: PeriodSchema,
  summary: SummarySchema,
  budget_comparison: Keyed(
    Type.Object({
      actual: Type.Number(),
      budget: Type.Number(),
      variance: Type.Number(),
      variance_pct: Type.Number(),
    }),
  ),
  prior_period: Keyed(
    Type.Object({
      current: Type.Number(),
      prior: Type.Number(),
      change: Type.Number(),
      change_pct: Type.Number(),
    }),
  ),
  brands_included: Type.Integer(),
});

export const BrandParamsSchema = Type.Object({ brand_id: Type.String() });
export const BrandReportSchema = Type.Object({
  brand_id: Type.String(),
  brand_name: Type.String(),
  period: PeriodSchema,
  summary: SummarySchema,
  revenue: RevenueSchema,
  cost_of_goods_sold: CogsSchema,
  operating_expenses: OpexSchema,
  locations_count: Type.Integer(),
});

export const RegionParamsSchema = Type.Object({ region_id: Type.String() });
export const RegionReportSchema = Type.Object({
  region_id: Type.String(),
  region_name: Type.String(),
  period: PeriodSchema,
  summary: SummarySchema,
  brands_in_region: Type.Integer(),
  locations_in_region: Type.Integer(),
});

export const CompareBodySchema = Type.Object(
  {
    ...PeriodBody,
    brand_ids: Type.Array(Type.String(), { description: 'At least 2 brands' }),
    metrics: Type.Optional(
      Type.Array(Type.String(), { description: 'Metric names of the catalog; omitted: all' }),
    ),
  },
  { additionalProperties: false },
);
export const CompareSchema = Type.Object({
  period: PeriodSchema,
  brands: Type.Array(
    Type.Object({ brand_id: Type.String(), brand_name: Type.String(), metrics: Keyed(Type.Number()) }),
  ),
  rankings: Type.Record(Type.String(), Type.Array(Type.String()), {
    description:
      'Brand ids best first: highest value first, except cost metrics (costs and their percentages) lowest first',
  }),
});

export const CustomBodySchema = Type.Object(
  {
    ...PeriodBody,
    sections: Type.Array(literals(SECTION_TYPES)),
    group_by: Type.Optional(literals(['brand', 'region', 'location'] as const)),
    filters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Accepted keys: region_id, brand_id, location_id (ids) and min_revenue (net revenue, currency units)',
      }),
    ),
  },
  { additionalProperties: false },
);
const BlockMap = Type.Object({
  revenue: Type.Optional(RevenueSchema),
  cogs: Type.Optional(CogsSchema),
  operating_expenses: Type.Optional(numbers(BLOCK_FIELDS.custom_operating_expenses)),
  other_income: Type.Optional(numbers(BLOCK_FIELDS.other_income)),
  other_expenses: Type.Optional(numbers(BLOCK_FIELDS.other_expenses)),
});
export const CustomSchema = Type.Object({
  period: PeriodSchema,
  group_by: Type.String(),
  sections_included: Type.Array(Type.String()),
  groups: Type.Array(
    Type.Composite([Type.Object({ group_key: Type.String(), group_name: Type.String() }), BlockMap]),
  ),
  totals: BlockMap,
});

export const TrendBodySchema = Type.Object(
  {
    ...PeriodBody,
    metric: Type.String(),
    granularity: Type.Optional(Type.String({ description: 'day, week or month (default month)' })),
    brand_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export const TrendSchema = Type.Object({
  metric: Type.String(),
  granularity: Type.String(),
  brand_id: Type.Union([Type.String(), Type.Null()]),
  period: PeriodSchema,
  data_points: Type.Array(Type.Object({ date: Type.String(), value: Type.Number() })),
  summary: Type.Object({
    min: Type.Number(),
    max: Type.Number(),
    avg: Type.Number(),
    trend_direction: literals(['up', 'down', 'flat'] as const),
    change_pct: Type.Number(),
  }),
});

const MetricEntry = Type.Object({
  name: Type.String(),
  label: Type.String(),
  type: literals(['currency', 'percentage'] as const),
});
export const MetricCatalogSchema = Type.Object({
  revenue: Type.Array(MetricEntry),
  cost_of_goods_sold: Type.Array(MetricEntry),
  profitability: Type.Array(MetricEntry),
  operating_expenses: Type.Array(MetricEntry),
});
export const SectionCatalogSchema = Type.Array(
  Type.Object({ type: Type.String(), name: Type.String(), description: Type.String() }),
);

// Ledger.
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
};
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()]) });

export const ExpenseBodySchema = Type.Object(
  {
    location_id: Type.Optional(Type.String({ description: 'The store charged; or brand_id' })),
    brand_id: Type.Optional(
      Type.String({ description: 'The brand charged (shared equally by its stores); or location_id' }),
    ),
    expense_date: Day('Day of the expense'),
    category: literals(EXPENSE_CATEGORIES),
    amount: CurrencyUnits({ description: 'Currency units, at most 2 decimals' }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export const ExpenseSchema = Type.Object({
  id: Type.String(),
  location_id: Type.Union([Type.String(), Type.Null()]),
  brand_id: Type.Union([Type.String(), Type.Null()]),
  expense_date: Type.String(),
  category: Type.String(),
  amount: Type.Number(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
export const ExpenseQuerySchema = Type.Object(
  {
    ...PageQuery,
    start_date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    end_date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    location_id: Type.Optional(Type.String()),
    brand_id: Type.Optional(Type.String()),
    category: Type.Optional(literals(EXPENSE_CATEGORIES)),
  },
  { additionalProperties: false },
);
export const IdParamsSchema = Type.Object({ id: Type.String() });
export const ImportSchema = Type.Object({ imported: Type.Integer() });

/** An hourly wage beyond this is a typing mistake, not a wage. */
const MAX_HOURLY_RATE = 100_000;
/** Stored in millionths: the largest unit cost whose millionths stay exact. */
const MAX_UNIT_COST = 1_000_000;

export const WageRateBodySchema = Type.Object(
  {
    staff_id: Type.String({
      format: 'uuid',
      description: 'A member of the tenant (the user id punches carry)',
    }),
    hourly_rate: CurrencyUnits({ maximum: MAX_HOURLY_RATE, description: 'Currency units per hour' }),
    effective_from: Day('First day the rate applies'),
  },
  { additionalProperties: false },
);
export const WageRateSchema = Type.Object({
  id: Type.String(),
  staff_id: Type.String(),
  hourly_rate: Type.Number(),
  effective_from: Type.String(),
  effective_to: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
export const WageRateQuerySchema = Type.Object(
  { ...PageQuery, staff_id: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const ItemParamsSchema = Type.Object({ inventory_item_id: Type.String() });
export const ItemCostBodySchema = Type.Object(
  {
    unit_cost: CurrencyUnits({
      maximum: MAX_UNIT_COST,
      description: 'Currency per one unit of the stock item, at most 6 decimals',
    }),
  },
  { additionalProperties: false },
);
export const ItemCostSchema = Type.Object({
  id: Type.String(),
  inventory_item_id: Type.String(),
  unit_cost: Type.Number(),
  updated_at: Type.String(),
});
export const PageQuerySchema = Type.Object(PageQuery, { additionalProperties: false });

export const ClassificationParamsSchema = Type.Object({
  kind: literals(CLASSIFICATION_KINDS),
  ref_id: Type.String(),
});
export const ClassificationBodySchema = Type.Object(
  { cost_class: literals(COST_CLASSES) },
  { additionalProperties: false },
);
export const ClassificationSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  ref_id: Type.String(),
  cost_class: Type.String(),
  updated_at: Type.String(),
});

export const BudgetBodySchema = Type.Object(
  {
    brand_id: Type.Optional(Type.String()),
    location_id: Type.Optional(Type.String()),
    month: Type.String({ description: 'YYYY-MM' }),
    amounts: Type.Record(Type.String(), CurrencyUnits({ minimum: -MAX_CURRENCY_UNITS }), {
      description: 'Metric name → currency units',
    }),
  },
  { additionalProperties: false },
);
export const BudgetSchema = Type.Object({
  id: Type.String(),
  brand_id: Type.Union([Type.String(), Type.Null()]),
  location_id: Type.Union([Type.String(), Type.Null()]),
  month: Type.String(),
  amounts: Type.Record(Type.String(), Type.Number()),
  updated_at: Type.String(),
});
export const BudgetQuerySchema = Type.Object(
  { ...PageQuery, month: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
