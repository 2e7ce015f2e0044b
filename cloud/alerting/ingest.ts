/**
 * Ingest: fingerprint, dedupe, maintenance windows, the matching policy, and, for a new alert that
 * is not suppressed, level 1's notifications and the next step, all in the transaction that opens
 * the alert. The event flow ingests inside the sync transaction instead; it cannot look up who is
 * on call there, so it writes level 1 as a step due now, which the worker runs at once.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db, Store } from '../db/index.ts';
import type { Person } from '../oncall/index.ts';
import { type Firing, NOBODY, type ResolvedLevel } from './firing.ts';
import { type AlertTraits, type MaintenanceVerdict, maintenanceVerdict, policyFor } from './matching.ts';
import { type EscalationPlan, fingerprintOf } from './routing.ts';
import type { IngestBody } from './schemas.ts';
import { policies, windows } from './settings-store.ts';
import { openAlert, openOrRepeat, repeat, steps, transition } from './store.ts';
import type { AlertRow } from './tables.ts';
import { toPolicy, toWindow } from './views.ts';

export interface IngestDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  firing: Firing;
}

export interface Ingested {
  row: AlertRow;
  created: boolean;
  /** A new alert not suppressed, with level 1 notified: the onFired listeners hear of it. */
  fired: boolean;
  responders: Person[];
}

interface Prepared {
  traits: AlertTraits;
  verdict: MaintenanceVerdict;
  plan: EscalationPlan;
}

const NO_POLICY = { policy_id: null, mode: 'parallel', skip_when_acknowledged: true, offset: 0 } as const;

export function createIngest(deps: IngestDeps) {
  const { db } = deps.store;

  /** The windows and the policy that apply to an alert with these traits, now. */
  async function prepare(reader: Db, tenantId: string, traits: AlertTraits, at: string): Promise<Prepared> {
    const open = (await windows.openAt(reader, tenantId, at)).map(toWindow);
    const verdict = maintenanceVerdict(open, traits, at);
    const effective = { ...traits, severity: verdict.severity };
    const policy = policyFor((await policies.all(reader, tenantId)).map(toPolicy), effective);
    const plan: EscalationPlan = policy
      ? {
          policy_id: policy.id,
          mode: policy.mode,
          skip_when_acknowledged: policy.skip_when_acknowledged,
          levels: policy.levels,
          offset: 0,
          paging: verdict.paging,
        }
      : { ...NO_POLICY, levels: [{ targets: [], timeout_minutes: null }], paging: verdict.paging };
    return { traits: effective, verdict, plan };
  }

  function newRow(
    tenantId: string,
    input: IngestBody,
    fingerprint: string,
    p: Prepared,
    at: string,
  ): AlertRow {
    return {
      id: deps.newId(),
      tenant_id: tenantId,
      fingerprint,
      source: input.source,
      severity: p.verdict.severity,
      original_severity: p.verdict.originalSeverity,
      title: input.title,
      description: input.description ?? null,
      service: input.service,
      environment: input.environment ?? null,
      labels: JSON.stringify(input.labels ?? {}),
      runbook_url: input.runbook_url ?? null,
      status: 'firing',
      started_at: at,
      last_seen_at: at,
      occurrences: 1,
      escalation_level: 1,
      acknowledged_at: null,
      acknowledged_by: null,
      note: null,
      resolved_at: null,
      resolved_by: null,
      resolution_note: null,
      suppressed: p.verdict.suppressed ? 1 : 0,
      maintenance_window_id: p.verdict.window?.id ?? null,
      maintenance_type: p.verdict.window?.type ?? null,
      policy_id: p.plan.policy_id,
      escalation: JSON.stringify(p.plan),
      updated_at: at,
    };
  }

  /**
   * A suppressed alert whose window has closed no longer holds its fingerprint: it is resolved
   * (by `maintenance`) so this ingest opens a live alert that notifies.
   */
  const release = (tx: Db, row: AlertRow, at: string) =>
    transition(tx, row.tenant_id, row.id, ['firing', 'acknowledged'], {
      status: 'resolved',
      resolved_at: at,
      resolved_by: 'maintenance',
      resolution_note: 'maintenance window ended; a new alert took over',
      updated_at: at,
    });

  /** Opens the row (or folds it into the open one), taking the round-robin turn for a new one. */
  async function open(tx: Db, row: AlertRow, plan: EscalationPlan) {
    if (plan.mode === 'round_robin' && plan.policy_id && row.suppressed === 0) {
      const offset = await policies.takeTurn(tx, row.tenant_id, plan.policy_id);
      row.escalation = JSON.stringify({ ...plan, offset });
    }
    const stored = await openOrRepeat(tx, row);
    return { stored, created: stored.id === row.id, plan: JSON.parse(row.escalation!) as EscalationPlan };
  }

  function traitsOf(input: IngestBody): AlertTraits {
    return { service: input.service, severity: input.severity, labels: input.labels ?? {} };
  }

  return {
    /** The API path: level 1 is notified in the transaction that opens the alert. */
    async ingest(tenantId: string, input: IngestBody): Promise<Ingested> {
      const now = deps.clock.now();
      const at = now.toISOString();
      const fingerprint = fingerprintOf({ ...input, labels: input.labels ?? {} });
      const existing = await openAlert(db, tenantId, fingerprint);
      const prepared =
        existing?.suppressed === 0 ? undefined : await prepare(db, tenantId, traitsOf(input), at);
      const stillSuppressed = prepared?.verdict.suppressed ?? false;
      if (existing && (existing.suppressed === 0 || stillSuppressed)) {
        const row = await repeat(db, tenantId, existing.id, { at, description: input.description ?? null });
        if (row) return { row, created: false, fired: false, responders: [] };
      }
      const p = prepared ?? (await prepare(db, tenantId, traitsOf(input), at));
      const level1: ResolvedLevel = p.verdict.suppressed
        ? NOBODY
        : await deps.firing.resolveLevel(tenantId, p.plan, 1, now);
      return db.transaction().execute(async (tx) => {
        if (existing && existing.suppressed === 1 && !p.verdict.suppressed) await release(tx, existing, at);
        const { stored, created, plan } = await open(tx, newRow(tenantId, input, fingerprint, p, at), p.plan);
        if (!created || p.verdict.suppressed) return { row: stored, created, fired: false, responders: [] };
        const responders = await deps.firing.fire(tx, stored, plan, { level: 1, position: 0 }, level1, now);
        return { row: stored, created, fired: true, responders };
      });
    },

    /** The event flow's path, inside the caller's transaction: level 1 becomes a step due now. */
    async ingestWithin(tx: Db, tenantId: string, input: IngestBody) {
      const at = deps.clock.now().toISOString();
      const fingerprint = fingerprintOf({ ...input, labels: input.labels ?? {} });
      const p = await prepare(tx, tenantId, traitsOf(input), at);
      const existing = await openAlert(tx, tenantId, fingerprint);
      if (existing && existing.suppressed === 1 && !p.verdict.suppressed) await release(tx, existing, at);
      const { stored, created } = await open(tx, newRow(tenantId, input, fingerprint, p, at), p.plan);
      if (!created || p.verdict.suppressed) return { row: stored, created };
      await steps.schedule(tx, {
        id: deps.newId(),
        tenant_id: tenantId,
        alert_id: stored.id,
        level: 1,
        position: 0,
        due_at: at,
        done_at: null,
        outcome: null,
        fires_alert: 1,
        created_at: at,
      });
      return { row: stored, created };
    },
  };
}

export type IngestEngine = ReturnType<typeof createIngest>;
