import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db, Store } from '../db/index.ts';
import type { EventLog } from '../events/index.ts';
import type { NotifyService } from '../notify/index.ts';
import type { OncallService, Person } from '../oncall/index.ts';
import type { AlertingConfig } from './config.ts';
import { type AlertAction, alertNotFound, invalidTransition } from './errors.ts';
import { createEscalationWorker } from './escalation.ts';
import { createFiring } from './firing.ts';
import { createIngest } from './ingest.ts';
import { fingerprintOf } from './routing.ts';
import type { IngestBody } from './schemas.ts';
import { createAlertSettings } from './settings.ts';
import { type AlertPatch, alert, alerts, openAlert, startedBetween, steps, transition } from './store.ts';
import type { AlertRow, AlertStatus } from './tables.ts';
import { type AlertView, toAlert } from './views.ts';
import { createVoiceMenu, type VoiceKey } from './voice.ts';

export type Alert = AlertView;

export interface AlertFired {
  tenantId: string;
  alert: Alert;
  /** The people level 1 notified (on-call resolved at the time). */
  responders: Person[];
  policyId: string | null;
}

/** An open alert was acknowledged or resolved by someone, or escalated by a time-out. */
export interface AlertChanged {
  tenantId: string;
  alert: Alert;
  action: 'acknowledge' | 'resolve' | 'escalate';
  by: string | null;
  note: string | null;
}

export interface AlertingDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: AlertingConfig;
  notify: NotifyService;
  oncall: OncallService;
}

export const LIST_STATUSES: Record<
  'active' | 'acknowledged' | 'resolved' | 'all',
  AlertStatus[] | undefined
> = {
  active: ['firing'],
  acknowledged: ['acknowledged'],
  resolved: ['resolved'],
  all: undefined,
};

const FROM: Record<AlertAction, readonly AlertStatus[]> = {
  acknowledge: ['firing'],
  resolve: ['firing', 'acknowledged'],
};

/**
 * Alerting: ingest with fingerprint dedupe, severity routing, escalation by policy, maintenance
 * windows, and the listeners (incident flow, AIOps) told of each new alert after it commits.
 */
export function createAlertingService(deps: AlertingDeps) {
  const { db } = deps.store;
  const log = deps.log;
  const listeners: Array<(event: AlertFired) => void | Promise<void>> = [];
  const changeListeners: Array<(event: AlertChanged) => void | Promise<void>> = [];
  const pending = new Set<Promise<void>>();
  const firing = createFiring({ newId: deps.newId, log, notify: deps.notify, oncall: deps.oncall });
  const engine = createIngest({ store: deps.store, clock: deps.clock, newId: deps.newId, log, firing });
  const settings = createAlertSettings({ store: deps.store, clock: deps.clock, newId: deps.newId });

  /** After the commit, never in the caller's way: a listener's failure is logged, not raised. */
  function tell<E>(targets: Array<(event: E) => void | Promise<void>>, event: E, alertId: string) {
    for (const listener of targets) {
      const call = Promise.resolve()
        .then(() => listener(event))
        .catch((error: unknown) => log.error({ err: error, alertId }, 'alert listener failed'))
        .finally(() => pending.delete(call));
      pending.add(call);
    }
  }

  function fired(row: AlertRow, responders: Person[]) {
    const event = { tenantId: row.tenant_id, alert: toAlert(row), responders, policyId: row.policy_id };
    tell(listeners, event, row.id);
  }

  function changed(row: AlertRow, action: AlertChanged['action'], by: string | null, note: string | null) {
    tell(changeListeners, { tenantId: row.tenant_id, alert: toAlert(row), action, by, note }, row.id);
  }

  async function settled() {
    while (pending.size > 0) await Promise.all([...pending]);
  }

  const worker = createEscalationWorker({
    store: deps.store,
    clock: deps.clock,
    log,
    firing,
    options: deps.options,
    fired,
    escalated: (row) => changed(row, 'escalate', null, null),
  });

  async function move(tenantId: string, id: string, action: AlertAction, by: string, note: string | null) {
    const at = deps.clock.now().toISOString();
    const patch: AlertPatch =
      action === 'acknowledge'
        ? { status: 'acknowledged', acknowledged_at: at, acknowledged_by: by, note, updated_at: at }
        : { status: 'resolved', resolved_at: at, resolved_by: by, resolution_note: note, updated_at: at };
    const row = await transition(db, tenantId, id, FROM[action], patch);
    if (row) {
      log.info({ tenantId, alertId: id, action, by }, 'alert transition');
      changed(row, action, by, note);
      return toAlert(row);
    }
    const current = await alert(db, tenantId, id);
    throw current ? invalidTransition(current.status, action) : alertNotFound();
  }

  const service = {
    /** `created` is false when the ingest was folded into the open alert of its fingerprint. */
    async ingest(tenantId: string, input: IngestBody) {
      const result = await engine.ingest(tenantId, input);
      if (result.fired) fired(result.row, result.responders);
      return { alert: toAlert(result.row), created: result.created };
    },

    /** The event flow: ingest inside the caller's transaction (level 1 runs as a due step). */
    ingestWithin: (tx: Db, tenantId: string, input: IngestBody) => engine.ingestWithin(tx, tenantId, input),

    /** The event flow: an edge alert cleared; resolves the open alert of that fingerprint. */
    async resolveWithin(
      tx: Db,
      tenantId: string,
      input: Pick<IngestBody, 'source' | 'service' | 'title' | 'labels'>,
      by: string,
    ) {
      const open = await openAlert(tx, tenantId, fingerprintOf({ ...input, labels: input.labels ?? {} }));
      if (!open) return undefined;
      const at = deps.clock.now().toISOString();
      return transition(tx, tenantId, open.id, FROM.resolve, {
        status: 'resolved',
        resolved_at: at,
        resolved_by: by,
        resolution_note: 'cleared at the source',
        updated_at: at,
      });
    },

    async get(tenantId: string, id: string): Promise<Alert | undefined> {
      const row = await alert(db, tenantId, id);
      return row ? toAlert(row) : undefined;
    },

    async require(tenantId: string, id: string) {
      const row = await alert(db, tenantId, id);
      if (!row) throw alertNotFound();
      return toAlert(row);
    },

    /** Alerts started in [from, to], oldest first (correlation). */
    async between(tenantId: string, fromIso: string, toIso: string): Promise<Alert[]> {
      const from = new Date(fromIso).toISOString();
      const to = new Date(toIso).toISOString();
      return (await startedBetween(db, tenantId, from, to)).map(toAlert);
    },

    /** Newest first; `cursor` is the previous page's `next_cursor`. */
    async list(
      tenantId: string,
      status: keyof typeof LIST_STATUSES,
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await alerts(db, tenantId, LIST_STATUSES[status], {
        limit: page.limit + 1,
        before: page.cursor,
      });
      const items = rows.slice(0, page.limit).map(toAlert);
      return { alerts: items, next_cursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },

    acknowledge: (tenantId: string, id: string, by: string, note?: string) =>
      move(tenantId, id, 'acknowledge', by, note ?? null),
    resolve: (tenantId: string, id: string, by: string, note?: string) =>
      move(tenantId, id, 'resolve', by, note ?? null),

    /** The voice menu's key press (voice.ts). */
    voiceKeypress: (id: string, token: string, key: VoiceKey) => voiceMenu(id, token, key),

    /**
     * Escalates now instead of at the next time-out (a responder pressed 2 on the voice call): the
     * alert's pending steps fall due at once and the worker runs them as it would have. False when
     * nothing is left to escalate to, or the alert is not firing.
     */
    async escalateNow(tenantId: string, id: string) {
      const row = await alert(db, tenantId, id);
      if (!row) throw alertNotFound();
      if (row.status !== 'firing') return false;
      const moved = await steps.bringForward(db, tenantId, id, deps.clock.now().toISOString());
      if (moved > 0) await worker.runDue();
      return moved > 0;
    },

    /** The escalation steps of an alert, done and pending (tests, debugging). */
    steps: (tenantId: string, alertId: string) => steps.ofAlert(db, tenantId, alertId),

    settings,

    onFired(listener: (event: AlertFired) => void | Promise<void>) {
      listeners.push(listener);
    },

    /** Acknowledged, resolved or escalated: told after the commit, like onFired. */
    onChanged(listener: (event: AlertChanged) => void | Promise<void>) {
      changeListeners.push(listener);
    },

    /** Runs the escalation steps due at the clock's time (tests; the worker calls it on its own). */
    runDue: () => worker.runDue(),

    /** Waits for the listener calls in flight. */
    settled,

    start() {
      if (deps.options.runWorker) worker.start();
    },

    async close() {
      await worker.close();
      await settled();
    },
  };
  const voiceMenu = createVoiceMenu({ notify: deps.notify, alerting: service });
  return service;
}

export type AlertingService = ReturnType<typeof createAlertingService>;
