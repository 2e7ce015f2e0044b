/**
 * The escalation worker. Time-outs are rows of `alert_escalation_steps`; a step's claim, the
 * alert's level change, its notifications and the next step's scheduling commit in one
 * transaction, so a crash replays the step whole (or not at all) and a second replica skips the
 * step another holds. Notify's dedupe keys make a replay after a lost commit answer harmless.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { Store } from '../db/index.ts';
import type { Person } from '../oncall/index.ts';
import { type Firing, NOBODY } from './firing.ts';
import type { EscalationPlan } from './routing.ts';
import { alert, steps } from './store.ts';
import type { AlertRow, EscalationStepRow } from './tables.ts';
import { planOf } from './views.ts';

export interface EscalationDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  firing: Firing;
  options: { pollMs: number; batchSize: number };
  /** A flow-born alert's level 1 ran: it counts as fired now. */
  fired(row: AlertRow, responders: Person[]): void;
  /** A time-out moved the alert to a higher level. */
  escalated(row: AlertRow): void;
}

/** Whether escalation goes on: firing (or acknowledged, when the policy does not skip it). */
const escalates = (row: AlertRow, plan: EscalationPlan) =>
  row.suppressed === 0 &&
  (row.status === 'firing' || (row.status === 'acknowledged' && !plan.skip_when_acknowledged));

export function createEscalationWorker(deps: EscalationDeps) {
  const { store, clock } = deps;
  const db = store.db;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  const lockedAlert = (tx: typeof db, step: EscalationStepRow) =>
    tx
      .selectFrom('alerts')
      .selectAll()
      .where('tenant_id', '=', step.tenant_id)
      .where('id', '=', step.alert_id)
      .$if(store.dialect === 'pg', (q) => q.forUpdate())
      .executeTakeFirst();

  /** One step in one transaction; answers whether it notified. */
  async function runStep(step: EscalationStepRow) {
    const now = clock.now();
    const at = now.toISOString();
    const before = await alert(db, step.tenant_id, step.alert_id);
    const plan = before ? planOf(before) : null;
    const live = before && plan && escalates(before, plan);
    const resolved = live ? await deps.firing.resolveLevel(step.tenant_id, plan, step.level, now) : NOBODY;
    const result = await db.transaction().execute(async (tx) => {
      if (!(await steps.claim(tx, store.dialect, step, at, 'notified'))) return undefined;
      const current = await lockedAlert(tx, step);
      if (!current || !plan || !escalates(current, plan)) {
        await steps.setOutcome(tx, step.tenant_id, step.id, 'stopped');
        return undefined;
      }
      const previous = Number(current.escalation_level);
      const level = Math.max(previous, step.level);
      const row = await tx
        .updateTable('alerts')
        .set({ escalation_level: level, updated_at: at })
        .where('tenant_id', '=', step.tenant_id)
        .where('id', '=', step.alert_id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const responders = await deps.firing.fire(tx, row, plan, step, resolved, now);
      return { row, responders, raised: level > previous };
    });
    if (result && step.fires_alert === 1) deps.fired(result.row, result.responders);
    if (result?.raised) deps.escalated(result.row);
    if (result)
      deps.log.info(
        { alertId: step.alert_id, level: step.level, position: step.position },
        'escalation step notified',
      );
    return result !== undefined;
  }

  /** Runs every step due at the clock's time; answers how many notified. */
  async function runDue() {
    let notified = 0;
    // A step that failed, or that another replica holds, is left for the next look.
    const seen = new Set<string>();
    for (;;) {
      const limit = deps.options.batchSize + seen.size;
      const due = await steps.due(db, clock.now().toISOString(), limit);
      const fresh = due.filter((step) => !seen.has(step.id));
      for (const step of fresh) {
        seen.add(step.id);
        try {
          if (await runStep(step)) notified += 1;
        } catch (error) {
          deps.log.error({ err: error, stepId: step.id, alertId: step.alert_id }, 'escalation step failed');
        }
      }
      if (fresh.length === 0 || due.length < limit) return notified;
    }
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runDue()
        .catch((error: unknown) => deps.log.error({ err: error }, 'escalation poll failed'))
        .finally(schedule);
    }, deps.options.pollMs);
  }

  return {
    runDue,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
