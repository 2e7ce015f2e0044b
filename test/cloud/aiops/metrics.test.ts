import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { type AiopsCloud, aiopsCloud, BASE, expectError, expectOk } from './aiops-cloud.ts';
import { plantedSeries, score, seeded } from './series.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(backends)('aiops metrics on %s', (backend) => {
  let context: AiopsCloud;
  beforeAll(async () => {
    context = await aiopsCloud(backend);
  });
  afterAll(() => context.cloud.close());

  it('finds planted anomalies through the store with precision and recall of at least 0.9', async () => {
    const { cloud, a } = context;
    const start = cloud.clock.now().getTime();
    const random = seeded(4242);
    const series = [0, 1, 2].map((s) =>
      plantedSeries(random, {
        metric: 'edge_temp',
        subject: `device-${s}`,
        start,
        stepMs: HOUR,
        count: 35 * 24,
        mean: 55 + 5 * s,
        std: 1.5 + s,
        rate: 0.05,
        warmupPoints: 48,
      }),
    );
    const planted = new Set<string>();
    for (const s of series)
      for (const p of s.points) if (p.planted) planted.add(`${s.subject}/${new Date(p.at).toISOString()}`);
    const detected = new Set<string>();
    // A day of every series per batch, with the clock at the batch's end, as a feed would send it.
    for (let day = 0; day < 35; day += 1) {
      cloud.clock.set(new Date(start + (day + 1) * DAY));
      const samples = series.flatMap((s) =>
        s.points.slice(day * 24, (day + 1) * 24).map((p) => ({
          metric: s.metric,
          subject: s.subject,
          at: new Date(p.at).toISOString(),
          value: p.value,
        })),
      );
      const result = await cloud.services.aiops.recordSamples(a.tenant.id, samples);
      expect(result.recorded).toBe(samples.length);
      for (const insight of result.anomalies) detected.add(`${insight.subject}/${insight.observed_at}`);
    }
    const figures = score(planted, detected);
    console.log(
      `detector (${backend}, recordSamples, 3 series × 840 hourly points, 5 % planted 4–8 σ spikes): precision ${figures.precision.toFixed(4)}, recall ${figures.recall.toFixed(4)} (${figures.truePositives} of ${figures.planted} planted, ${figures.detected} flagged)`,
    );
    expect(figures.planted).toBeGreaterThan(100);
    expect(figures.precision).toBeGreaterThanOrEqual(0.9);
    expect(figures.recall).toBeGreaterThanOrEqual(0.9);

    await context.advance(0);
    const page = expectOk(await context.adminA('GET', `${BASE}/insights?type=anomaly&limit=5`));
    expect(page.insights).toHaveLength(5);
    const insight = page.insights[0];
    expect(insight).toMatchObject({
      type: 'anomaly',
      metric: 'edge_temp',
      recommended_action: expect.any(String),
    });
    expect(['high', 'medium']).toContain(insight.severity);
    expect(Math.abs(insight.details.z_score)).toBeGreaterThanOrEqual(3);
    expect(insight.severity).toBe(Math.abs(insight.details.z_score) >= 6 ? 'high' : 'medium');
    expect(insight.baseline).toBeCloseTo(insight.details.mean, 3);
  }, 120_000);

  it('counts a resent sample once and folds anomalies of one series and hour into one insight', async () => {
    const { cloud, a } = context;
    const now = cloud.clock.now().getTime();
    const base = Array.from({ length: 40 }, (_, i) => ({
      metric: 'sync_queue_depth',
      subject: 'store-9',
      at: new Date(now - (40 - i) * 60_000).toISOString(),
      value: 10 + (i % 5),
    }));
    expect((await cloud.services.aiops.recordSamples(a.tenant.id, base)).recorded).toBe(40);
    const again = await cloud.services.aiops.recordSamples(a.tenant.id, base);
    expect(again).toMatchObject({ received: 40, recorded: 0, anomalies: [] });

    const spikes = [1, 2].map((s) => ({
      metric: 'sync_queue_depth',
      subject: 'store-9',
      at: new Date(now + s * 1000).toISOString(),
      value: 900,
    }));
    const result = await cloud.services.aiops.recordSamples(a.tenant.id, spikes);
    expect(result.anomalies).toHaveLength(2);
    expect(result.anomalies[1]!.id).toBe(result.anomalies[0]!.id);
    expect(result.anomalies[1]!.occurrences).toBe(2);
    expect(result.anomalies[1]!.severity).toBe('high');
  });

  it('answers 400 naming the sample field, and refuses more than 1000 samples', async () => {
    const now = context.cloud.clock.now();
    const sample = { metric: 'camera_fps', subject: 'cam-1', at: now.toISOString(), value: 15 };
    const future = new Date(now.getTime() + 3_600_000).toISOString();
    const error = expectError(
      await context.adminA('POST', `${BASE}/metrics`, { samples: [sample, { ...sample, at: future }] }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details).toEqual([{ field: 'body.samples.1.at', message: 'is in the future' }]);
    const old = new Date(now.getTime() - 31 * DAY).toISOString();
    expect(
      expectError(
        await context.adminA('POST', `${BASE}/metrics`, { samples: [{ ...sample, at: old }] }),
        400,
        'INVALID_REQUEST',
      ).details,
    ).toEqual([{ field: 'body.samples.0.at', message: 'is older than the 30-day baseline' }]);
    expectError(
      await context.adminA('POST', `${BASE}/metrics`, { samples: Array(1001).fill(sample) }),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await context.adminA('POST', `${BASE}/metrics`, { samples: [{ ...sample, unit: 'fps' }] }),
      400,
      'INVALID_REQUEST',
    );
    const ok = expectOk(await context.adminA('POST', `${BASE}/metrics`, { samples: [sample] }));
    expect(ok).toEqual({ received: 1, recorded: 1, anomalies: [], predictions: [] });
  });

  it('predicts a linearly filling disk and its hours until full, and nothing for noise', async () => {
    const { cloud } = context;
    const random = seeded(99);
    const start = cloud.clock.now().getTime();
    // 40 % used, 2 % an hour, a sample every 10 minutes for 12 hours, posted as a store would.
    for (let hour = 0; hour < 12; hour += 1) {
      await context.advance(HOUR);
      const samples = Array.from({ length: 6 }, (_, k) => {
        const i = hour * 6 + k + 1;
        return [
          {
            metric: 'edge_disk_used',
            subject: 'edge-1',
            at: new Date(start + i * 600_000).toISOString(),
            value: 40 + (2 * i) / 6 + 0.3 * random.normal(),
          },
          {
            metric: 'edge_disk_used',
            subject: 'edge-2',
            at: new Date(start + i * 600_000).toISOString(),
            value: 55 + 4 * random.normal(),
          },
        ];
      }).flat();
      expectOk(await context.adminA('POST', `${BASE}/metrics`, { samples }));
    }
    const { predictions } = expectOk(
      await context.adminA('GET', `${BASE}/predictions?metric=edge_disk_used`),
    );
    expect(predictions).toHaveLength(1);
    const [disk] = predictions;
    expect(disk).toMatchObject({ metric: 'edge_disk_used', subject: 'edge-1', trend: 'rising' });
    expect(disk.confidence).toBeGreaterThanOrEqual(0.8);
    expect(disk.rate).toBeCloseTo(2, 1);
    // 64 % used at the end: 18 hours left.
    expect(Math.abs(disk.hours_until_full - 18)).toBeLessThan(0.75);
    expect(Math.abs(Date.parse(disk.predicted_full) - (start + 30 * HOUR))).toBeLessThan(0.75 * HOUR);

    const { insights } = expectOk(await context.adminA('GET', `${BASE}/insights?type=prediction`));
    // One per series and forecast horizon, brought up to date; none for the noisy disk.
    expect(insights.length).toBeGreaterThanOrEqual(1);
    expect(insights.every((i: { subject: string }) => i.subject === 'edge-1')).toBe(true);
    expect(insights[0].occurrences).toBeGreaterThan(1);
    expect(insights[0]).toMatchObject({
      type: 'prediction',
      severity: 'medium',
      metric: 'edge_disk_used',
      subject: 'edge-1',
      predicted_value: 100,
    });
    expect(insights[0].details.confidence).toBeGreaterThanOrEqual(0.8);
    expect(Math.abs(Date.parse(insights[0].prediction_time) - (start + 30 * HOUR))).toBeLessThan(HOUR);
  });

  it('pages insights and filters them by since', async () => {
    const first = expectOk(await context.adminA('GET', `${BASE}/insights?limit=2`));
    const response = await context.adminA('GET', `${BASE}/insights?limit=2`);
    const cursor = response.json().meta.pagination.next_cursor;
    expect(cursor).toBe(first.insights[1].id);
    const second = expectOk(await context.adminA('GET', `${BASE}/insights?limit=2&cursor=${cursor}`));
    expect(second.insights[0].id < cursor).toBe(true);
    const since = context.cloud.clock.now().toISOString();
    expect(
      expectOk(await context.adminA('GET', `${BASE}/insights?since=${since}&type=anomaly`)).insights,
    ).toEqual([]);
    expectError(await context.adminA('GET', `${BASE}/insights?type=bogus`), 400, 'INVALID_REQUEST');
  });

  it('keeps each tenant’s samples, baselines and insights to itself', async () => {
    const { cloud, a, b } = context;
    expect(expectOk(await context.adminB('GET', `${BASE}/insights`)).insights).toEqual([]);
    expect(expectOk(await context.adminB('GET', `${BASE}/predictions`)).predictions).toEqual([]);
    // B's first samples of A's series are new to B, and judged against nothing of A's.
    const now = cloud.clock.now().toISOString();
    const result = await cloud.services.aiops.recordSamples(b.tenant.id, [
      { metric: 'edge_temp', subject: 'device-0', at: now, value: 500 },
    ]);
    expect(result).toMatchObject({ recorded: 1, anomalies: [] });
    const again = await cloud.services.aiops.recordSamples(a.tenant.id, [
      { metric: 'edge_temp', subject: 'device-0', at: now, value: 56 },
    ]);
    expect(again.recorded).toBe(1);
  });

  it('lets managers and admins in, refuses staff and the anonymous', async () => {
    expectOk(await context.managerA('GET', `${BASE}/insights`));
    expectError(await context.staffA('GET', `${BASE}/insights`), 403, 'FORBIDDEN');
    expect((await context.anonymous('GET', `${BASE}/insights`)).statusCode).toBe(401);
    expect((await context.anonymous('POST', `${BASE}/metrics`, { samples: [] })).statusCode).toBe(401);
  });

  it('prunes points after their retention, and rollups and insights past their windows', async () => {
    const { cloud, a } = context;
    const before = await cloud.services.aiops.prune();
    expect(before).toEqual({ groups: 0, hours: expect.any(Number), points: expect.any(Number), insights: 0 });
    cloud.clock.advance(100 * DAY);
    const removed = await cloud.services.aiops.prune();
    expect(removed.hours).toBeGreaterThan(0);
    expect(removed.points).toBeGreaterThan(0);
    expect(removed.insights).toBeGreaterThan(0);
    const left = await cloud.store.db
      .selectFrom('aiops_metric_hours')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });
});
