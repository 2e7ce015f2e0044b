/**
 * The P&L area of the API: POST routes answering `{success, data}` (errors `{detail}`, which
 * ApiError reads), the brands and regions to pick from, and the currency the stores sell in.
 */
import { type Paged, query } from '../../api.ts';
import { api } from '../../session.ts';

export type Figures = Record<string, number>;

export interface Scope {
  start_date: string;
  end_date: string;
}

export interface BudgetLine {
  actual: number;
  budget: number;
  variance: number;
  variance_pct: number;
}

export interface PriorLine {
  current: number;
  prior: number;
  change: number;
  change_pct: number;
}

export interface Consolidated {
  period: Scope;
  summary: Figures;
  budget_comparison: Record<string, BudgetLine>;
  prior_period: Record<string, PriorLine>;
  brands_included: number;
}

export interface BrandStatement {
  brand_id: string;
  brand_name: string;
  period: Scope;
  summary: Figures;
  revenue: Figures;
  cost_of_goods_sold: Figures;
  operating_expenses: Figures;
  locations_count: number;
}

export interface RegionStatement {
  region_id: string;
  region_name: string;
  period: Scope;
  summary: Figures;
  brands_in_region: number;
  locations_in_region: number;
}

export type Section = 'revenue' | 'cogs' | 'operating_expenses' | 'other_income' | 'other_expenses';
export const ALL_SECTIONS: Section[] = [
  'revenue',
  'cogs',
  'operating_expenses',
  'other_income',
  'other_expenses',
];

export type Blocks = Partial<Record<Section, Figures>>;

export interface CustomReport {
  period: Scope;
  group_by: 'brand' | 'region' | 'location';
  groups: Array<Blocks & { group_key: string; group_name: string }>;
  totals: Blocks;
}

export interface Comparison {
  period: Scope;
  brands: Array<{ brand_id: string; brand_name: string; metrics: Figures }>;
  rankings: Record<string, string[]>;
}

export interface Trend {
  metric: string;
  granularity: 'day' | 'week' | 'month';
  data_points: Array<{ date: string; value: number }>;
  summary: {
    min: number;
    max: number;
    avg: number;
    trend_direction: 'up' | 'down' | 'flat';
    change_pct: number;
  };
}

export interface MetricEntry {
  name: string;
  label: string;
  type: 'currency' | 'percentage';
}

export async function pnl<T>(path: string, body: object): Promise<T> {
  return (await api.post<{ success: true; data: T }>(`/api/v1/pnl/${path}`, body)).data;
}

export async function metricCatalog(signal: AbortSignal): Promise<MetricEntry[]> {
  const answer = await api.get<{ data: Record<string, MetricEntry[]> }>('/api/v1/pnl/metrics', signal);
  return Object.values(answer.data).flat();
}

export interface Named {
  id: string;
  name: string;
}

type Page<T> = Paged<T>;

/** Every item of a cursor-paged platform list (brands, regions, locations), up to 2,000. */
export async function listAll<T extends Named>(path: string, signal: AbortSignal): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null | undefined;
  for (let page = 0; page < 10; page++) {
    const answer = await api.get<Page<T>>(`${path}${query({ limit: 200, cursor })}`, signal);
    items.push(...answer.data);
    cursor = answer.meta?.pagination?.next_cursor;
    if (!cursor) break;
  }
  return items.sort((a, b) => a.name.localeCompare(b.name));
}

interface SalesSummary {
  data: { totals: Array<{ currency: string }> };
}

/**
 * The currencies the stores in scope sell in. The P&L answers carry none, so this is read from the
 * sales summary; an error leaves the figures as plain numbers rather than blocking the report.
 */
export async function currenciesOf(
  scope: { brand_id?: string; region_id?: string },
  signal: AbortSignal,
): Promise<string[]> {
  const answer = await api
    .get<SalesSummary>(`/v1/commerce/sales/summary${query(scope)}`, signal)
    .catch(() => null);
  return [...new Set(answer?.data.totals.map((t) => t.currency) ?? [])];
}
