/** The sync benchmark's report: figures per backend and measure, the goals, and its summary. */
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
import type { BacklogMeasurement } from './drain.ts';
import type { LatencyMeasurement } from './latency.ts';
import type { Backend } from './observe.ts';
import type { OfflineMeasurement } from './offline.ts';
import type { SyncPlan } from './plan.ts';
import type { PullMeasurement } from './pull.ts';

export interface BackendReport {
  /** No failure, non-2xx answer or difference between the store and the cloud on this backend. */
  valid: boolean;
  problems: string[];
  /** Filling the outboxes and the pull feed (not measured). */
  seeding_seconds: number | null;
  /** PostgreSQL with autovacuum off: tables the bench analyzed in its stead (see sync/pg.ts). */
  pg_tables_analyzed?: number;
  drain: (BacklogMeasurement & { orders: number }) | null;
  raw_baseline: BaselineMeasurement | null;
  ratio_drain_to_raw: number | null;
  punches: (BacklogMeasurement & { punches: number; corrections: number }) | null;
  pull: PullMeasurement | null;
  offline_72h: OfflineMeasurement | null;
  online_latency: LatencyMeasurement | null;
}

export type Goal = ReportGoal<Backend>;

export interface SyncReport {
  name: 'sync';
  at: string;
  machine: MachineInfo;
  code: CodeVersion;
  settings: {
    plan: 'full' | 'quick';
    sizes: SyncPlan;
    backends: Backend[];
    /** The appliance's sync settings (its defaults) and the cloud's (its defaults). */
    batch_size: number;
    in_flight: number;
    pull_limit: number;
    cloud_max_concurrent_pushes: number;
    /** The server's autovacuum; when off, the bench analyzes as autovacuum would (sync/pg.ts). */
    pg_autovacuum?: string;
  };
  valid: boolean;
  problems: string[];
  backends: Partial<Record<Backend, BackendReport>>;
  goals: Goal[];
}

export const emptyReport = (): BackendReport => ({
  valid: false,
  problems: [],
  seeding_seconds: null,
  drain: null,
  raw_baseline: null,
  ratio_drain_to_raw: null,
  punches: null,
  pull: null,
  offline_72h: null,
  online_latency: null,
});

const GOALS: Array<GoalSpec<BackendReport>> = [
  {
    measure: 'drain records/s',
    target: '>= 5000',
    value: (r) => r.drain?.records_per_sec,
    met: (v) => v >= 5000,
  },
  {
    measure: 'drain / raw inserts',
    target: '>= 0.5',
    value: (r) => r.ratio_drain_to_raw,
    met: (v) => v >= 0.5,
  },
  {
    measure: 'punches records/s',
    target: '>= 3000',
    value: (r) => r.punches?.records_per_sec,
    met: (v) => v >= 3000,
  },
  { measure: 'pull rows/s', target: '>= 20000', value: (r) => r.pull?.rows_per_sec, met: (v) => v >= 20_000 },
  {
    measure: '72 h offline converged s',
    target: '<= 60',
    value: (r) => r.offline_72h?.seconds_to_converge,
    met: (v) => v <= 60,
  },
  {
    measure: 'online latency p99 ms',
    target: '< 1000',
    value: (r) => r.online_latency?.p99_ms,
    met: (v) => v < 1000,
  },
];

export const goalsOf = (backends: Partial<Record<Backend, BackendReport>>): Goal[] =>
  judgeGoals(backends, GOALS);

function backendLines(backend: Backend, report: BackendReport, goals: Goal[]) {
  const goal = (measure: string) => verdictOf(goals, backend, measure);
  const { drain, raw_baseline: raw, punches, pull, offline_72h: offline, online_latency: latency } = report;
  const p = backend.padEnd(6);
  return [
    drain
      ? `${p} drain: ${drain.orders} orders, ${drain.records} records in ${drain.seconds} s = ${drain.records_per_sec} records/s (${goal('drain records/s')}); first tenth ${drain.records_per_sec_by_tenth[0]}/s, last ${drain.records_per_sec_by_tenth.at(-1)}/s`
      : `${p} drain: failed`,
    raw
      ? `${p} raw inserts: ${raw.records_per_sec} records/s; drain/raw ${report.ratio_drain_to_raw ?? '-'} (${goal('drain / raw inserts')})`
      : `${p} raw inserts: failed`,
    punches
      ? `${p} punches: ${punches.records} records in ${punches.seconds} s = ${punches.records_per_sec} records/s (${goal('punches records/s')})`
      : `${p} punches: failed`,
    pull
      ? `${p} pull: ${pull.changes} changes in ${pull.seconds} s = ${pull.rows_per_sec} rows/s (${goal('pull rows/s')}); the cloud wrote them at ${pull.cloud_writes_per_sec}/s`
      : `${p} pull: failed`,
    offline
      ? `${p} 72 h offline: ${offline.appliance_changes} store changes, ${offline.cloud_edits} cloud edits, converged in ${offline.seconds_to_converge} s, ${offline.rounds} round(s), ${offline.conflicts} conflicts (${goal('72 h offline converged s')})`
      : `${p} 72 h offline: failed`,
    latency
      ? `${p} online: ${latency.writes} orders, ${latency.changes} changes, p50 ${latency.p50_ms} ms, p99 ${latency.p99_ms} ms, max ${latency.max_ms} ms (${goal('online latency p99 ms')})`
      : `${p} online latency: failed`,
  ];
}

export function summarizeSync(report: SyncReport): string[] {
  const { machine, settings, code } = report;
  const dirty = code.product_changes_uncommitted ? ' (with uncommitted changes)' : '';
  return [
    `sync: ${settings.plan} plan at ${code.commit}${dirty}, ${machine.cpus} cpus, node ${machine.node}, load ${machine.load_1m.before} -> ${machine.load_1m.after}`,
    ...Object.entries(report.backends).flatMap(([backend, r]) =>
      backendLines(backend as Backend, r, report.goals),
    ),
    goalsMetLine(report.goals),
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
