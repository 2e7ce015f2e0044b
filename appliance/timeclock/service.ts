import type { Clock } from '../../shared/clock.ts';
import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import {
  createRowDoc,
  type FieldValue,
  fieldStamps,
  loadRowDoc,
  readFields,
  settleRowDoc,
  writeFields,
} from '../../shared/sync/merge-doc.ts';
import { SYNC_TABLES } from '../../shared/sync/registry.ts';
import type { ApplianceDatabase, ChangeLog } from '../db/index.ts';
import { type DaySources, staffDay } from './day.ts';

export type PunchKind = 'clock_in' | 'clock_out' | 'break_start' | 'break_end';
export type ShiftState = 'off' | 'working' | 'on_break';

/** The columns a punch's document holds, as the sync registry lists them. */
interface PunchFields {
  id: string;
  staff_id: string;
  kind: PunchKind;
  at: string;
  note: string | null;
  corrected_by: string | null;
  reason: string | null;
  created_at: string;
}

interface PunchRow extends PunchFields {
  version: number;
  doc: string | null;
}

type RowDoc = ReturnType<typeof createRowDoc>;

const COLUMNS = Object.keys(SYNC_TABLES.time_punches.columns) as Array<keyof PunchFields>;

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

/** Clocking in and out are events the admin interface publishes; breaks are not. */
const PUNCH_EVENTS: Partial<Record<PunchKind, 'employee.clocked_in' | 'employee.clocked_out'>> = {
  clock_in: 'employee.clocked_in',
  clock_out: 'employee.clocked_out',
};

const columnsOf = (row: PunchFields): Record<string, FieldValue> =>
  Object.fromEntries(COLUMNS.map((column) => [column, row[column]]));

/** The row's columns are whatever its document resolves to. */
function materialise(doc: RowDoc): PunchFields {
  const fields = readFields(doc);
  const text = (column: keyof PunchFields) => {
    const value = fields[column];
    return typeof value === 'string' ? value : null;
  };
  return {
    id: String(fields.id),
    staff_id: String(fields.staff_id),
    kind: fields.kind as PunchKind,
    at: String(fields.at),
    note: text('note'),
    corrected_by: text('corrected_by'),
    reason: text('reason'),
    created_at: String(fields.created_at),
  };
}

export const toPunch = (row: PunchFields & { version: number }) => ({
  id: row.id,
  staff_id: row.staff_id,
  kind: row.kind,
  at: row.at,
  note: row.note,
  corrected_by: row.corrected_by,
  reason: row.reason,
  created_at: row.created_at,
  version: row.version,
});
export type Punch = ReturnType<typeof toPunch>;

function validateCorrection(input: { at: string; reason: string }) {
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
}

/** By display name, staff this appliance does not know last, then by id. */
const byName = (
  a: { staff_id: string; display_name: string | null },
  b: { staff_id: string; display_name: string | null },
) =>
  (a.display_name === null ? 1 : 0) - (b.display_name === null ? 1 : 0) ||
  (a.display_name ?? '').localeCompare(b.display_name ?? '', undefined, { sensitivity: 'base' }) ||
  a.staff_id.localeCompare(b.staff_id);

/** Replays punches in order; undefined when they do not make a valid sequence. */
function replay(punches: Array<Pick<PunchFields, 'kind'>>): ShiftState | undefined {
  let state: ShiftState = 'off';
  for (const punch of punches) {
    const next: ShiftState | undefined = TRANSITIONS[state][punch.kind];
    if (!next) return undefined;
    state = next;
  }
  return state;
}

/**
 * The time clock: staff clock in and out and take breaks; a manager can correct a punch. A punch is
 * one row, edited in place through its Yjs document so edits here and in the cloud both survive.
 * Rows written before that kept corrections as new rows (`replaces`); a replaced one is not in force.
 */
export function createTimeClockService(deps: {
  db: ApplianceDatabase;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
}) {
  const { db, changes, clock } = deps;
  const insert = db.prepare(
    `insert into time_punches (id, staff_id, kind, at, note, corrected_by, reason, created_at, version, updated_at, doc)
     values (@id, @staff_id, @kind, @at, @note, @corrected_by, @reason, @created_at, @version, @updated_at, @doc)`,
  );
  const update = db.prepare(
    `update time_punches set staff_id = @staff_id, kind = @kind, at = @at, note = @note,
       corrected_by = @corrected_by, reason = @reason, created_at = @created_at,
       version = @version, updated_at = @updated_at, doc = @doc
     where id = @id`,
  );
  const inForce = db.prepare(
    `select id, staff_id, kind, at, note, corrected_by, reason, created_at, version
     from time_punches p where staff_id = ?
       and not exists (select 1 from time_punches c where c.replaces = p.id)
     order by at, created_at`,
  );
  const inForceBetween = db.prepare(
    `select id, staff_id, kind, at, note, corrected_by, reason, created_at, version
     from time_punches p where at >= ? and at < ?
       and not exists (select 1 from time_punches c where c.replaces = p.id)
     order by staff_id, at, created_at`,
  );
  const byId = db.prepare(
    'select id, staff_id, kind, at, note, corrected_by, reason, created_at, version, doc from time_punches where id = ?',
  );

  const punchesOf = (staffId: string) => inForce.all(staffId) as Array<PunchFields & { version: number }>;

  /** A legacy row has no document yet: its current columns become one, under a single stamp. */
  function docOf(row: PunchRow): RowDoc {
    if (row.doc !== null) return loadRowDoc(Buffer.from(row.doc, 'base64'), changes.docClientId);
    const doc = createRowDoc(changes.docClientId);
    writeFields(doc, columnsOf(row), changes.stamp());
    return doc;
  }

  /** Writes the row as its document says, and its outbox row; call inside the transaction. */
  function save(edited: RowDoc, operation: 'insert' | 'update', version: number) {
    const { doc, state } = settleRowDoc(edited, changes.docClientId);
    const fields = materialise(doc);
    const encoded = Buffer.from(state).toString('base64');
    (operation === 'insert' ? insert : update).run({
      ...fields,
      version,
      updated_at: clock.now().toISOString(),
      doc: encoded,
    });
    changes.recordChange({ table: 'time_punches', rowId: fields.id, operation, version, doc: encoded });
    return toPunch({ ...fields, version });
  }

  function assertStillInOrder(punches: Array<PunchFields>, punchId: string, at: string) {
    const proposed = punches
      .map((p) => (p.id === punchId ? { ...p, at } : p))
      .sort((a, b) => a.at.localeCompare(b.at));
    if (replay(proposed) === undefined)
      throw new AppError(409, 'PUNCH_ORDER_INVALID', 'The corrected time puts the punches out of order');
  }

  return {
    state: (staffId: string): ShiftState => replay(punchesOf(staffId)) ?? 'off',
    punches: (staffId: string) => punchesOf(staffId).map(toPunch),

    /**
     * Every staff member's punches in force on a business day (today by default), named, by name,
     * with the time worked within that day: today up to now.
     */
    day(businessDay: string | undefined, sources: DaySources) {
      const now = clock.now();
      const day = businessDay ?? sources.calendar.businessDay(now);
      const { start, end } = sources.calendar.businessDayBounds(day);
      const until = new Date(Math.max(start.getTime(), Math.min(end.getTime(), now.getTime())));
      const byStaff = new Map<string, Punch[]>();
      const rows = inForceBetween.all(start.toISOString(), end.toISOString()) as Array<
        PunchFields & { version: number }
      >;
      for (const row of rows) byStaff.set(row.staff_id, [...(byStaff.get(row.staff_id) ?? []), toPunch(row)]);
      const names = sources.names.displayNames([...byStaff.keys()]);
      const staff = [...byStaff].map(([staffId, punches]) => ({
        ...staffDay(staffId, punches, start, until),
        display_name: names.get(staffId) ?? null,
      }));
      return { business_day: day, staff: staff.sort(byName) };
    },

    punch(staffId: string, kind: PunchKind, note: string | null = null) {
      return db.transaction(() => {
        const state = replay(punchesOf(staffId)) ?? 'off';
        if (!TRANSITIONS[state][kind]) throw punchNotAllowed(state, kind);
        const at = clock.now().toISOString();
        const row: PunchFields = {
          id: deps.newId(),
          staff_id: staffId,
          kind,
          at,
          note,
          corrected_by: null,
          reason: null,
          created_at: at,
        };
        const doc = createRowDoc(changes.docClientId);
        writeFields(doc, columnsOf(row), changes.stamp());
        const punch = save(doc, 'insert', 1);
        // The staff table belongs to auth, so the event names the employee by id only; the
        // change log adds the store's location to the event row.
        const event = PUNCH_EVENTS[kind];
        if (event) changes.emit(event, { punch_id: punch.id, employee_id: staffId, at });
        return punch;
      })();
    },

    /**
     * A manager moves a punch in time; refused when the day would no longer add up. No event: the
     * clock-in or -out was published when it happened, and neither catalog has one for a correction.
     */
    correct(punchId: string, input: { at: string; managerId: string; reason: string; note?: string }) {
      validateCorrection(input);
      return db.transaction(() => {
        const row = byId.get(punchId) as PunchRow | undefined;
        const punches = row ? punchesOf(row.staff_id) : [];
        if (!row || !punches.some((p) => p.id === punchId))
          throw new NotFoundError('Punch', 'PUNCH_NOT_FOUND');
        const at = new Date(input.at).toISOString();
        assertStillInOrder(punches, punchId, at);
        const doc = docOf(row);
        // The edit must order after every edit the document holds, the cloud's included, even
        // when this process has not seen their stamps since it started.
        const newest = Object.values(fieldStamps(doc)).sort().at(-1);
        if (newest !== undefined) changes.observe(newest);
        const edit: Record<string, FieldValue> = {
          at,
          corrected_by: input.managerId,
          reason: input.reason.trim(),
          ...(input.note === undefined ? {} : { note: input.note }),
        };
        writeFields(doc, edit, changes.stamp());
        return save(doc, 'update', row.version + 1);
      })();
    },
  };
}

export type TimeClockService = ReturnType<typeof createTimeClockService>;
