/**
 * Root-cause ranking without I/O. Candidates, each with a confidence from 0 to 1:
 * - alerts upstream of the alert's service that started within the correlation window of it: the
 *   most upstream one weighs most (0.45 + 0.35·depth share + 0.15·time proximity);
 * - metric anomalies around its start on its subjects (its labels' values, its service, the
 *   upstream alerting services): 0.35 + 0.05·|z|, at most 0.85;
 * - a fault in its own service: 0.6 with nothing upstream to blame, 0.3 otherwise.
 */
import type { CorrelatedAlert } from './correlate.ts';
import { timeFactor } from './correlate.ts';
import { type DependencyGraph, upstreamPaths } from './graph.ts';

export interface AnomalyEvidence {
  insight_id: string;
  metric: string;
  subject: string;
  at: string;
  value: number;
  mean: number;
  std: number;
  z: number;
}

export interface ProbableCause {
  rank: number;
  cause: string;
  confidence: number;
  evidence: string[];
  remediation: string;
}

const SERVICE_REMEDIATION: Record<string, string> = {
  database:
    'Check the database: connections in use, replication lag and disk; fail over to the standby if it is unhealthy',
  network: 'Check the store uplink and router; switch to the backup connection if the primary is down',
  sync: 'Check the sync service and the stores’ push queues; trigger a sync once the cloud answers again',
  api: 'Check the cloud API’s error rate and its database connections; roll back the latest deploy if errors started with it',
  fleet: 'Check the fleet broker and the appliances’ connections to it',
  appliance:
    'Restart the affected appliance service; rotate its logs and clear its caches if the disk is full',
  vision:
    'Check the cameras’ streams and the edge inference load; lower inference fps if the GPU is saturated',
};

const METRIC_REMEDIATION: Array<[RegExp, string]> = [
  [/disk/, 'Rotate logs and clear caches on the device, then find what fills the disk'],
  [/temp/, 'Check the device’s cooling and airflow'],
  [/sync_(queue|lag)/, 'Check the store’s connection to the cloud and the sync service; trigger a sync'],
  [/camera_fps/, 'Check the camera’s stream and network link; restart the camera if it stays low'],
  [/inference|latency/, 'Reduce the inference load (fps, resolution) or move streams to another edge device'],
  [/cpu|memory|gpu/, 'Find the process using the resource on the device and restart it'],
];

export const serviceRemediation = (service: string, runbook: string | null) =>
  runbook
    ? `Follow the runbook: ${runbook}`
    : (SERVICE_REMEDIATION[service] ?? `Follow the ${service} runbook`);

export const metricRemediation = (metric: string) =>
  METRIC_REMEDIATION.find(([pattern]) => pattern.test(metric))?.[1] ??
  `Investigate ${metric}: it left its 30-day baseline`;

const clamp = (value: number) => Math.round(Math.min(0.99, Math.max(0, value)) * 100) / 100;
const ago = (ms: number) => {
  const seconds = Math.round(Math.abs(ms) / 1000);
  const text = seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
  return ms >= 0 ? `${text} before this alert` : `${text} after this alert`;
};
const fmt = (value: number) => String(Math.round(value * 100) / 100);

export interface RcaInput {
  alert: CorrelatedAlert;
  /** Other alerts started within the correlation window around it. */
  nearby: CorrelatedAlert[];
  anomalies: AnomalyEvidence[];
  graph: DependencyGraph;
  windowSeconds: number;
}

type Candidate = Omit<ProbableCause, 'rank'>;

function upstreamCauses(input: RcaInput): Candidate[] {
  const { alert, graph } = input;
  const paths = upstreamPaths(graph, alert.service);
  const upstream = input.nearby.filter((other) => paths.has(other.service));
  const deepest = Math.max(1, ...upstream.map((u) => paths.get(u.service)!.length - 1));
  const start = Date.parse(alert.started_at);
  return upstream.map((u) => {
    const path = paths.get(u.service)!;
    const lead = start - Date.parse(u.started_at);
    const proximity = timeFactor(Math.abs(lead), input.windowSeconds) * 2 - 1;
    const chain = [...path].reverse();
    const evidence = [
      `alert ${u.id} "${u.title}" on ${u.service} (${u.severity}) started ${ago(lead)}`,
      `dependency chain: ${chain.join(' → ')}`,
    ];
    const shared = Object.entries(u.labels).filter(([k, v]) => alert.labels[k] === v);
    if (shared.length > 0) evidence.push(`shared labels: ${shared.map(([k, v]) => `${k}=${v}`).join(', ')}`);
    return {
      cause: `${u.service} failure upstream: ${u.title}`,
      confidence: clamp(0.45 + (0.35 * (path.length - 1)) / deepest + 0.15 * proximity),
      evidence,
      remediation: serviceRemediation(u.service, u.runbook_url),
    };
  });
}

function anomalyCauses(input: RcaInput): Candidate[] {
  const start = Date.parse(input.alert.started_at);
  return input.anomalies.map((a) => ({
    cause: `${a.metric} anomaly on ${a.subject}`,
    confidence: clamp(Math.min(0.85, 0.35 + 0.05 * Math.abs(a.z))),
    evidence: [
      `metric ${a.metric} on ${a.subject} read ${fmt(a.value)} at ${a.at} (${ago(start - Date.parse(a.at))}), against a 30-day baseline of ${fmt(a.mean)} ± ${fmt(a.std)}: z = ${fmt(a.z)}`,
      `insight ${a.insight_id}`,
    ],
    remediation: metricRemediation(a.metric),
  }));
}

function ownCause(input: RcaInput, blamedUpstream: boolean): Candidate {
  const { alert } = input;
  const labels = Object.entries(alert.labels).map(([k, v]) => `${k}=${v}`);
  const evidence = [
    `alert ${alert.id} "${alert.title}" on ${alert.service} (${alert.severity})`,
    blamedUpstream
      ? `upstream services of ${alert.service} alerted too`
      : `no alert upstream of ${alert.service} within ${input.windowSeconds} s`,
  ];
  if (labels.length > 0) evidence.push(`labels: ${labels.join(', ')}`);
  return {
    cause: `fault in ${alert.service} itself: ${alert.title}`,
    confidence: blamedUpstream ? 0.3 : 0.6,
    evidence,
    remediation: serviceRemediation(alert.service, alert.runbook_url),
  };
}

/** Probable causes, most likely first. */
export function rankCauses(input: RcaInput): ProbableCause[] {
  const upstream = upstreamCauses(input);
  const candidates = [...upstream, ...anomalyCauses(input), ownCause(input, upstream.length > 0)];
  return candidates
    .sort((a, b) => b.confidence - a.confidence)
    .map((candidate, i) => ({ rank: i + 1, ...candidate }));
}
