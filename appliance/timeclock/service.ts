import type { Clock } from '../../shared/clock.ts';
import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ChangeLog } from '../db/change-log.ts';
import type { ApplianceDatabase } from '../db/index.ts';

export type PunchKind = 'clock_in' | 'clock_out' | 'break_start' | 'break_end';
export type ShiftState = 'off' | 'working' | 'on_break';

interface PunchRow {
  id: string;
  staff_id: string;
  kind: PunchKind;
  at: string;
  replaces: string | null;
  corrected_by: string | null;
  reason: string | null;
  created_at: string;
}

/** Which punch each state allows, and where it leads. */
const TRANSITIONS: Record<ShiftState, Partial<Record<PunchKind, ShiftState>>> = {
  off: { clock_in: 'working' },
  working: { clock_out: 'off', break_start: 'on_break' },
  on_break: { break_end: 'working' },
};

const punchNotAllowed = (state: ShiftState, kind: PunchKind) =>
  new AppError(
    409,
    'PUNCH_NOT_ALLOWED',
    `A ${kind.replace('_', ' ')} is not possible while ${state.replace('_', ' ')}`,
  );

export const toPunch = (row: PunchRow) => ({ ...row });
export type Punch = ReturnType<typeof toPunch>;

/**
 * The time clock: staff clock in and out and take breaks; a manager can correct a punch. The
 * punches in force are those no later punch replaces.
 */
export function createTimeClockService(deps: {
  db: ApplianceDatabase;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
}) {
  const { db, changes, clock } = deps;
  const insert = db.prepare(
    `insert into time_punches (id, staff_id, kind, at, replaces, corrected_by, reason, created_at)
     values (@id, @staff_id, @kind, @at, @replaces, @corrected_by, @reason, @created_at)`,
  );
  const inForce = db.prepare(
    `select * from time_punches p where staff_id = ?
       and not exists (select 1 from time_punches c where c.replaces = p.id)
     order by at, created_at`,
  );
  const byId = db.prepare('select * from time_punches where id = ?');

  const punchesOf = (staffId: string) => inForce.all(staffId) as PunchRow[];

  /** Replays the punches in force; undefined when they do not make a valid sequence. */
  function replay(punches: Array<Pick<PunchRow, 'kind'>>): ShiftState | undefined {
    let state: ShiftState = 'off';
    for (const punch of punches) {
      const next: ShiftState | undefined = TRANSITIONS[state][punch.kind];
      if (!next) return undefined;
      state = next;
    }
    return state;
  }

  function add(row: PunchRow) {
    insert.run(row);
    changes.recordChange({ table: 'time_punches', rowId: row.id, operation: 'insert', version: 1 });
    return toPunch(row);
  }

  return {
    state: (staffId: string): ShiftState => replay(punchesOf(staffId)) ?? 'off',
    punches: (staffId: string) => punchesOf(staffId).map(toPunch),

    punch(staffId: string, kind: PunchKind) {
      return db.transaction(() => {
        const state = replay(punchesOf(staffId)) ?? 'off';
        if (!TRANSITIONS[state][kind]) throw punchNotAllowed(state, kind);
        const at = clock.now().toISOString();
        return add({
          id: deps.newId(),
          staff_id: staffId,
          kind,
          at,
          replaces: null,
          corrected_by: null,
          reason: null,
          created_at: at,
        });
      })();
    },

    /** A manager moves a punch in time; refused when the day would no longer add up. */
    correct(punchId: string, input: { at: string; managerId: string; reason: string }) {
      if (Number.isNaN(Date.parse(input.at))) {
        throw new InvalidRequestError('The request is invalid', [
          { field: 'body.at', message: 'must be an ISO 8601 time' },
        ]);
      }
      if (input.reason.trim() === '') {
        throw new InvalidRequestError('The request is invalid', [
          { field: 'body.reason', message: 'must say why' },
        ]);
      }
      return db.transaction(() => {
        const original = byId.get(punchId) as PunchRow | undefined;
        const current = original && punchesOf(original.staff_id).find((p) => p.id === punchId);
        if (!original || !current) throw new NotFoundError('Punch', 'PUNCH_NOT_FOUND');
        const at = new Date(input.at).toISOString();
        const proposed = punchesOf(original.staff_id)
          .map((p) => (p.id === punchId ? { ...p, at } : p))
          .sort((a, b) => a.at.localeCompare(b.at));
        if (replay(proposed) === undefined)
          throw new AppError(409, 'PUNCH_ORDER_INVALID', 'The corrected time puts the punches out of order');
        return add({
          ...original,
          id: deps.newId(),
          at,
          replaces: punchId,
          corrected_by: input.managerId,
          reason: input.reason.trim(),
          created_at: clock.now().toISOString(),
        });
      })();
    },
  };
}

export type TimeClockService = ReturnType<typeof createTimeClockService>;
