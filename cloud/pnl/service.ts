import type { Db } from '../db/index.ts';
import { addDays, daysBetween, daysInMonth, isDay, monthOf, weekStart } from './dates.ts';
import { pnlErrors, reportFailure } from './errors.ts';
import {
  BLOCK_FIELDS,
  blockOf,
  centsOf,
  isPercentMetric,
  LOWER_IS_BETTER,
  METRIC_NAMES,
  metricCatalog,
  metricsOf,
  money,
  percentOf,
  SECTIONS,
  type SectionType,
  SUMMARY_FIELDS,
  sectionFields,
  summaryOf,
  sumTotals,
  type Totals,
} from './figures.ts';
import { type PnlLocation, type Structure, sumOver, totalsByLocation } from './scope.ts';
import { ALL_LOCATIONS, createPnlReadStore } from './store.ts';

export interface Period {
  start_date: string;
  end_date: string;
}

export interface PnlServiceDeps {
  db: Db;
  structure: (tenantId: string) => Promise<Structure>;
}

export const GRANULARITIES = ['day', 'week', 'month'] as const;
export const GROUP_BY = ['brand', 'region', 'location'] as const;
export const FILTER_KEYS = ['region_id', 'brand_id', 'location_id', 'min_revenue'] as const;
/** Metrics a budget may set (currency metrics of the statement). */
export const BUDGET_METRICS = [
  'gross_revenue',
  'net_revenue',
  'food_cost',
  'beverage_cost',
  'total_cogs',
  'gross_profit',
  'labor_cost',
  'occupancy_cost',
  'utilities',
  'marketing',
  'total_operating_expenses',
  'operating_income',
  'net_income',
] as const;

export function checkPeriod(body: Period): Period {
  for (const field of ['start_date', 'end_date'] as const)
    if (!isDay(body[field]))
      throw pnlErrors.invalid(
        `Invalid ${field}: expected a calendar date in YYYY-MM-DD form, got '${body[field]}'`,
      );
  if (body.start_date > body.end_date) throw pnlErrors.invalid('start_date must not be after end_date');
  return { start_date: body.start_date, end_date: body.end_date };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export function createPnlService(deps: PnlServiceDeps) {
  const reads = createPnlReadStore(deps.db);

  async function totals(tenantId: string, structure: Structure, period: Period, byDay = false) {
    const [moneyRows, expenseRows] = await Promise.all([
      reads.money(tenantId, period.start_date, period.end_date, byDay),
      reads.expenses(tenantId, period.start_date, period.end_date, byDay),
    ]);
    return totalsByLocation(structure, moneyRows, expenseRows);
  }

  const requireBrand = (structure: Structure, id: string) => {
    const brand = structure.brands.find((b) => b.id === id);
    if (!brand) throw pnlErrors.brandNotFound(id);
    return brand;
  };
  const idsOf = (locations: PnlLocation[]) => locations.map((l) => l.id);
  const ofBrand = (structure: Structure, brandId: string) =>
    structure.locations.filter((l) => l.brand_id === brandId);

  async function budgetCents(tenantId: string, structure: Structure, brandIds: string[], period: Period) {
    const months = new Map<string, number>();
    for (let day = period.start_date; day <= period.end_date; day = addDays(day, 1))
      months.set(monthOf(day), (months.get(monthOf(day)) ?? 0) + 1);
    const rows = await reads.budgets(tenantId, [...months.keys()]);
    const cents = new Map<string, number>();
    const add = (amounts: string, fraction: number) => {
      for (const [metric, value] of Object.entries(JSON.parse(amounts) as Record<string, number>))
        cents.set(metric, (cents.get(metric) ?? 0) + Math.round(value * fraction));
    };
    for (const [month, days] of months) {
      const fraction = days / daysInMonth(month);
      for (const brandId of brandIds) {
        const own = rows.find((r) => r.month === month && r.brand_id === brandId);
        if (own) {
          add(own.amounts, fraction);
          continue;
        }
        const locations = new Set(idsOf(ofBrand(structure, brandId)));
        for (const row of rows)
          if (row.month === month && row.location_id && locations.has(row.location_id))
            add(row.amounts, fraction);
      }
    }
    return cents;
  }

  function priorComparison(current: Totals, prior: Totals) {
    const now = metricsOf(current);
    const before = metricsOf(prior);
    const nowCents = centsOf(current);
    const beforeCents = centsOf(prior);
    return Object.fromEntries(
      SUMMARY_FIELDS.map((metric) => {
        const change = isPercentMetric(metric)
          ? round2(now[metric]! - before[metric]!)
          : money(nowCents[metric]! - beforeCents[metric]!);
        return [
          metric,
          {
            current: now[metric]!,
            prior: before[metric]!,
            change,
            change_pct: percentOf(change, Math.abs(before[metric]!)),
          },
        ];
      }),
    );
  }

  async function consolidated(
    tenantId: string,
    body: Period & { brand_ids?: string[]; include_budget?: boolean; include_prior_period?: boolean },
  ) {
    const period = checkPeriod(body);
    const structure = await deps.structure(tenantId);
    const brandIds = body.brand_ids
      ? [...new Set(body.brand_ids)].map((id) => requireBrand(structure, id).id)
      : structure.brands.map((b) => b.id);
    return reportFailure('Failed to generate P&L', async () => {
      const byLocation = (await totals(tenantId, structure, period)).get('');
      const total = sumTotals(brandIds.map((id) => sumOver(byLocation, idsOf(ofBrand(structure, id)))));
      let budget_comparison = {};
      if (body.include_budget) {
        const cents = await budgetCents(tenantId, structure, brandIds, period);
        const actual = centsOf(total);
        budget_comparison = Object.fromEntries(
          BUDGET_METRICS.filter((m) => cents.has(m)).map((metric) => {
            const variance = actual[metric]! - cents.get(metric)!;
            return [
              metric,
              {
                actual: money(actual[metric]!),
                budget: money(cents.get(metric)!),
                variance: money(variance),
                variance_pct: percentOf(variance, Math.abs(cents.get(metric)!)),
              },
            ];
          }),
        );
      }
      let prior_period = {};
      if (body.include_prior_period) {
        const length = daysBetween(period.start_date, period.end_date);
        const before = {
          start_date: addDays(period.start_date, -length),
          end_date: addDays(period.start_date, -1),
        };
        const priorByLocation = (await totals(tenantId, structure, before)).get('');
        const prior = sumTotals(
          brandIds.map((id) => sumOver(priorByLocation, idsOf(ofBrand(structure, id)))),
        );
        prior_period = priorComparison(total, prior);
      }
      return {
        period,
        summary: summaryOf(total),
        budget_comparison,
        prior_period,
        brands_included: brandIds.length,
      };
    });
  }

  async function brand(tenantId: string, brandId: string, body: Period) {
    const period = checkPeriod(body);
    const structure = await deps.structure(tenantId);
    const found = requireBrand(structure, brandId);
    return reportFailure('Failed to generate brand P&L', async () => {
      const locations = ofBrand(structure, brandId);
      const total = sumOver((await totals(tenantId, structure, period)).get(''), idsOf(locations));
      return {
        brand_id: found.id,
        brand_name: found.name,
        period,
        summary: summaryOf(total),
        revenue: blockOf(total, BLOCK_FIELDS.revenue),
        cost_of_goods_sold: blockOf(total, BLOCK_FIELDS.cogs),
        operating_expenses: blockOf(total, BLOCK_FIELDS.operating_expenses),
        locations_count: locations.length,
      };
    });
  }

  async function region(tenantId: string, regionId: string, body: Period) {
    const period = checkPeriod(body);
    const structure = await deps.structure(tenantId);
    const found = structure.regions.find((r) => r.id === regionId);
    if (!found) throw pnlErrors.regionNotFound(regionId);
    return reportFailure('Failed to generate regional P&L', async () => {
      const locations = structure.locations.filter((l) => l.region_id === regionId);
      const total = sumOver((await totals(tenantId, structure, period)).get(''), idsOf(locations));
      return {
        region_id: found.id,
        region_name: found.name,
        period,
        summary: summaryOf(total),
        brands_in_region: new Set(locations.map((l) => l.brand_id)).size,
        locations_in_region: locations.length,
      };
    });
  }

  const checkMetrics = (metrics: string[]) => {
    for (const metric of metrics)
      if (!METRIC_NAMES.includes(metric))
        throw pnlErrors.invalid(`Unknown metric '${metric}'; must be one of ${METRIC_NAMES.join(', ')}`);
    return metrics;
  };

  async function compare(tenantId: string, body: Period & { brand_ids: string[]; metrics?: string[] }) {
    const period = checkPeriod(body);
    const brandIds = [...new Set(body.brand_ids)];
    if (brandIds.length < 2) throw pnlErrors.tooFewBrands();
    const metrics = body.metrics ? checkMetrics([...new Set(body.metrics)]) : METRIC_NAMES;
    const structure = await deps.structure(tenantId);
    const brands = brandIds.map((id) => requireBrand(structure, id));
    return reportFailure('Failed to compare brands', async () => {
      const byLocation = (await totals(tenantId, structure, period)).get('');
      const rows = brands.map((b) => {
        const values = metricsOf(sumOver(byLocation, idsOf(ofBrand(structure, b.id))));
        return {
          brand_id: b.id,
          brand_name: b.name,
          metrics: Object.fromEntries(metrics.map((m) => [m, values[m]!])),
        };
      });
      const rankings = Object.fromEntries(
        metrics.map((metric) => {
          const sign = LOWER_IS_BETTER.has(metric) ? 1 : -1;
          const ranked = [...rows].sort((a, b) => sign * (a.metrics[metric]! - b.metrics[metric]!));
          return [metric, ranked.map((r) => r.brand_id)];
        }),
      );
      return { period, brands: rows, rankings };
    });
  }

  function filterLocations(structure: Structure, filters: Record<string, unknown>) {
    for (const key of Object.keys(filters))
      if (!(FILTER_KEYS as readonly string[]).includes(key))
        throw pnlErrors.invalid(`Unknown filter '${key}'; accepted filters are ${FILTER_KEYS.join(', ')}`);
    const idFilter = (key: 'region_id' | 'brand_id' | 'location_id') => {
      const value = filters[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'string') throw pnlErrors.invalid(`filters.${key} must be a string id`);
      const known =
        key === 'brand_id'
          ? structure.brands.some((b) => b.id === value)
          : key === 'region_id'
            ? structure.regions.some((r) => r.id === value)
            : structure.locations.some((l) => l.id === value);
      if (!known)
        throw (
          key === 'brand_id'
            ? pnlErrors.brandNotFound
            : key === 'region_id'
              ? pnlErrors.regionNotFound
              : pnlErrors.locationNotFound
        )(value);
      return value;
    };
    const brandId = idFilter('brand_id');
    const regionId = idFilter('region_id');
    const locationId = idFilter('location_id');
    const minRevenue = filters.min_revenue;
    if (minRevenue !== undefined && (typeof minRevenue !== 'number' || !Number.isFinite(minRevenue)))
      throw pnlErrors.invalid('filters.min_revenue must be a number (net revenue in currency units)');
    const locations = structure.locations.filter(
      (l) =>
        (brandId === undefined || l.brand_id === brandId) &&
        (regionId === undefined || l.region_id === regionId) &&
        (locationId === undefined || l.id === locationId),
    );
    return { locations, minRevenue: minRevenue as number | undefined };
  }

  async function custom(
    tenantId: string,
    body: Period & {
      sections: SectionType[];
      group_by?: (typeof GROUP_BY)[number];
      filters?: Record<string, unknown>;
    },
  ) {
    const period = checkPeriod(body);
    if (body.sections.length === 0) throw pnlErrors.invalid('sections must name at least one section');
    const sections = [...new Set(body.sections)];
    const groupBy = body.group_by ?? 'brand';
    const structure = await deps.structure(tenantId);
    const { locations, minRevenue } = filterLocations(structure, body.filters ?? {});
    return reportFailure('Failed to generate custom report', async () => {
      const byLocation = (await totals(tenantId, structure, period)).get('');
      const entities =
        groupBy === 'brand'
          ? structure.brands
          : groupBy === 'region'
            ? structure.regions
            : structure.locations;
      const keyOf = (l: PnlLocation) =>
        groupBy === 'brand' ? l.brand_id : groupBy === 'region' ? l.region_id : l.id;
      const groups = entities
        .map((entity) => {
          const members = locations.filter((l) => keyOf(l) === entity.id);
          return { entity, members, totals: sumOver(byLocation, idsOf(members)) };
        })
        .filter((g) => g.members.length > 0)
        .filter((g) => minRevenue === undefined || money(centsOf(g.totals).net_revenue!) >= minRevenue);
      const blocks = (t: Totals) =>
        Object.fromEntries(sections.map((s) => [s, blockOf(t, sectionFields(s))]));
      return {
        period,
        group_by: groupBy,
        sections_included: sections,
        groups: groups.map((g) => ({
          group_key: g.entity.id,
          group_name: g.entity.name,
          ...blocks(g.totals),
        })),
        totals: blocks(sumTotals(groups.map((g) => g.totals))),
      };
    });
  }

  const bucketOf = (granularity: string, day: string, start: string) => {
    if (granularity === 'day') return day;
    const first = granularity === 'week' ? weekStart(day) : `${monthOf(day)}-01`;
    return first < start ? start : first;
  };

  function trendSummary(values: number[]) {
    const first = values[0] ?? 0;
    const last = values.at(-1) ?? 0;
    const change = last - first;
    const changePct = first === 0 ? 0 : round2((change / Math.abs(first)) * 100);
    const direction: 'up' | 'down' | 'flat' =
      first === 0
        ? change > 0
          ? 'up'
          : change < 0
            ? 'down'
            : 'flat'
        : changePct >= 1
          ? 'up'
          : changePct <= -1
            ? 'down'
            : 'flat';
    return {
      min: values.length ? Math.min(...values) : 0,
      max: values.length ? Math.max(...values) : 0,
      avg: values.length ? round2(values.reduce((a, b) => a + b, 0) / values.length) : 0,
      trend_direction: direction,
      change_pct: changePct,
    };
  }

  async function trend(
    tenantId: string,
    body: Period & { metric: string; granularity?: string; brand_id?: string },
  ) {
    const period = checkPeriod(body);
    const granularity = body.granularity ?? 'month';
    if (!(GRANULARITIES as readonly string[]).includes(granularity)) throw pnlErrors.granularity();
    const [metric] = checkMetrics([body.metric]) as [string];
    const structure = await deps.structure(tenantId);
    if (body.brand_id !== undefined) requireBrand(structure, body.brand_id);
    return reportFailure('Failed to get trend data', async () => {
      const locations = body.brand_id ? ofBrand(structure, body.brand_id) : structure.locations;
      // Money summed per day by the database; expenses shared per location as in every report.
      const [moneyRows, expenseRows] = await Promise.all([
        reads.moneyOfDays(tenantId, period.start_date, period.end_date, idsOf(locations)),
        reads.expenses(tenantId, period.start_date, period.end_date, true),
      ]);
      const byDay = totalsByLocation(structure, moneyRows, expenseRows);
      const members = [...idsOf(locations), ALL_LOCATIONS];
      const buckets = new Map<string, Totals[]>();
      for (let day = period.start_date; day <= period.end_date; day = addDays(day, 1)) {
        const bucket = bucketOf(granularity, day, period.start_date);
        const list = buckets.get(bucket) ?? [];
        list.push(sumOver(byDay.get(day), members));
        buckets.set(bucket, list);
      }
      const data_points = [...buckets].map(([date, list]) => ({
        date,
        value: metricsOf(sumTotals(list))[metric]!,
      }));
      return {
        metric,
        granularity,
        brand_id: body.brand_id ?? null,
        period,
        data_points,
        summary: trendSummary(data_points.map((p) => p.value)),
      };
    });
  }

  // Whatever fails while a report is worked out answers 500 with the endpoint's words.
  return {
    consolidated: (tenantId: string, body: Parameters<typeof consolidated>[1]) =>
      reportFailure('Failed to generate P&L', () => consolidated(tenantId, body)),
    brand: (tenantId: string, brandId: string, body: Period) =>
      reportFailure('Failed to generate brand P&L', () => brand(tenantId, brandId, body)),
    region: (tenantId: string, regionId: string, body: Period) =>
      reportFailure('Failed to generate regional P&L', () => region(tenantId, regionId, body)),
    compare: (tenantId: string, body: Parameters<typeof compare>[1]) =>
      reportFailure('Failed to compare brands', () => compare(tenantId, body)),
    custom: (tenantId: string, body: Parameters<typeof custom>[1]) =>
      reportFailure('Failed to generate custom report', () => custom(tenantId, body)),
    trend: (tenantId: string, body: Parameters<typeof trend>[1]) =>
      reportFailure('Failed to get trend data', () => trend(tenantId, body)),
    metrics: metricCatalog,
    sections: () => SECTIONS,
  };
}

export type PnlService = ReturnType<typeof createPnlService>;
