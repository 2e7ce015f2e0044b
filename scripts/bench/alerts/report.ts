import { type CodeVersion, type Goal, goalLine, type MachineInfo } from '../lib/report.ts';

export interface RateFigures {
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  total: number;
  non2xx: number;
  errors: number;
}

export interface BackendReport {
  valid: boolean;
  problems: string[];
  baseline_get: RateFigures;
  ingest_distinct: RateFigures & { share_of_baseline: number; alerts_opened: number };
  ingest_repeated: RateFigures & { share_of_baseline: number; occurrences_counted: number };
  p1_to_first_sms_ms: { count: number; p50: number; p95: number; p99: number; max: number };
}

export interface AlertsReport {
  valid: boolean;
  machine: MachineInfo;
  code: CodeVersion;
  settings: { connections: number; duration_s: number; latency_alerts: number };
  backends: Partial<Record<'sqlite' | 'pg', BackendReport>>;
  goals: Goal[];
}

const rate = (label: string, figures: RateFigures, share?: number) =>
  `  ${label.padEnd(34)} ${figures.requests_per_second.toFixed(0).padStart(6)} req/s  p50 ${figures.p50_ms} ms  p99 ${figures.p99_ms} ms${
    share === undefined ? '' : `  (${(share * 100).toFixed(0)}% of baseline)`
  }`;

export function summarizeAlerts(report: AlertsReport): string[] {
  const lines = ['alerts benchmark'];
  for (const [backend, r] of Object.entries(report.backends)) {
    if (!r) continue;
    lines.push(`${backend}${r.valid ? '' : ' (INVALID)'}:`);
    lines.push(rate('GET /v1/auth/me (baseline)', r.baseline_get));
    lines.push(
      rate('ingest, distinct fingerprints (201)', r.ingest_distinct, r.ingest_distinct.share_of_baseline),
    );
    lines.push(rate('ingest, one fingerprint (200)', r.ingest_repeated, r.ingest_repeated.share_of_baseline));
    const l = r.p1_to_first_sms_ms;
    lines.push(
      `  P1 201 → first SMS attempt (${l.count} alerts): p50 ${l.p50} ms, p95 ${l.p95} ms, p99 ${l.p99} ms, max ${l.max} ms`,
    );
    for (const problem of r.problems) lines.push(`  problem: ${problem}`);
  }
  lines.push(...report.goals.map(goalLine));
  return lines;
}
