/** The statement's layout, money in the stores' currency, and grouped bars for the charts. */
import type uPlot from 'uplot';
import { type ChartSeries, PALETTE } from '../../components/chart.tsx';
import { formatMoney, formatNumber, formatPercent } from '../../format.ts';
import type { Figures } from './pnl-api.ts';

export interface Line {
  key: string;
  label: string;
  percent?: boolean;
  total?: boolean;
}

export interface LineGroup {
  title: string;
  lines: Line[];
}

export const STATEMENT: LineGroup[] = [
  {
    title: 'Revenue',
    lines: [
      { key: 'gross_revenue', label: 'Gross revenue' },
      { key: 'discounts', label: 'Discounts' },
      { key: 'refunds', label: 'Refunds' },
      { key: 'net_revenue', label: 'Net revenue', total: true },
    ],
  },
  {
    title: 'Cost of goods sold',
    lines: [
      { key: 'food_cost', label: 'Food cost' },
      { key: 'beverage_cost', label: 'Beverage cost' },
      { key: 'total_cogs', label: 'Total cost of goods sold', total: true },
      { key: 'gross_profit', label: 'Gross profit', total: true },
      { key: 'gross_margin', label: 'Gross margin', percent: true },
    ],
  },
  {
    title: 'Operating expenses',
    lines: [
      { key: 'labor_cost', label: 'Labor' },
      { key: 'occupancy_cost', label: 'Occupancy' },
      { key: 'utilities', label: 'Utilities' },
      { key: 'marketing', label: 'Marketing' },
      { key: 'other', label: 'Other operating' },
      { key: 'total_operating_expenses', label: 'Total operating expenses', total: true },
      { key: 'operating_income', label: 'Operating income', total: true },
      { key: 'operating_margin', label: 'Operating margin', percent: true },
    ],
  },
  {
    title: 'Net',
    lines: [
      { key: 'other_income', label: 'Other income' },
      { key: 'other_expenses', label: 'Other expenses' },
      { key: 'net_income', label: 'Net income', total: true },
      { key: 'net_margin', label: 'Net margin', percent: true },
    ],
  },
  {
    title: 'Ratios',
    lines: [
      { key: 'food_cost_percentage', label: 'Food cost of net revenue', percent: true },
      { key: 'labor_percentage', label: 'Labor of net revenue', percent: true },
    ],
  },
];

/** Costs are better lower; everything else (revenue, profit, margins) higher. */
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
  'other',
  'total_operating_expenses',
  'other_expenses',
]);

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * One set of figures from the statement's blocks; the custom report's operating block has no
 * `other` line, so it is what its total holds beyond the four named lines.
 */
export function mergeFigures(...parts: Array<Figures | undefined>): Figures {
  const figures: Figures = Object.assign({}, ...parts.filter(Boolean));
  const total = figures.total_operating_expenses;
  if (figures.other === undefined && total !== undefined) {
    const named = ['labor_cost', 'occupancy_cost', 'utilities', 'marketing'].map((k) => figures[k] ?? 0);
    figures.other = round2(total - named.reduce((a, b) => a + b, 0));
  }
  return figures;
}

export type MoneyFormat = (value: number | null | undefined) => string;

/** Money in the one currency the stores sell in; plain figures when it is unknown or mixed. */
export function moneyFormat(currencies: string[]): MoneyFormat {
  const [only] = currencies;
  if (currencies.length === 1 && only) return (value) => formatMoney(value, only);
  return (value) => formatNumber(value, 2);
}

/** API percents are percent numbers (32.5 is 32.5 %). */
export const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : formatPercent(value / 100, 1);

export const formatFigure = (money: MoneyFormat, value: number | null | undefined, isPercent?: boolean) =>
  isPercent ? percent(value) : money(value);

/** Compact axis labels: 12k, 1.2M. */
export function axisNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1_000_000) return `${formatNumber(value / 1_000_000, 1)}M`;
  if (abs >= 1_000) return `${formatNumber(value / 1_000, 0)}k`;
  return formatNumber(value, 0);
}

export interface Bars {
  data: uPlot.AlignedData;
  xLabels: string[];
  series: ChartSeries[];
}

/**
 * Grouped bars on the console's Chart: each category gets one slot per series plus a gap, every
 * series holds values only at its own slots, so the bars stand side by side instead of on top of
 * each other, and the edge slots stay empty so no bar is cut in half.
 */
export function groupedBars(
  categories: string[],
  series: Array<{ label: string; values: Array<number | null | undefined> }>,
): Bars {
  const width = series.length + 1;
  const slots = categories.length * width + 1;
  const x = Array.from({ length: slots }, (_, i) => i);
  const xLabels = x.map(() => '');
  categories.forEach((name, c) => {
    xLabels[c * width + Math.ceil(series.length / 2)] = name;
  });
  const ys = series.map((s, si) =>
    x.map((i) => {
      const c = Math.floor((i - 1) / width);
      const offset = (i - 1) % width;
      return i > 0 && offset === si && c < categories.length ? (s.values[c] ?? null) : null;
    }),
  );
  return {
    data: [x, ...ys],
    xLabels,
    series: series.map((s, i) => ({ label: s.label, stroke: PALETTE[i % PALETTE.length]!, bars: true })),
  };
}
