import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedTenant } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { member } from '../devices/device-client.ts';
import { type AiopsCloud, aiopsCloud, BASE, expectError, expectOk } from './aiops-cloud.ts';
import { plantedSeries, score, seeded } from './series.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let tenants = 0;
/** A tenant of its own, with an admin signed in at the clock's time who can sign in again after it moves. */
async function ownTenant(context: AiopsCloud) {
  const slug = `metrics-${++tenants}`;
  const { tenant } = await seedTenant(context.cloud.services, slug);
  const admin = await member(context.cloud, tenant.id, `admin@${slug}.test`, ['tenant_admin']);
  return { tenantId: tenant.id, admin: admin.call, refresh: admin.refresh };
}
type OwnTenant = Awaited<ReturnType<typeof ownTenant>>;

describe.each(backends)('aiops metrics on %s', (backend) => {
  let context: AiopsCloud;
  beforeAll(async () => {
    context = await aiopsCloud(backend);
  });
  afterAll(() => context.cloud.close());
  // Each test on a tenant of its own: series, insights and predictions are kept per tenant, so a
  // test counts and lists only what it recorded; its admin signs in at the clock's time, which
  // other tests move by hours and days.
  let t: OwnTenant;
  beforeEach(async () => {
    t = await ownTenant(context);
  });
  /** Moves the clock; the test's admin signs in again (access tokens live an hour). */
  const advance = async (ms: number) => {
    context.cloud.clock.advance(ms);
    await t.refresh();
  };

  /**
   * Forty minutes of a steady series, then a spike a minute before the clock's time: one anomaly
   * insight, with the series' points and hourly rollups behind it.
   */
  async function raiseAnomaly(tenantId: string, metric: string, subject: string, level: number) {
    const { aiops } = context.cloud.services;
    const now = context.cloud.clock.now().getTime();
    const at = (minutesAgo: number) => new Date(now - minutesAgo * MINUTE).toISOString();
    const steady = Array.from({ length: 40 }, (_, i) => ({
      metric,
      subject,
      at: at(41 - i),
      value: level + (i % 5),
    }));
    expect((await aiops.recordSamples(tenantId, steady)).recorded).toBe(40);
    const { anomalies } = await aiops.recordSamples(tenantId, [
      { metric, subject, at: at(1), value: level * 90 },
    ]);
    expect(anomalies).toHaveLength(1);
    return anomalies[0]!;
  }

  it('finds planted anomalies through the store with precision and recall of at least 0.9', async () => {
    const { cloud } = context;
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
      const result = await cloud.services.aiops.recordSamples(t.tenantId, samples);
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

    await advance(0);
    const page = expectOk(await t.admin('GET', `${BASE}/insights?type=anomaly&limit=5`));
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
    const { cloud } = context;
    const now = cloud.clock.now().getTime();
    const base = Array.from({ length: 40 }, (_, i) => ({
      metric: 'sync_queue_depth',
      subject: 'store-9',
      at: new Date(now - (40 - i) * 60_000).toISOString(),
      value: 10 + (i % 5),
    }));
    expect((await cloud.services.aiops.recordSamples(t.tenantId, base)).recorded).toBe(40);
    const again = await cloud.services.aiops.recordSamples(t.tenantId, base);
    expect(again).toMatchObject({ received: 40, recorded: 0, anomalies: [] });

    const spikes = [1, 2].map((s) => ({
      metric: 'sync_queue_depth',
      subject: 'store-9',
      at: new Date(now + s * 1000).toISOString(),
      value: 900,
    }));
    const result = await cloud.services.aiops.recordSamples(t.tenantId, spikes);
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
      await t.admin('POST', `${BASE}/metrics`, { samples: [sample, { ...sample, at: future }] }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details).toEqual([{ field: 'body.samples.1.at', message: 'is in the future' }]);
    const old = new Date(now.getTime() - 31 * DAY).toISOString();
    expect(
      expectError(
        await t.admin('POST', `${BASE}/metrics`, { samples: [{ ...sample, at: old }] }),
        400,
        'INVALID_REQUEST',
      ).details,
    ).toEqual([{ field: 'body.samples.0.at', message: 'is older than the 30-day baseline' }]);
    expectError(
      await t.admin('POST', `${BASE}/metrics`, { samples: Array(1001).fill(sample) }),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await t.admin('POST', `${BASE}/metrics`, { samples: [{ ...sample, unit: 'fps' }] }),
      400,
      'INVALID_REQUEST',
    );
    const ok = expectOk(await t.admin('POST', `${BASE}/metrics`, { samples: [sample] }));
    expect(ok).toEqual({ received: 1, recorded: 1, anomalies: [], predictions: [] });
  });

  it('predicts a linearly filling disk and its hours until full, and nothing for noise', async () => {
    const { cloud } = context;
    const random = seeded(99);
    const start = cloud.clock.now().getTime();
    // 40 % used, 2 % an hour, a sample every 10 minutes for 12 hours, posted as a store would.
    for (let hour = 0; hour < 12; hour += 1) {
      await advance(HOUR);
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
      expectOk(await t.admin('POST', `${BASE}/metrics`, { samples }));
    }
    const { predictions } = expectOk(await t.admin('GET', `${BASE}/predictions?metric=edge_disk_used`));
    expect(predictions).toHaveLength(1);
    const [disk] = predictions;
    expect(disk).toMatchObject({ metric: 'edge_disk_used', subject: 'edge-1', trend: 'rising' });
    expect(disk.confidence).toBeGreaterThanOrEqual(0.8);
    expect(disk.rate).toBeCloseTo(2, 1);
    // 64 % used at the end: 18 hours left.
    expect(Math.abs(disk.hours_until_full - 18)).toBeLessThan(0.75);
    expect(Math.abs(Date.parse(disk.predicted_full) - (start + 30 * HOUR))).toBeLessThan(0.75 * HOUR);

    const { insights } = expectOk(await t.admin('GET', `${BASE}/insights?type=prediction`));
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
    // Three insights, one per store: more than a page of two.
    const raisedAt = context.cloud.clock.now().toISOString();
    for (const store of ['store-1', 'store-2', 'store-3'])
      await raiseAnomaly(t.tenantId, 'sync_queue_depth', store, 10);
    const first = expectOk(await t.admin('GET', `${BASE}/insights?limit=2`));
    const response = await t.admin('GET', `${BASE}/insights?limit=2`);
    const cursor = response.json().meta.pagination.next_cursor;
    expect(cursor).toBe(first.insights[1].id);
    const second = expectOk(await t.admin('GET', `${BASE}/insights?limit=2&cursor=${cursor}`));
    expect(second.insights[0].id < cursor).toBe(true);
    // A minute on, nothing was raised or updated since; since before they were raised, all three.
    await advance(MINUTE);
    const since = async (from: string) =>
      expectOk(await t.admin('GET', `${BASE}/insights?since=${from}&type=anomaly`)).insights;
    expect(await since(context.cloud.clock.now().toISOString())).toEqual([]);
    expect(await since(raisedAt)).toHaveLength(3);
    expectError(await t.admin('GET', `${BASE}/insights?type=bogus`), 400, 'INVALID_REQUEST');
  });

  it('keeps each tenant’s samples, baselines and insights to itself', async () => {
    const { cloud } = context;
    // A (this test's tenant) has a baseline and an anomaly on a device, and a disk filling over
    // the last 12 hours; B is a tenant of its own too.
    const a = t;
    const b = await ownTenant(context);
    await raiseAnomaly(a.tenantId, 'edge_temp', 'device-0', 55);
    const start = cloud.clock.now().getTime() - 12 * HOUR;
    const filling = Array.from({ length: 72 }, (_, i) => ({
      metric: 'edge_disk_used',
      subject: 'edge-1',
      at: new Date(start + (i + 1) * 10 * MINUTE).toISOString(),
      value: 40 + (2 * (i + 1)) / 6,
    }));
    expect((await cloud.services.aiops.recordSamples(a.tenantId, filling)).recorded).toBe(72);
    expect(expectOk(await a.admin('GET', `${BASE}/insights`)).insights).not.toEqual([]);
    expect(expectOk(await a.admin('GET', `${BASE}/predictions`)).predictions).toHaveLength(1);

    expect(expectOk(await b.admin('GET', `${BASE}/insights`)).insights).toEqual([]);
    expect(expectOk(await b.admin('GET', `${BASE}/predictions`)).predictions).toEqual([]);
    // B's first samples of A's series are new to B, and judged against nothing of A's.
    const now = cloud.clock.now().toISOString();
    const result = await cloud.services.aiops.recordSamples(b.tenantId, [
      { metric: 'edge_temp', subject: 'device-0', at: now, value: 500 },
    ]);
    expect(result).toMatchObject({ recorded: 1, anomalies: [] });
    const again = await cloud.services.aiops.recordSamples(a.tenantId, [
      { metric: 'edge_temp', subject: 'device-0', at: now, value: 56 },
    ]);
    expect(again.recorded).toBe(1);
  });

  it('lets managers and admins in, refuses staff and the anonymous', async () => {
    // Signed in again at the clock's time, however far earlier tests moved it.
    await context.advance(0);
    expectOk(await context.managerA('GET', `${BASE}/insights`));
    expectError(await context.staffA('GET', `${BASE}/insights`), 403, 'FORBIDDEN');
    expect((await context.anonymous('GET', `${BASE}/insights`)).statusCode).toBe(401);
    expect((await context.anonymous('POST', `${BASE}/metrics`, { samples: [] })).statusCode).toBe(401);
  });

  it('prunes points after their retention, and rollups and insights past their windows', async () => {
    const { cloud } = context;
    await raiseAnomaly(t.tenantId, 'camera_fps', 'cam-1', 15);
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
      .where('tenant_id', '=', t.tenantId)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });
});
