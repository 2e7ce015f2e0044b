import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiopsService } from '../../../cloud/aiops/index.ts';
import { newId } from '../../../shared/ids.ts';
import { backends } from '../../support/stores.ts';
import {
  type AiopsCloud,
  aiopsCloud,
  BASE,
  expectError,
  expectOk,
  raise,
  type SoloTenant,
} from './aiops-cloud.ts';

const MINUTE = 60_000;
const quietLog = { child: () => quietLog, error: () => {}, info: () => {}, debug: () => {}, warn: () => {} };

describe.each(backends)('aiops correlation and RCA on %s', (backend) => {
  let context: AiopsCloud;
  beforeAll(async () => {
    context = await aiopsCloud(backend);
  });
  afterAll(() => context.cloud.close());
  // Each test on a tenant of its own: insights and groups are counted per tenant.
  let t: SoloTenant;
  beforeEach(async () => {
    t = await context.soloTenant();
  });

  /** The planted chain at one store: the database, sync a minute later, the appliance 2.5 minutes in. */
  async function plantChain(device: string) {
    const { cloud } = context;
    const { a } = t;
    // A label of its own per chain: the same alert again would fold into the open one.
    const labels = { location_id: a.location.id, chain: device };
    const database = await raise(cloud, a.tenant.id, 'database', labels, { severity: 'P1' });
    cloud.clock.advance(MINUTE);
    const sync = await raise(cloud, a.tenant.id, 'sync', labels);
    cloud.clock.advance(1.5 * MINUTE);
    const appliance = await raise(cloud, a.tenant.id, 'appliance', { ...labels, device_id: device });
    await cloud.services.alerting.settled();
    return { database, sync, appliance };
  }

  it('correlates the chain, blames the database and groups the alerts as they fire', async () => {
    const { database, sync, appliance } = await plantChain('edge-7');
    await context.advance(0);
    const { correlation } = expectOk(
      await t.adminA('POST', `${BASE}/correlate`, { alert_ids: [appliance.id, sync.id, database.id] }),
    );
    expect(correlation).toMatchObject({
      is_correlated: true,
      root_cause_alert: database.id,
      dependency_chain: ['database', 'sync', 'appliance'],
      probable_cause: 'database failure: database is unhealthy, cascading to sync → appliance',
    });
    expect(correlation.correlation_score).toBeGreaterThanOrEqual(0.7);

    const { insights } = expectOk(await t.adminA('GET', `${BASE}/insights?type=correlation`));
    expect(insights).toHaveLength(1);
    expect(insights[0]).toMatchObject({ type: 'correlation', severity: 'high', alert_count: 3 });
    const group = expectOk(await t.adminA('GET', `${BASE}/correlations/${insights[0].correlation_id}`));
    expect(group).toMatchObject({
      root_cause_alert: database.id,
      dependency_chain: ['database', 'sync', 'appliance'],
    });
    expect(
      Object.fromEntries(
        group.correlated_alerts.map((m: { alert_id: string; relationship: string }) => [
          m.alert_id,
          m.relationship,
        ]),
      ),
    ).toEqual({ [database.id]: 'root_cause', [sync.id]: 'downstream', [appliance.id]: 'downstream' });
  });

  it('scores an unrelated pair below 0.7', async () => {
    const { cloud } = context;
    const { a } = t;
    await context.advance(10 * MINUTE);
    const payments = await raise(cloud, a.tenant.id, 'payments', { location_id: a.location.id });
    cloud.clock.advance(MINUTE);
    const chat = await raise(cloud, a.tenant.id, 'chat', { location_id: 'elsewhere' });
    await cloud.services.alerting.settled();
    const { correlation } = expectOk(
      await t.adminA('POST', `${BASE}/correlate`, { alert_ids: [payments.id, chat.id] }),
    );
    expect(correlation.is_correlated).toBe(false);
    expect(correlation.correlation_score).toBeLessThan(0.7);
    expect(correlation.root_cause_alert).toBeNull();
    // Nor did they group as they fired.
    const { insights } = expectOk(await t.adminA('GET', `${BASE}/insights?type=correlation`));
    expect(insights).toEqual([]);
  });

  it('ranks the upstream database first in RCA, with the metric anomaly at the device as evidence', async () => {
    const { cloud } = context;
    const { a } = t;
    await context.advance(30 * MINUTE);
    const start = cloud.clock.now().getTime();
    // Half an hour of a steady disk on the appliance's device, then a spike a minute before its alert.
    const steady = Array.from({ length: 40 }, (_, i) => ({
      metric: 'edge_gpu_util',
      subject: 'edge-8',
      at: new Date(start - (40 - i) * 45_000).toISOString(),
      value: 50 + (i % 4),
    }));
    await cloud.services.aiops.recordSamples(a.tenant.id, steady);
    const spike = await cloud.services.aiops.recordSamples(a.tenant.id, [
      { metric: 'edge_gpu_util', subject: 'edge-8', at: new Date(start).toISOString(), value: 99 },
    ]);
    expect(spike.anomalies).toHaveLength(1);
    cloud.clock.advance(MINUTE);
    const { database, appliance } = await plantChain('edge-8');
    await context.advance(0);

    const rca = expectOk(await t.adminA('GET', `${BASE}/rca/${appliance.id}`));
    expect(rca).toMatchObject({ incident_id: appliance.id, alert_id: appliance.id });
    expect(rca.analysis_time_ms).toBeGreaterThanOrEqual(0);
    const [first] = rca.probable_causes;
    expect(first).toMatchObject({ rank: 1, cause: 'database failure upstream: database is unhealthy' });
    expect(first.evidence[0]).toContain(`alert ${database.id}`);
    expect(first.evidence).toContain('dependency chain: database → sync → appliance');
    expect(first.evidence).toContain(`shared labels: location_id=${a.location.id}, chain=edge-8`);
    const anomaly = rca.probable_causes.find(
      (c: { cause: string }) => c.cause === 'edge_gpu_util anomaly on edge-8',
    );
    expect(anomaly.evidence[0]).toMatch(/^metric edge_gpu_util on edge-8 read 99 at .* z = \d+/);
    expect(rca.probable_causes.map((c: { rank: number }) => c.rank)).toEqual(
      rca.probable_causes.map((_: unknown, i: number) => i + 1),
    );

    const debug = expectOk(
      await t.adminA('POST', `${BASE}/debug`, {
        alert_id: appliance.id,
        debug_options: { show_baseline: true, show_ml_scores: true, show_correlation_factors: true },
      }),
    );
    expect(debug.baselines).toEqual([
      expect.objectContaining({ metric: 'edge_gpu_util', subject: 'edge-8', samples: 41, window_days: 30 }),
    ]);
    expect(debug.ml_scores[0]).toMatchObject({ metric: 'edge_gpu_util', latest_value: 99 });
    expect(debug.ml_scores[0].z_score).toBeGreaterThan(3);
    const pairs = debug.correlation_factors.pairs;
    expect(pairs.find((p: { alert_id: string }) => p.alert_id === database.id)).toMatchObject({
      dependency: 1,
      dependency_path: ['appliance', 'sync', 'database'],
      labels: 1,
    });
    expect(debug.correlation_factors.group).toMatchObject({
      is_correlated: true,
      root_cause_alert: database.id,
    });
    const bare = expectOk(await t.adminA('POST', `${BASE}/debug`, { alert_id: appliance.id }));
    expect(Object.keys(bare).sort()).toEqual(['alert_id', 'service', 'settings', 'started_at', 'subjects']);
  });

  it('takes an incident id through the incident’s alert', async () => {
    const { cloud } = context;
    const { a } = t;
    const database = await raise(cloud, a.tenant.id, 'database', {}, { title: 'database down for RCA' });
    const incidentId = newId();
    const aiops = createAiopsService({
      store: cloud.store,
      clock: cloud.clock,
      newId,
      log: quietLog as never,
      options: cloud.config.aiops,
      // Reads alerts only: the cloud's own AIOps service already groups them as they fire.
      alerting: { ...cloud.services.alerting, onFired: () => {} },
      incidentAlert: async (tenantId, id) =>
        tenantId === a.tenant.id && id === incidentId ? database.id : undefined,
    });
    const rca = await aiops.rca(a.tenant.id, incidentId);
    expect(rca).toMatchObject({ incident_id: incidentId, alert_id: database.id });
    expect(rca.probable_causes[0]!.cause).toBe('fault in database itself: database down for RCA');
    await expect(aiops.rca(context.b.tenant.id, incidentId)).rejects.toMatchObject({ status: 404 });
  });

  it('serves the default graph, replaces it, refuses a cycle and restores the default', async () => {
    const graph = expectOk(await t.adminA('GET', `${BASE}/dependencies`));
    expect(graph.source).toBe('default');
    expect(graph.services).toContainEqual({ service: 'sync', depends_on: ['database', 'api'] });
    const custom = {
      services: [
        { service: 'pos', depends_on: ['payments-gw'] },
        { service: 'payments-gw', depends_on: [] },
      ],
    };
    const saved = expectOk(await t.adminA('PUT', `${BASE}/dependencies`, custom));
    expect(saved).toMatchObject({ source: 'tenant', services: custom.services.slice().reverse() });
    const cycle = expectError(
      await t.adminA('PUT', `${BASE}/dependencies`, {
        services: [
          { service: 'a', depends_on: ['b'] },
          { service: 'b', depends_on: ['a'] },
        ],
      }),
      400,
      'INVALID_REQUEST',
    );
    expect(cycle.details).toEqual([
      { field: 'body.services.0.depends_on', message: 'forms a cycle: a → b → a' },
    ]);
    expect(expectOk(await t.adminA('GET', `${BASE}/dependencies`)).source).toBe('tenant');
    expect(expectOk(await context.adminB('GET', `${BASE}/dependencies`)).source).toBe('default');
    expect(expectOk(await t.adminA('PUT', `${BASE}/dependencies`, { services: [] })).source).toBe('default');
  });

  it('answers 404 to another tenant for every alert, incident and group, and 400 for one alert', async () => {
    const { cloud } = context;
    const { a } = t;
    const one = await raise(cloud, a.tenant.id, 'database', {}, { title: 'for the other tenant' });
    const two = await raise(cloud, a.tenant.id, 'sync', {}, { title: 'for the other tenant' });
    await cloud.services.alerting.settled();
    const group = expectOk(await t.adminA('GET', `${BASE}/insights?type=correlation&limit=1`)).insights[0];
    const correlate = await context.adminB('POST', `${BASE}/correlate`, { alert_ids: [one.id, two.id] });
    expect(expectError(correlate, 404, 'ALERT_NOT_FOUND').details).toEqual([
      { field: 'alert_id', message: `${one.id} is not an alert of this tenant` },
    ]);
    expectError(await context.adminB('GET', `${BASE}/rca/${one.id}`), 404, 'INCIDENT_NOT_FOUND');
    expectError(await context.adminB('POST', `${BASE}/debug`, { alert_id: one.id }), 404, 'ALERT_NOT_FOUND');
    expectError(
      await context.adminB('GET', `${BASE}/correlations/${group.correlation_id}`),
      404,
      'CORRELATION_NOT_FOUND',
    );
    expect(expectOk(await context.adminB('GET', `${BASE}/insights`)).insights).toEqual([]);
    const single = expectError(
      await t.adminA('POST', `${BASE}/correlate`, { alert_ids: [one.id, one.id] }),
      400,
      'INVALID_REQUEST',
    );
    expect(single.details).toEqual([
      { field: 'body.alert_ids', message: 'must name at least two different alerts' },
    ]);
    expectError(await t.staffA('GET', `${BASE}/rca/${one.id}`), 403, 'FORBIDDEN');

    // Groups go with their insights once past the retention.
    context.cloud.clock.advance(91 * 24 * 3_600_000);
    expect((await cloud.services.aiops.prune()).groups).toBeGreaterThan(0);
    await context.advance(0);
    expectError(
      await t.adminA('GET', `${BASE}/correlations/${group.correlation_id}`),
      404,
      'CORRELATION_NOT_FOUND',
    );
  });

  it('groups a storm of 60 alerts fired at once into one group', async () => {
    const { cloud } = context;
    const { a } = t;
    cloud.clock.advance(24 * 3_600_000);
    const storm = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        raise(cloud, a.tenant.id, 'appliance', { location_id: 'storm-store', device_id: `till-${i}` }),
      ),
    );
    await cloud.services.alerting.settled();
    const { aiops } = cloud.services;
    const { items } = await aiops.insights(a.tenant.id, { type: 'correlation' }, { limit: 100 });
    const stormGroups = items.filter((insight) => insight.alert_count === 60);
    expect(stormGroups).toHaveLength(1);
    const group = await aiops.correlationGroup(a.tenant.id, stormGroups[0]!.correlation_id!);
    expect(new Set(group.correlated_alerts.map((m: { alert_id: string }) => m.alert_id))).toEqual(
      new Set(storm.map((alert) => alert.id)),
    );
  });
});
