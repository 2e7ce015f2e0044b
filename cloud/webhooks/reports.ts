import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../db/index.ts';
import type { WebhookInterface } from './catalog.ts';
import { deliveryNotFound } from './errors.ts';
import { attempts, deliveries } from './store.ts';
import type { Subscriptions } from './subscriptions.ts';
import type { DeliveryStatus, WebhookAttemptRow } from './tables.ts';

export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  event?: string | undefined;
  start_date?: string | undefined;
  end_date?: string | undefined;
}

export type StatsPeriod = 'hour' | 'day' | 'week' | 'month';
const PERIOD_MS: Record<StatsPeriod, number> = {
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

const rate = (part: number, whole: number) => (whole === 0 ? 0 : Number((part / whole).toFixed(4)));
const round = (value: number) => Math.round(value * 100) / 100;

/** The value at rank `fraction` of sorted latencies (nearest rank). */
function percentile(sorted: number[], fraction: number) {
  if (sorted.length === 0) return 0;
  return round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!);
}

function errorClasses(rows: WebhookAttemptRow[]) {
  const errors = { timeout: 0, connection_refused: 0, '5xx': 0 };
  for (const row of rows) {
    if (
      row.error_class === 'timeout' ||
      row.error_class === 'connection_refused' ||
      row.error_class === '5xx'
    )
      errors[row.error_class] += 1;
  }
  return errors;
}

function byEvent(rows: WebhookAttemptRow[]) {
  const groups = new Map<string, { count: number; ok: number }>();
  for (const row of rows) {
    const group = groups.get(row.event_type) ?? { count: 0, ok: 0 };
    group.count += 1;
    if (row.outcome === 'success') group.ok += 1;
    groups.set(row.event_type, group);
  }
  return [...groups].map(([event, g]) => ({ event, count: g.count, success_rate: rate(g.ok, g.count) }));
}

function byHour(rows: WebhookAttemptRow[]) {
  const groups = new Map<string, { count: number; ok: number }>();
  for (const row of rows) {
    const hour = `${row.started_at.slice(0, 13)}:00:00.000Z`;
    const group = groups.get(hour) ?? { count: 0, ok: 0 };
    group.count += 1;
    if (row.outcome === 'success') group.ok += 1;
    groups.set(hour, group);
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([hour, g]) => ({ hour, deliveries: g.count, success_rate: rate(g.ok, g.count) }));
}

/** Read models over the delivery log: lists, one delivery in full, the log, statistics. */
export function createReports(deps: { db: Db; clock: Clock; subscriptions: Subscriptions }) {
  const { db } = deps;

  function filtered(tenantId: string, webhookId: string, filter: DeliveryFilter) {
    return db
      .selectFrom('webhook_deliveries')
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', webhookId)
      .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
      .$if(filter.event !== undefined, (q) => q.where('event_type', '=', filter.event!))
      .$if(filter.start_date !== undefined, (q) => q.where('created_at', '>=', filter.start_date!))
      .$if(filter.end_date !== undefined, (q) => q.where('created_at', '<=', filter.end_date!));
  }

  return {
    async deliveries(
      tenantId: string,
      iface: WebhookInterface,
      webhookId: string,
      filter: DeliveryFilter,
      page: { page: number; limit: number },
    ) {
      await deps.subscriptions.get(tenantId, iface, webhookId);
      const [rows, count] = await Promise.all([
        filtered(tenantId, webhookId, filter)
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(page.limit)
          .offset((page.page - 1) * page.limit)
          .execute(),
        filtered(tenantId, webhookId, filter)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },

    async delivery(tenantId: string, deliveryId: string) {
      const row = await deliveries.get(db, tenantId, deliveryId);
      if (!row) throw deliveryNotFound();
      // A deleted webhook's deliveries stay readable with the URL they went to; the subscription
      // interface's deliveries are not the admin interface's to show.
      const subscription = await db
        .selectFrom('webhook_subscriptions')
        .select(['url', 'interface'])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', row.webhook_id)
        .executeTakeFirst();
      if (subscription?.interface !== 'admin') throw deliveryNotFound();
      const last = await attempts.last(db, tenantId, deliveryId);
      return { row, url: subscription.url, last };
    },

    async logs(
      tenantId: string,
      webhookId: string,
      filter: {
        level?: 'info' | 'warning' | 'error' | undefined;
        start_date?: string | undefined;
        limit: number;
      },
    ) {
      await deps.subscriptions.get(tenantId, 'admin', webhookId);
      const lifecycle = await db
        .selectFrom('webhook_logs')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .$if(filter.level !== undefined, (q) => q.where('level', '=', filter.level!))
        .$if(filter.start_date !== undefined, (q) => q.where('at', '>=', filter.start_date!))
        .orderBy('at', 'desc')
        .limit(filter.limit)
        .execute();
      const tries = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .$if(filter.start_date !== undefined, (q) => q.where('started_at', '>=', filter.start_date!))
        .$if(filter.level === 'info', (q) => q.where('outcome', '=', 'success'))
        .$if(filter.level === 'warning', (q) =>
          q.where('outcome', '!=', 'success').where('retry_at', 'is not', null),
        )
        .$if(filter.level === 'error', (q) =>
          q.where('outcome', '!=', 'success').where('retry_at', 'is', null),
        )
        .orderBy('started_at', 'desc')
        .limit(filter.limit)
        .execute();
      return { lifecycle, attempts: tries };
    },

    async stats(tenantId: string, webhookId: string, period: StatsPeriod) {
      await deps.subscriptions.get(tenantId, 'admin', webhookId);
      const since = new Date(deps.clock.now().getTime() - PERIOD_MS[period]).toISOString();
      const rows = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .where('started_at', '>=', since)
        .where('outcome', '!=', 'interrupted')
        .execute();
      const latencies = rows.map((row) => row.latency_ms ?? 0).sort((a, b) => a - b);
      const successful = rows.filter((row) => row.outcome === 'success').length;
      return {
        webhook_id: webhookId,
        period,
        summary: {
          total_deliveries: rows.length,
          successful,
          failed: rows.length - successful,
          success_rate: rate(successful, rows.length),
          avg_latency_ms: round(
            latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length),
          ),
          p95_latency_ms: percentile(latencies, 0.95),
          p99_latency_ms: percentile(latencies, 0.99),
        },
        by_event: byEvent(rows),
        by_hour: byHour(rows),
        errors: errorClasses(rows),
      };
    },

    /** The figures a subscription shows in lists (24 h) and in its detail (all time). */
    async summary(tenantId: string, webhookId: string, windowMs?: number) {
      const since =
        windowMs === undefined ? undefined : new Date(deps.clock.now().getTime() - windowMs).toISOString();
      const row = await db
        .selectFrom('webhook_attempts')
        .select((eb) => [
          eb.fn.countAll<number>().as('total'),
          eb.fn.sum<number>(eb.case().when('outcome', '=', 'success').then(1).else(0).end()).as('ok'),
          eb.fn.avg<number>('latency_ms').as('avg'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .where('outcome', '!=', 'interrupted')
        .$if(since !== undefined, (q) => q.where('started_at', '>=', since!))
        .executeTakeFirstOrThrow();
      const total = Number(row.total);
      const ok = Number(row.ok ?? 0);
      return {
        total,
        ok,
        failed: total - ok,
        successRate: rate(ok, total),
        avgLatency: round(Number(row.avg ?? 0)),
      };
    },
  };
}

export type Reports = ReturnType<typeof createReports>;
