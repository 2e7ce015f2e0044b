/**
 * `npm run bench -- pnl [--quick] [--backend sqlite|pg]`: issue 9's benchmark in one run. Usage
 * ingestion (single posts, a replay with re-sent records checked for double counts, post-to-visible
 * time; baselines: the store's own inserts and the ingest without HTTP), then the P&L reports on a
 * year of 3 brands, 50 stores and 2 million order lines (baseline: the metric catalog).
 */

import { goalLine } from './lib/report.ts';
import { type PnlBackend, runPnlReportsBench } from './pnl/reports.ts';
import { runUsageBench, summarizeUsage } from './pnl/usage.ts';

export async function runPnlBench(options: {
  quick?: boolean | undefined;
  backend?: PnlBackend | undefined;
}) {
  const usage = await runUsageBench(options);
  const reports = await runPnlReportsBench(options);
  return {
    name: 'pnl',
    at: new Date().toISOString(),
    usage,
    reports,
    goals: [...usage.goals, ...reports.goals],
    valid: usage.valid && reports.valid,
  };
}

export type PnlReport = Awaited<ReturnType<typeof runPnlBench>>;

export function summarizePnl(report: PnlReport) {
  const reportLines = report.reports.goals.map(goalLine);
  const met = report.goals.filter((g) => g.met).length;
  return [...summarizeUsage(report.usage), ...reportLines, `goals met: ${met} of ${report.goals.length}`];
}
