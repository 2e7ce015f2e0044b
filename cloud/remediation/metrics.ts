/** Remediation's part of the cockpit's AI metrics over a period. */
import type { Db } from '../db/index.ts';
import { createdCounts, finishedCounts } from './store.ts';

export async function remediationFigures(db: Db, tenantId: string, from: string, to: string) {
  const created = await createdCounts(db, tenantId, from, to);
  let requested = 0;
  let auto = 0;
  let approvalRequired = 0;
  let dryRuns = 0;
  const refusals: Record<string, number> = {};
  for (const row of created) {
    const count = Number(row.count);
    if (row.dry_run === 1) {
      dryRuns += count;
      continue;
    }
    requested += count;
    if (row.status === 'refused' && row.refused_by)
      refusals[row.refused_by] = (refusals[row.refused_by] ?? 0) + count;
    else if (row.auto_approved === 1) auto += count;
    else approvalRequired += count;
  }
  const finished = await finishedCounts(db, tenantId, from, to);
  const executions = finished.map((row) => ({
    action: row.action,
    outcome: row.status,
    count: Number(row.count),
  }));
  const total = executions.reduce((sum, e) => sum + e.count, 0);
  const succeeded = executions.filter((e) => e.outcome === 'executed').reduce((sum, e) => sum + e.count, 0);
  const totalMs = finished.reduce((sum, row) => sum + Number(row.total_ms ?? 0), 0);
  return {
    requested,
    auto_approved: auto,
    approval_required: approvalRequired,
    dry_runs: dryRuns,
    executions,
    success_rate: total === 0 ? null : succeeded / total,
    mean_execution_time_ms: total === 0 ? null : totalMs / total,
    refusals,
    rate_limit_refusals: (refusals.rate_limit ?? 0) + (refusals.agent_rate_limit ?? 0),
  };
}
