/**
 * One escalation step's work, inside the caller's transaction: notify the step's targets (with
 * dedupe keys) and schedule the step after it. Who is on call is looked up before the
 * transaction opens (on SQLite a read outside it would wait for it to end).
 */
import type { Logger } from 'pino';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import type { NotifyService } from '../notify/index.ts';
import type { OncallService, Person } from '../oncall/index.ts';
import {
  type EscalationPlan,
  nextStep,
  peopleAt,
  peopleOf,
  personKey,
  type ResolvedTarget,
  requestsFor,
} from './routing.ts';
import { steps } from './store.ts';
import type { AlertRow } from './tables.ts';

export interface ResolvedLevel {
  people: ResolvedTarget[];
  rooms: { teamChat: boolean; aiAgent: boolean };
}

export const NOBODY: ResolvedLevel = { people: [], rooms: { teamChat: false, aiAgent: false } };

export interface FiringDeps {
  newId: IdGenerator;
  log: Logger;
  notify: NotifyService;
  oncall: OncallService;
}

export function createFiring(deps: FiringDeps) {
  async function resolvePerson(tenantId: string, target: ReturnType<typeof peopleOf>[number], at: Date) {
    if (target.type === 'person') return target.person;
    const now = await deps.oncall.current(tenantId, target.team, at);
    const person = now?.current[target.role] ?? null;
    if (!person)
      deps.log.warn({ tenantId, team: target.team, role: target.role }, 'nobody on call for target');
    return person;
  }

  /** The level's people as of `at`, in the policy's order; a vacant on-call slot stays as null. */
  async function resolveLevel(tenantId: string, plan: EscalationPlan, level: number, at: Date) {
    const definition = plan.levels[level - 1];
    if (!definition) return NOBODY;
    const people: ResolvedTarget[] = [];
    for (const target of peopleOf(definition)) {
      const person = await resolvePerson(tenantId, target, at);
      people.push({ key: person ? personKey(person) : 'vacant', person });
    }
    const rooms = {
      teamChat: definition.targets.some((target) => target.type === 'team_chat'),
      aiAgent: definition.targets.some((target) => target.type === 'ai_agent'),
    };
    return { people, rooms };
  }

  /** Notifies the step's targets and schedules the next step; answers who was notified. */
  async function fire(
    tx: Db,
    row: AlertRow,
    plan: EscalationPlan,
    step: { level: number; position: number },
    resolved: ResolvedLevel,
    at: Date,
  ): Promise<Person[]> {
    const chosen = peopleAt(plan, resolved.people, step.position);
    const requests = requestsFor(row, plan, step, chosen, resolved.rooms);
    if (requests.length > 0) await deps.notify.enqueue(tx, row.tenant_id, requests);
    if (row.severity === 'P5') {
      deps.log.info(
        {
          tenantId: row.tenant_id,
          alertId: row.id,
          service: row.service,
          title: row.title,
          severity: row.severity,
        },
        'informational alert logged',
      );
      return [];
    }
    const next = nextStep(plan, step.level, step.position);
    if (next) {
      await steps.schedule(tx, {
        id: deps.newId(),
        tenant_id: row.tenant_id,
        alert_id: row.id,
        level: next.level,
        position: next.position,
        due_at: new Date(at.getTime() + next.delayMs).toISOString(),
        done_at: null,
        outcome: null,
        fires_alert: 0,
        created_at: at.toISOString(),
      });
    }
    return chosen.flatMap((target) => (target.person ? [target.person] : []));
  }

  return { resolveLevel, fire };
}

export type Firing = ReturnType<typeof createFiring>;
