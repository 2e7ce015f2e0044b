/**
 * Which policy and which maintenance windows an alert falls under. Empty matchers match anything;
 * labels match when every listed label has the listed value.
 */
import type { Severity } from './tables.ts';

export interface AlertTraits {
  service: string;
  severity: Severity;
  labels: Record<string, string>;
}

export interface PolicyMatcher {
  id: string;
  is_default: boolean;
  match: { services: string[]; severities: Severity[]; labels: Record<string, string> };
}

export interface WindowMatcher {
  id: string;
  type: 'full_suppress' | 'reduce_severity' | 'notify_only';
  starts_at: string;
  ends_at: string;
  match: { services: string[]; labels: Record<string, string>; location_ids: string[] };
}

const labelsMatch = (wanted: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(wanted).every(([name, value]) => labels[name] === value);

const listed = <T>(list: readonly T[], value: T) => list.length === 0 || list.includes(value);

/** The first matching policy in creation order, else the tenant's default, else none. */
export function policyFor<P extends PolicyMatcher>(policies: readonly P[], alert: AlertTraits) {
  const specific = policies.find(
    (policy) =>
      !policy.is_default &&
      listed(policy.match.services, alert.service) &&
      listed(policy.match.severities, alert.severity) &&
      labelsMatch(policy.match.labels, alert.labels),
  );
  return specific ?? policies.find((policy) => policy.is_default);
}

const windowMatches = (window: WindowMatcher, alert: AlertTraits, at: string) =>
  window.starts_at <= at &&
  at < window.ends_at &&
  listed(window.match.services, alert.service) &&
  labelsMatch(window.match.labels, alert.labels) &&
  (window.match.location_ids.length === 0 ||
    window.match.location_ids.includes(alert.labels.location_id ?? ''));

const REDUCED: Partial<Record<Severity, Severity>> = { P1: 'P3', P2: 'P4' };
const STRENGTH = { full_suppress: 3, notify_only: 2, reduce_severity: 1 } as const;

export interface MaintenanceVerdict {
  window: WindowMatcher | undefined;
  suppressed: boolean;
  severity: Severity;
  originalSeverity: Severity | null;
  paging: boolean;
}

/**
 * The windows open at `at` that match: full suppress beats notify only, which beats reduce
 * severity; a reduce-severity window also applies under a notify-only one.
 */
export function maintenanceVerdict(windows: readonly WindowMatcher[], alert: AlertTraits, at: string) {
  const open = windows.filter((window) => windowMatches(window, alert, at));
  const strongest = open.sort((a, b) => STRENGTH[b.type] - STRENGTH[a.type])[0];
  const reduce = open.some((window) => window.type === 'reduce_severity');
  const reduced = reduce ? REDUCED[alert.severity] : undefined;
  const verdict: MaintenanceVerdict = {
    window: strongest,
    suppressed: strongest?.type === 'full_suppress',
    severity: reduced ?? alert.severity,
    originalSeverity: reduced ? alert.severity : null,
    paging: !strongest || strongest.type === 'reduce_severity',
  };
  return verdict;
}
