import { describe, expect, it } from 'vitest';
import { type CorrelatedAlert, correlate, sharesPlace } from '../../../cloud/aiops/correlate.ts';
import { DEFAULT_GRAPH, graphProblem, rootOf, toGraph } from '../../../cloud/aiops/graph.ts';
import { rankCauses } from '../../../cloud/aiops/rca.ts';

const T0 = Date.parse('2026-05-04T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function makeAlert(overrides: Partial<CorrelatedAlert> & { id: string; service: string }): CorrelatedAlert {
  return {
    title: `${overrides.service} is unhealthy`,
    severity: 'P2',
    started_at: at(0),
    labels: {},
    runbook_url: null,
    ...overrides,
  };
}

const rule = { windowSeconds: 300, minScore: 0.7, graph: DEFAULT_GRAPH };
const store = { location_id: 'store-1' };

/** The planted chain: the database fails, sync behind it a minute later, the appliance after. */
const chain = () => [
  makeAlert({ id: 'a-appliance', service: 'appliance', started_at: at(150), labels: store }),
  makeAlert({ id: 'a-database', service: 'database', started_at: at(0), labels: store, severity: 'P1' }),
  makeAlert({ id: 'a-sync', service: 'sync', started_at: at(60), labels: store }),
];

describe('correlation', () => {
  it('correlates a database → sync → appliance chain within 5 minutes and blames the database', () => {
    const result = correlate(chain(), rule);
    expect(result).toMatchObject({
      is_correlated: true,
      root_cause_alert: 'a-database',
      dependency_chain: ['database', 'sync', 'appliance'],
    });
    expect(result.correlation_score).toBeGreaterThanOrEqual(0.7);
    expect(result.probable_cause).toContain('database failure');
    expect(result.factors).toEqual({ time: 0.75, dependency: 1, labels: 1, spread_seconds: 150 });
    expect(Object.fromEntries(result.members.map((m) => [m.alert_id, m.relationship]))).toEqual({
      'a-database': 'root_cause',
      'a-sync': 'downstream',
      'a-appliance': 'downstream',
    });
  });

  it('scores an unrelated pair below 0.7, even at the same store and minute', () => {
    const pair = [
      makeAlert({ id: 'a-payments', service: 'payments', labels: store }),
      makeAlert({ id: 'a-chat', service: 'chat', started_at: at(30), labels: store }),
    ];
    const result = correlate(pair, rule);
    expect(result.correlation_score).toBeLessThan(0.7);
    expect(result).toMatchObject({ is_correlated: false, root_cause_alert: null, dependency_chain: [] });
  });

  it('never correlates alerts spread wider than the window', () => {
    const late = chain();
    late[0]!.started_at = at(301);
    const result = correlate(late, rule);
    expect(result.is_correlated).toBe(false);
    expect(result.factors.time).toBe(0);
  });

  it('without the graph, needs shared labels and closeness alone', () => {
    const noGraph = { ...rule, graph: null };
    expect(correlate(chain(), noGraph).is_correlated).toBe(true);
    const apart = chain().map((a, i) => ({ ...a, labels: { location_id: `store-${i}` } }));
    expect(correlate(apart, noGraph).is_correlated).toBe(false);
  });
  it('scores shared places exactly as counting every pair would, at storm size too', () => {
    // A seeded mix of stores, devices and hosts, some labels missing, against the pair-by-pair count.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const alerts = Array.from({ length: 400 }, (_, i) => {
      const labels: Record<string, string> = {};
      if (next(4) > 0) labels.location_id = `store-${next(5)}`;
      if (next(3) === 0) labels.device_id = `device-${next(7)}`;
      if (next(5) === 0) labels.host = `host-${next(2)}`;
      return makeAlert({ id: `a-${i}`, service: 'sync', started_at: at(next(200)), labels });
    });
    let shared = 0;
    let pairs = 0;
    for (let i = 0; i < alerts.length; i += 1)
      for (let j = i + 1; j < alerts.length; j += 1) {
        pairs += 1;
        if (sharesPlace(alerts[i]!, alerts[j]!)) shared += 1;
      }
    expect(correlate(alerts, rule).factors.labels).toBe(Math.round((shared / pairs) * 1000) / 1000);
  });
});

describe('dependency graph', () => {
  it('finds the most upstream alerting service and the chain below it', () => {
    expect(rootOf(DEFAULT_GRAPH, ['appliance', 'database'])).toMatchObject({
      root: 'database',
      chain: ['database', 'sync', 'appliance'],
    });
  });

  it('refuses cycles, self-dependencies and duplicates, naming the entry', () => {
    expect(
      graphProblem([
        { service: 'a', depends_on: ['b'] },
        { service: 'b', depends_on: ['c'] },
        { service: 'c', depends_on: ['a'] },
      ]),
    ).toEqual(['body.services.0.depends_on', 'forms a cycle: a → b → c → a']);
    expect(graphProblem([{ service: 'a', depends_on: ['a'] }])).toEqual([
      'body.services.0.depends_on',
      'a cannot depend on itself',
    ]);
    expect(
      graphProblem([
        { service: 'a', depends_on: [] },
        { service: 'a', depends_on: [] },
      ]),
    ).toEqual(['body.services.1.service', 'a is listed twice']);
    expect(toGraph([{ service: 'a', depends_on: ['b'] }])).toEqual({ a: ['b'], b: [] });
  });
});

describe('root-cause ranking', () => {
  it('ranks the most upstream alert of the chain first, with concrete evidence', () => {
    const [appliance, database, sync] = chain();
    const causes = rankCauses({
      alert: appliance!,
      nearby: [database!, sync!],
      anomalies: [
        {
          insight_id: 'i-1',
          metric: 'db_connections',
          subject: 'database',
          at: at(-30),
          value: 480,
          mean: 100,
          std: 20,
          z: 19,
        },
      ],
      graph: DEFAULT_GRAPH,
      windowSeconds: 300,
    });
    expect(causes.map((c) => c.rank)).toEqual([1, 2, 3, 4]);
    expect(causes[0]!.cause).toBe('database failure upstream: database is unhealthy');
    expect(causes[0]!.evidence[0]).toBe(
      'alert a-database "database is unhealthy" on database (P1) started 2 min 30 s before this alert',
    );
    expect(causes[0]!.evidence).toContain('dependency chain: database → sync → appliance');
    expect(causes[0]!.evidence).toContain('shared labels: location_id=store-1');
    const anomaly = causes.find((c) => c.cause === 'db_connections anomaly on database')!;
    expect(anomaly.evidence[0]).toContain('z = 19');
    expect(causes.at(-1)!.cause).toBe('fault in appliance itself: appliance is unhealthy');
    for (const cause of causes) {
      expect(cause.confidence).toBeGreaterThan(0);
      expect(cause.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('blames the alert’s own service when nothing upstream alerted', () => {
    const lone = makeAlert({ id: 'a-db', service: 'database', runbook_url: 'https://runbooks.test/db' });
    const causes = rankCauses({
      alert: lone,
      nearby: [],
      anomalies: [],
      graph: DEFAULT_GRAPH,
      windowSeconds: 300,
    });
    expect(causes).toEqual([
      {
        rank: 1,
        cause: 'fault in database itself: database is unhealthy',
        confidence: 0.6,
        evidence: [
          'alert a-db "database is unhealthy" on database (P2)',
          'no alert upstream of database within 300 s',
        ],
        remediation: 'Follow the runbook: https://runbooks.test/db',
      },
    ]);
  });
});
