/**
 * AI metrics over a period, from what the system recorded: the approval queue's own figures, and
 * those of each module that registers a source (remediation registers its executions).
 */
import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../db/index.ts';
import { approvalCounts, decidedBetween } from './approvals-store.ts';

export const PERIODS = { '24h': 24 * 3600_000, '7d': 7 * 24 * 3600_000, '30d': 30 * 24 * 3600_000 } as const;
export type Period = keyof typeof PERIODS;

export type MetricsSource = (tenantId: string, from: string, to: string) => Promise<Record<string, unknown>>;

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function approvalFigures(db: Db, tenantId: string, from: string, to: string) {
  const counts = await approvalCounts(db, tenantId, from, to);
  const byStatus: Record<string, number> = { pending: 0, approved: 0, rejected: 0, escalated: 0 };
  const byKind: Record<string, number> = {};
  for (const { status, kind, count } of counts) {
    byStatus[status] = (byStatus[status] ?? 0) + Number(count);
    byKind[kind] = (byKind[kind] ?? 0) + Number(count);
  }
  const decided = await decidedBetween(db, tenantId, from, to);
  const waits = decided.map((row) => Date.parse(row.decided_at!) - Date.parse(row.created_at));
  const medianMs = median(waits);
  return {
    total: Object.values(byStatus).reduce((sum, n) => sum + n, 0),
    by_status: byStatus,
    by_kind: byKind,
    decided: decided.length,
    median_time_to_decision_seconds: medianMs === null ? null : medianMs / 1000,
  };
}

export function createAiMetrics(deps: { db: Db; clock: Clock }) {
  const sources = new Map<string, MetricsSource>();
  return {
    register(name: string, source: MetricsSource) {
      sources.set(name, source);
    },
    async report(tenantId: string, period: Period) {
      const to = deps.clock.now();
      const from = new Date(to.getTime() - PERIODS[period]);
      const [fromIso, toIso] = [from.toISOString(), to.toISOString()];
      const approvals = await approvalFigures(deps.db, tenantId, fromIso, toIso);
      const figures: Record<string, unknown> = {};
      for (const [name, source] of sources) figures[name] = await source(tenantId, fromIso, toIso);
      return { ...figures, period, from: fromIso, to: toIso, approvals };
    },
  };
}

export type AiMetrics = ReturnType<typeof createAiMetrics>;
