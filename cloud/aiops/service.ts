import type { Alert, AlertFired } from '../alerting/index.ts';
import { createAnalysis } from './analysis.ts';
import type { AiopsDeps } from './context.ts';
import { createCorrelation } from './correlation.ts';
import { insightView } from './insights.ts';
import { createMetrics, type MetricSample } from './metrics.ts';
import { HOUR_MS } from './stats.ts';
import * as store from './store.ts';
import type { InsightType } from './tables.ts';

const DAY_MS = 24 * HOUR_MS;
const rest = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : undefined);
const MAX_PREDICTED_SERIES = 100;

/**
 * AIOps in one service: samples in (judged on arrival), correlation of alerts as they fire, RCA,
 * insights, predictions and the debug view; a worker prunes what fell out of every window.
 */
export function createAiopsService(deps: AiopsDeps) {
  const { options, clock } = deps;
  const log = deps.log;
  const metrics = createMetrics(deps);
  const correlation = createCorrelation(deps);
  const analysis = createAnalysis(deps, correlation, metrics);
  let timer: NodeJS.Timeout | undefined;
  let pending = Promise.resolve();

  // One tenant's alerts are grouped by one pass at a time, so a burst joins one group instead of
  // racing to start several (across replicas two groups can still start; each alert joins one).
  // Alerts that fire while a pass runs or rests (passGapMs) wait for the next one together: an
  // alert after a quiet spell is grouped at once; in a storm each pass takes many.
  const waiting = new Map<string, { alerts: Alert[]; done: Promise<void> }>();
  const running = new Map<string, Promise<void>>();
  const lastPassAt = new Map<string, number>();
  const onFired = (event: AlertFired) => {
    const { tenantId } = event;
    const queued = waiting.get(tenantId);
    if (queued) {
      queued.alerts.push(event.alert);
      return queued.done;
    }
    const alerts = [event.alert];
    const done = (running.get(tenantId) ?? Promise.resolve())
      .then(() => rest((lastPassAt.get(tenantId) ?? 0) + options.correlation.passGapMs - Date.now()))
      .then(async () => {
        waiting.delete(tenantId);
        lastPassAt.set(tenantId, Date.now());
        await correlation
          .onFiredBatch(tenantId, alerts)
          .catch((error: unknown) =>
            log.error({ err: error, alerts: alerts.length }, 'alert correlation failed'),
          );
      });
    waiting.set(tenantId, { alerts, done });
    running.set(tenantId, done);
    void done.then(() => {
      if (running.get(tenantId) === done) running.delete(tenantId);
    });
    return done;
  };
  deps.alerting.onFired(onFired);

  async function prune() {
    const now = clock.now().getTime();
    const removed = await store.prune(deps.store.db, {
      hour: new Date(now - (options.anomaly.baselineDays + 1) * DAY_MS).toISOString(),
      point: new Date(now - options.rawRetentionHours * HOUR_MS).toISOString(),
      insight: new Date(now - options.insightRetentionDays * DAY_MS).toISOString(),
    });
    metrics.forgetPredictionsBefore(now - HOUR_MS);
    return removed;
  }

  return {
    /** Records samples and answers what they raised (see metrics.ts). */
    recordSamples: async (tenantId: string, samples: MetricSample[]) => {
      const result = await metrics.recordSamples(tenantId, samples);
      return {
        received: result.received,
        recorded: result.recorded,
        anomalies: result.anomalies.map(insightView),
        predictions: result.predictions.map(insightView),
      };
    },

    /**
     * For feeds observing another module inside its transaction: the samples are recorded after it,
     * in order; invalid ones are dropped and a failure is logged rather than failing the caller's
     * work. A resent sample counts once, so a push that rolled back and came again is harmless.
     */
    offer(tenantId: string, samples: MetricSample[]) {
      if (samples.length === 0) return;
      pending = pending
        .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
        .then(() => metrics.recordSamples(tenantId, samples, { lenient: true }))
        .then(
          () => undefined,
          (error: unknown) => log.error({ err: error, tenantId }, 'metric samples from a feed not recorded'),
        );
    },

    /** Resolves once every offered batch is recorded (tests, shutdown). */
    drain: () => pending,

    async insights(
      tenantId: string,
      filter: { type?: InsightType | undefined; since?: string | undefined; metric?: string | undefined },
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await store.insights(deps.store.db, tenantId, filter, {
        limit: page.limit + 1,
        before: page.cursor,
      });
      const items = rows.slice(0, page.limit).map(insightView);
      return { items, nextCursor: rows.length > page.limit ? items[items.length - 1]!.id : null };
    },

    /** Confident trend forecasts of the tenant's recent series (the prediction records). */
    async predictions(
      tenantId: string,
      filter: { metric?: string | undefined; subject?: string | undefined },
    ) {
      const from = new Date(clock.now().getTime() - options.prediction.trendHours * HOUR_MS).toISOString();
      const series = await store.recentSeries(deps.store.db, tenantId, from, filter, MAX_PREDICTED_SERIES);
      const out = [];
      for (const s of series) {
        const p = await metrics.predict(tenantId, s);
        if (!p?.confident) continue;
        const { confident: _c, trend_fit, limit: _l, ...record } = p;
        out.push({ ...record, points: trend_fit.points });
      }
      return out;
    },

    correlate: correlation.correlate,
    correlationGroup: correlation.group,
    dependencies: correlation.dependencies,
    putDependencies: correlation.putDependencies,
    /** Also subscribed to alerting.onFired; exposed for replays. */
    correlateFired: onFired,
    rca: analysis.rca,
    debug: analysis.debug,
    prune,

    start() {
      if (timer || !options.enabled) return;
      timer = setInterval(() => {
        prune().catch((error: unknown) => log.error({ err: error }, 'aiops pruning failed'));
      }, options.pruneIntervalMs);
      timer.unref();
    },

    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await pending;
      await Promise.all(running.values());
    },
  };
}

export type AiopsService = ReturnType<typeof createAiopsService>;
