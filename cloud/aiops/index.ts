/**
 * AI operations: owns the metric rollups and points, insights, the tenants' dependency graphs and
 * correlation groups. Judges every metric sample against its 30-day baseline (z-score), forecasts
 * capacity and limit metrics by trend, correlates alerts as alerting fires them, and ranks root
 * causes. Served under /api/v1/alerting/aiops; feeds arrive through cloud/flows/aiops-metrics.ts.
 */

export { AIOPS_SETTINGS, type AiopsConfig, loadAiopsConfig } from './config.ts';
export type { AiopsDeps } from './context.ts';
export { DEFAULT_GRAPH, type DependencyGraph } from './graph.ts';
export type { MetricSample } from './metrics.ts';
export { aiopsRoutes } from './routes.ts';
export { type AiopsService, createAiopsService } from './service.ts';
export type { AiopsTables } from './tables.ts';
