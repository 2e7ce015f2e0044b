/**
 * Alert correlation without I/O. A set of alerts scores from three factors, each 0 to 1:
 * - time: how close together they started (1 at once, 0.5 at the window's edge, 0 beyond it);
 * - dependency: the share of the other alerts whose service lies on the dependency graph below the
 *   most upstream alerting service (or is that service);
 * - labels: the share of alert pairs that share a location or a device label.
 * With the graph the score is 0.4·time + 0.4·dependency + 0.2·labels; without it
 * 0.6·time + 0.4·labels. Alerts spread wider than the window never correlate.
 */
import { type DependencyGraph, isUpstream, rootOf } from './graph.ts';

export interface CorrelatedAlert {
  id: string;
  title: string;
  service: string;
  severity: string;
  started_at: string;
  labels: Record<string, string>;
  runbook_url: string | null;
}

export interface CorrelationRule {
  windowSeconds: number;
  minScore: number;
  /** null: the graph is not used (AIOPS_USE_DEPENDENCY_GRAPH=false). */
  graph: DependencyGraph | null;
}

/** Labels that place two alerts at the same store or on the same device. */
export const PLACE_LABELS = ['location_id', 'location', 'device_id', 'device', 'store', 'host'] as const;

export type Relationship = 'root_cause' | 'downstream' | 'same_service' | 'shared_labels' | 'temporal';

export interface CorrelationMember {
  alert_id: string;
  title: string;
  correlation_score: number;
  relationship: Relationship;
}

export interface CorrelationFactors {
  time: number;
  dependency: number | null;
  labels: number;
  spread_seconds: number;
}

export interface Correlation {
  is_correlated: boolean;
  correlation_score: number;
  root_cause_alert: string | null;
  probable_cause: string | null;
  dependency_chain: string[];
  factors: CorrelationFactors;
  members: CorrelationMember[];
  root: CorrelatedAlert;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

export function sharesPlace(a: CorrelatedAlert, b: CorrelatedAlert) {
  return PLACE_LABELS.some((key) => a.labels[key] !== undefined && a.labels[key] === b.labels[key]);
}

export function timeFactor(spreadMs: number, windowSeconds: number) {
  const window = windowSeconds * 1000;
  return spreadMs > window ? 0 : 1 - (0.5 * spreadMs) / window;
}

/**
 * The share of pairs that share a place. Counted by inclusion–exclusion over the subsets of place
 * labels (pairs agreeing on every label of a subset), so a storm of n alerts costs 63·n, not n².
 */
function labelFactor(alerts: readonly CorrelatedAlert[]) {
  const pairs = (alerts.length * (alerts.length - 1)) / 2;
  if (pairs === 0) return 0;
  let shared = 0;
  for (let subset = 1; subset < 1 << PLACE_LABELS.length; subset += 1) {
    const keys = PLACE_LABELS.filter((_, bit) => subset & (1 << bit));
    const counts = new Map<string, number>();
    for (const alert of alerts) {
      const values = keys.map((key) => alert.labels[key]);
      if (values.some((value) => value === undefined)) continue;
      const tuple = JSON.stringify(values);
      counts.set(tuple, (counts.get(tuple) ?? 0) + 1);
    }
    let agreeing = 0;
    for (const count of counts.values()) agreeing += (count * (count - 1)) / 2;
    shared += keys.length % 2 === 1 ? agreeing : -agreeing;
  }
  return shared / pairs;
}

const weighted = (f: CorrelationFactors) =>
  f.dependency === null ? 0.6 * f.time + 0.4 * f.labels : 0.4 * f.time + 0.4 * f.dependency + 0.2 * f.labels;

/** The root: the most upstream alerting service's earliest alert (the earliest alert without a graph). */
function pickRoot(alerts: readonly CorrelatedAlert[], graph: DependencyGraph | null) {
  const byStart = [...alerts].sort((a, b) => a.started_at.localeCompare(b.started_at));
  if (!graph) return { root: byStart[0]!, chain: [byStart[0]!.service], covered: [byStart[0]!.service] };
  const { root, chain, covered } = rootOf(
    graph,
    byStart.map((a) => a.service),
  );
  return { root: byStart.find((a) => a.service === root)!, chain, covered };
}

function relationship(
  alert: CorrelatedAlert,
  root: CorrelatedAlert,
  graph: DependencyGraph | null,
): Relationship {
  if (alert.id === root.id) return 'root_cause';
  if (alert.service === root.service) return 'same_service';
  if (graph && isUpstream(graph, root.service, alert.service)) return 'downstream';
  if (sharesPlace(alert, root)) return 'shared_labels';
  return 'temporal';
}

/** Scores a set of two or more alerts (see the module comment). */
export function correlate(alerts: readonly CorrelatedAlert[], rule: CorrelationRule): Correlation {
  const starts = alerts.map((a) => Date.parse(a.started_at));
  const spread = Math.max(...starts) - Math.min(...starts);
  const { root, chain, covered } = pickRoot(alerts, rule.graph);
  const coveredSet = new Set(covered);
  const factors: CorrelationFactors = {
    time: round3(timeFactor(spread, rule.windowSeconds)),
    dependency: rule.graph
      ? round3(
          alerts.filter((a) => a.id !== root.id && coveredSet.has(a.service)).length /
            Math.max(1, alerts.length - 1),
        )
      : null,
    labels: round3(labelFactor(alerts)),
    spread_seconds: Math.round(spread / 1000),
  };
  const score = round3(weighted(factors));
  const correlated = spread <= rule.windowSeconds * 1000 && score >= rule.minScore;
  const members = alerts.map((alert) => ({
    alert_id: alert.id,
    title: alert.title,
    correlation_score: alert.id === root.id ? 1 : pairScore(root, alert, rule),
    relationship: relationship(alert, root, rule.graph),
  }));
  return {
    is_correlated: correlated,
    correlation_score: score,
    root_cause_alert: correlated ? root.id : null,
    probable_cause: correlated ? probableCause(root, chain) : null,
    dependency_chain: correlated ? chain : [],
    factors,
    members,
    root,
  };
}

/** The score of a pair: what a member's `correlation_score` in a group is (against the root). */
export function pairScore(a: CorrelatedAlert, b: CorrelatedAlert, rule: CorrelationRule) {
  const spread = Math.abs(Date.parse(a.started_at) - Date.parse(b.started_at));
  const linked =
    a.service === b.service ||
    (rule.graph !== null &&
      (isUpstream(rule.graph, a.service, b.service) || isUpstream(rule.graph, b.service, a.service)));
  return round3(
    weighted({
      time: timeFactor(spread, rule.windowSeconds),
      dependency: rule.graph ? (linked ? 1 : 0) : null,
      labels: sharesPlace(a, b) ? 1 : 0,
      spread_seconds: 0,
    }),
  );
}

export function probableCause(root: CorrelatedAlert, chain: readonly string[]) {
  const below = chain.slice(1);
  const effect = below.length > 0 ? `, cascading to ${below.join(' → ')}` : '';
  return `${root.service} failure: ${root.title}${effect}`;
}
