/** The aiops tables. Every query takes the tenant first; numbers are converted here only. */
import { type Expression, sql } from 'kysely';
import type { Db } from '../db/index.ts';
import type { Moments } from './stats.ts';
import type { AiopsInsightRow, AiopsMetricHourRow, AiopsMetricPointRow, InsightType } from './tables.ts';

const CHUNK = 400;

export interface Series {
  metric: string;
  subject: string;
}

export const chunks = <T>(items: readonly T[], size = CHUNK) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** Inserts the points not stored yet and returns those: a resent sample counts once. */
export async function insertNewPoints(db: Db, rows: AiopsMetricPointRow[]) {
  const inserted: AiopsMetricPointRow[] = [];
  for (const chunk of chunks(rows)) {
    const result = await db
      .insertInto('aiops_metric_points')
      .values(chunk)
      .onConflict((c) => c.columns(['tenant_id', 'metric', 'subject', 'at']).doNothing())
      .returningAll()
      .execute();
    inserted.push(...result.map((row) => ({ ...row, value: Number(row.value) })));
  }
  return inserted;
}

/** The summed moments of each series' hours from `fromHour` on. */
export async function moments(db: Db, tenantId: string, series: Series[], fromHour: string) {
  const found = new Map<string, Moments>();
  for (const chunk of chunks(series, 100)) {
    const rows = await db
      .selectFrom('aiops_metric_hours')
      .select((eb) => [
        'metric',
        'subject',
        eb.fn.sum<number>('count').as('count'),
        eb.fn.sum<number>('sum').as('sum'),
        eb.fn.sum<number>('sum_sq').as('sum_sq'),
      ])
      .where('tenant_id', '=', tenantId)
      .where('hour', '>=', fromHour)
      .where((eb) =>
        eb.or(chunk.map((s) => eb.and([eb('metric', '=', s.metric), eb('subject', '=', s.subject)]))),
      )
      .groupBy(['metric', 'subject'])
      .execute();
    for (const row of rows)
      found.set(seriesKey(row), {
        count: Number(row.count),
        sum: Number(row.sum),
        sumSq: Number(row.sum_sq),
      });
  }
  return found;
}

export const seriesKey = (s: Series) => `${s.metric}\u0000${s.subject}`;

const smaller = (a: Expression<number>, b: Expression<number>) =>
  sql<number>`case when ${a} < ${b} then ${a} else ${b} end`;
const larger = (a: Expression<number>, b: Expression<number>) =>
  sql<number>`case when ${a} > ${b} then ${a} else ${b} end`;

/** Adds each row's moments to its hour (one statement per chunk, atomic per row on either database). */
export async function addHours(db: Db, rows: AiopsMetricHourRow[]) {
  for (const chunk of chunks(rows, 200))
    await db
      .insertInto('aiops_metric_hours')
      .values(chunk)
      .onConflict((c) =>
        c.columns(['tenant_id', 'metric', 'subject', 'hour']).doUpdateSet((eb) => ({
          count: eb('aiops_metric_hours.count', '+', eb.ref('excluded.count')),
          sum: eb('aiops_metric_hours.sum', '+', eb.ref('excluded.sum')),
          sum_sq: eb('aiops_metric_hours.sum_sq', '+', eb.ref('excluded.sum_sq')),
          min: smaller(eb.ref('excluded.min'), eb.ref('aiops_metric_hours.min')),
          max: larger(eb.ref('excluded.max'), eb.ref('aiops_metric_hours.max')),
        })),
      )
      .execute();
}

/** A series' points from `fromIso` on, oldest first. */
export async function points(db: Db, tenantId: string, series: Series, fromIso: string, limit = 20_000) {
  const rows = await db
    .selectFrom('aiops_metric_points')
    .select(['at', 'value'])
    .where('tenant_id', '=', tenantId)
    .where('metric', '=', series.metric)
    .where('subject', '=', series.subject)
    .where('at', '>=', fromIso)
    .orderBy('at', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse().map((row) => ({ at: Date.parse(row.at), value: Number(row.value) }));
}

/** Series with points since `fromIso`, optionally of one metric or subject. */
export const recentSeries = (
  db: Db,
  tenantId: string,
  fromIso: string,
  filter: { metric?: string | undefined; subject?: string | undefined },
  limit: number,
) =>
  db
    .selectFrom('aiops_metric_points')
    .select(['metric', 'subject'])
    .distinct()
    .where('tenant_id', '=', tenantId)
    .where('at', '>=', fromIso)
    .$if(filter.metric !== undefined, (q) => q.where('metric', '=', filter.metric!))
    .$if(filter.subject !== undefined, (q) => q.where('subject', '=', filter.subject!))
    .orderBy('metric')
    .orderBy('subject')
    .limit(limit)
    .execute();

/** Series of these subjects with hours since `fromHour` (what a debug view shows baselines of). */
export const seriesOfSubjects = (
  db: Db,
  tenantId: string,
  subjects: string[],
  fromHour: string,
  limit: number,
) =>
  subjects.length === 0
    ? Promise.resolve([] as Series[])
    : db
        .selectFrom('aiops_metric_hours')
        .select(['metric', 'subject'])
        .distinct()
        .where('tenant_id', '=', tenantId)
        .where('subject', 'in', subjects)
        .where('hour', '>=', fromHour)
        .orderBy('metric')
        .orderBy('subject')
        .limit(limit)
        .execute();

const NUMERIC_INSIGHT_FIELDS = ['current_value', 'baseline', 'predicted_value', 'alert_count'] as const;

export function fromInsightRow(row: AiopsInsightRow): AiopsInsightRow {
  const copy = { ...row, occurrences: Number(row.occurrences) };
  for (const field of NUMERIC_INSIGHT_FIELDS) if (copy[field] !== null) copy[field] = Number(copy[field]);
  return copy;
}

/**
 * Records the insight, or, when one with its key exists, brings that one up to date and counts
 * the repeat: one statement, so concurrent judges still leave one insight per key.
 */
export async function upsertInsight(db: Db, row: AiopsInsightRow) {
  const saved = await db
    .insertInto('aiops_insights')
    .values(row)
    .onConflict((c) =>
      c.columns(['tenant_id', 'dedupe_key']).doUpdateSet((eb) => ({
        occurrences: eb('aiops_insights.occurrences', '+', 1),
        severity: eb.ref('excluded.severity'),
        description: eb.ref('excluded.description'),
        current_value: eb.ref('excluded.current_value'),
        baseline: eb.ref('excluded.baseline'),
        predicted_value: eb.ref('excluded.predicted_value'),
        prediction_time: eb.ref('excluded.prediction_time'),
        alert_count: eb.ref('excluded.alert_count'),
        probable_cause: eb.ref('excluded.probable_cause'),
        details: eb.ref('excluded.details'),
        observed_at: eb.ref('excluded.observed_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return fromInsightRow(saved);
}

export interface InsightFilter {
  type?: InsightType | undefined;
  since?: string | undefined;
  metric?: string | undefined;
}

/** Newest first; `before` is the last id of the previous page (ids are time-ordered). */
export async function insights(
  db: Db,
  tenantId: string,
  filter: InsightFilter,
  page: { limit: number; before?: string | undefined },
) {
  const rows = await db
    .selectFrom('aiops_insights')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.type !== undefined, (q) => q.where('type', '=', filter.type!))
    .$if(filter.metric !== undefined, (q) => q.where('metric', '=', filter.metric!))
    .$if(filter.since !== undefined, (q) => q.where('updated_at', '>=', filter.since!))
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map(fromInsightRow);
}

/** Anomaly insights observed in [from, to] on any of the subjects. */
export async function anomaliesAround(
  db: Db,
  tenantId: string,
  subjects: string[],
  from: string,
  to: string,
) {
  if (subjects.length === 0) return [];
  const rows = await db
    .selectFrom('aiops_insights')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('type', '=', 'anomaly')
    .where('observed_at', '>=', from)
    .where('observed_at', '<=', to)
    .where('subject', 'in', subjects)
    .orderBy('observed_at')
    .limit(200)
    .execute();
  return rows.map(fromInsightRow);
}

/** Deletes what fell out of every window, across tenants (the pruning worker). */
export async function prune(db: Db, before: { hour: string; point: string; insight: string }) {
  const hours = await db.deleteFrom('aiops_metric_hours').where('hour', '<', before.hour).executeTakeFirst();
  const points = await db.deleteFrom('aiops_metric_points').where('at', '<', before.point).executeTakeFirst();
  const insights = await db
    .deleteFrom('aiops_insights')
    .where('updated_at', '<', before.insight)
    .executeTakeFirst();
  const stale = db
    .selectFrom('aiops_correlation_groups')
    .select('id')
    .where('updated_at', '<', before.insight);
  await db.deleteFrom('aiops_correlation_members').where('group_id', 'in', stale).execute();
  const groups = await db
    .deleteFrom('aiops_correlation_groups')
    .where('updated_at', '<', before.insight)
    .executeTakeFirst();
  return {
    groups: Number(groups.numDeletedRows),
    hours: Number(hours.numDeletedRows),
    points: Number(points.numDeletedRows),
    insights: Number(insights.numDeletedRows),
  };
}
