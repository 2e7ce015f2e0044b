/** The webhook benchmark's report: the baseline, figures per backend, the goals, and a summary. */
import {
  type CodeVersion,
  type GoalSpec,
  goalsMetLine,
  judgeGoals,
  type MachineInfo,
  type Goal as ReportGoal,
  verdictOf,
} from '../lib/report.ts';
import type { BaselineMeasurement } from './baseline.ts';
import type { Backend } from './cloud.ts';
import type { WebhookPlan } from './plan.ts';
import type { SteadyMeasurement } from './steady.ts';
import type { ThroughputMeasurement } from './throughput.ts';

export interface BackendReport {
  valid: boolean;
  problems: string[];
  throughput: ThroughputMeasurement | null;
  /** Throughput over the baseline's requests per second. */
  ratio_throughput_to_baseline: number | null;
  latency: SteadyMeasurement | null;
  isolation: SteadyMeasurement | null;
  /** Isolation's healthy p99 over latency's p99. */
  ratio_isolation_p99: number | null;
  /** Warnings and errors the worker logged (first few). */
  worker_warnings: string[];
  /**
   * PostgreSQL: tables the server had statistics for by the end of a measure (only autovacuum's
   * analyze could make them; the bench never analyzes). Empty: every plan was made without them.
   */
  tables_analyzed: string[];
}

export type Goal = ReportGoal<Backend>;

export interface WebhooksReport {
  name: 'webhooks';
  at: string;
  machine: MachineInfo;
  code: CodeVersion;
  /** Where each party runs: the machine's cores are shared by all of them. */
  layout: string;
  settings: {
    plan: 'full' | 'quick';
    sizes: WebhookPlan;
    backends: Backend[];
    worker: { max_lanes: number; poll_ms: number; lease_ms: number; connections_per_origin: number };
    pg_autovacuum?: string;
  };
  clock_offset_ms: { offset: number; rtt: number } | null;
  baseline: BaselineMeasurement | null;
  valid: boolean;
  problems: string[];
  backends: Partial<Record<Backend, BackendReport>>;
  goals: Goal[];
}

export const emptyReport = (): BackendReport => ({
  valid: false,
  problems: [],
  throughput: null,
  ratio_throughput_to_baseline: null,
  latency: null,
  isolation: null,
  ratio_isolation_p99: null,
  worker_warnings: [],
  tables_analyzed: [],
});

const GOALS: Array<GoalSpec<BackendReport>> = [
  {
    measure: 'throughput deliveries/s',
    target: '>= 1000',
    value: (r) => r.throughput?.deliveries_per_sec,
    met: (v) => v >= 1000,
  },
  {
    measure: 'latency p99 ms',
    target: '< 250',
    value: (r) => r.latency?.healthy.latency_ms.p99,
    met: (v) => v < 250,
  },
  {
    measure: 'isolation healthy p99 ms',
    target: '< 250',
    value: (r) => r.isolation?.healthy.latency_ms.p99,
    met: (v) => v < 250,
  },
  {
    // "Unaffected": no worse than half again the all-healthy p99, or within 25 ms of it (noise).
    measure: 'isolation healthy p99 / latency p99',
    target: '<= 1.5 (or within 25 ms)',
    value: (r) => r.ratio_isolation_p99,
    met: (v, r) =>
      v <= 1.5 ||
      (r.isolation?.healthy.latency_ms.p99 ?? Number.POSITIVE_INFINITY) -
        (r.latency?.healthy.latency_ms.p99 ?? 0) <=
        25,
  },
];

export const goalsOf = (backends: Partial<Record<Backend, BackendReport>>): Goal[] =>
  judgeGoals(backends, GOALS);

const spread = (p: { p50: number; p95: number; p99: number; max: number }) =>
  `p50 ${p.p50} / p95 ${p.p95} / p99 ${p.p99} / max ${p.max} ms`;

/** Statements per delivery and the three that took longest. */
function statementsLine(name: string, statements: ThroughputMeasurement['statements']) {
  const heaviest = statements.top
    .slice(0, 3)
    .map((s) => `${s.sql.slice(0, 64)}… ${s.per_delivery}/delivery, ${s.total_ms} ms`);
  return `${' '.repeat(name.length)}  db: ${statements.totals.per_delivery} statements/delivery, ${statements.totals.ms} ms in all; heaviest: ${heaviest.join('; ')}`;
}

function steadyLine(name: string, s: SteadyMeasurement, goal: string) {
  const h = s.healthy;
  const others = s.endpoints.fail + s.endpoints.hang > 0;
  return [
    `${name}: ${s.events} events at ${s.events_per_sec}/s to ${s.endpoints.ok} healthy endpoints` +
      (others ? ` (+${s.endpoints.fail} answering 500, ${s.endpoints.hang} hanging)` : '') +
      `: ${h.delivered}/${h.deliveries} delivered, ${h.deliveries_per_sec}/s of ${h.offered_per_sec}/s offered; ` +
      `latency ${spread(h.latency_ms)} (${goal})`,
    `${' '.repeat(name.length)}  commit->attempt ${spread(h.commit_to_attempt_ms)}; attempt->arrival ${spread(h.attempt_to_arrival_ms)}` +
      (others ? `; failing got ${s.failing_requests}, hanging got ${s.hanging_requests} requests` : '') +
      (s.late_appends > 0 ? `; ${s.late_appends} appends late on the grid` : ''),
    statementsLine(name, s.statements),
  ];
}

function backendLines(backend: Backend, report: BackendReport, goals: Goal[]) {
  const goal = (measure: string) => verdictOf(goals, backend, measure);
  const p = backend.padEnd(6);
  const { throughput: t, latency, isolation } = report;
  return [
    t
      ? `${p} throughput: ${t.events} events x ${t.endpoints} endpoints = ${t.delivered}/${t.deliveries} in ${t.seconds} s (appends took ${t.append_seconds} s, all recorded at ${t.recorded_seconds ?? '-'} s) = ${t.deliveries_per_sec} deliveries/s (${goal('throughput deliveries/s')}), ${report.ratio_throughput_to_baseline ?? '-'} of the baseline; by tenth ${t.deliveries_per_sec_by_tenth.join(' ')}`
      : `${p} throughput: failed`,
    ...(t ? [statementsLine(`${p} throughput`, t.statements)] : []),
    ...(latency ? steadyLine(`${p} latency`, latency, goal('latency p99 ms')) : [`${p} latency: failed`]),
    ...(isolation
      ? steadyLine(`${p} isolation`, isolation, goal('isolation healthy p99 ms'))
      : [`${p} isolation: failed`]),
    `${p} isolation p99 / latency p99: ${report.ratio_isolation_p99 ?? '-'} (${goal('isolation healthy p99 / latency p99')})`,
    ...(backend === 'pg'
      ? [`${p} tables with planner statistics: ${report.tables_analyzed.join(', ') || 'none'}`]
      : []),
  ];
}

export function summarizeWebhooks(report: WebhooksReport): string[] {
  const { machine, settings, code, baseline: b } = report;
  const dirty = code.product_changes_uncommitted
    ? ` (with uncommitted changes ${code.uncommitted_diff_sha256 ?? ''})`
    : '';
  return [
    `webhooks: ${settings.plan} plan at ${code.commit}${dirty}, ${machine.cpus} cpus, node ${machine.node}, load ${machine.load_1m.before} -> ${machine.load_1m.after}`,
    b
      ? `baseline: the worker's HTTP client alone, ${b.concurrency} endpoints one request each at a time: ${b.requests_per_sec} requests/s (${spread(b.latency_ms)})`
      : 'baseline: failed',
    ...Object.entries(report.backends).flatMap(([backend, r]) =>
      backendLines(backend as Backend, r, report.goals),
    ),
    goalsMetLine(report.goals),
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
