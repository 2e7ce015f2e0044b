import { sql } from 'kysely';
import { businessDayOf } from '../../shared/business-day.ts';
import { InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { Fields, SYNC_TABLES } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import { calendarOf, calendarRow } from './calendar.ts';
import { upsert, type Where, type Written } from './projection.ts';
import { type EditStore, sees, type Viewer } from './service.ts';
import type { CommercePunchRow } from './timeclock-tables.ts';

type PunchKind = (typeof SYNC_TABLES.time_punches.enums.kind)[number];

const nullableText = (value: unknown) => (value === null || value === undefined ? null : String(value));

/**
 * The punches as they now stand at the store, each on the store's business day of its time. A
 * punch whose time does not parse cannot be placed on a day and is left out; it must not fail
 * the store's push.
 */
export async function recordPunches(
  db: Db,
  at: Where,
  rows: Written[],
  locationTimezone: string | undefined,
) {
  const calendar = calendarOf(await calendarRow(db, at.tenantId, at.locationId), locationTimezone);
  const punches = rows.flatMap(({ fields: row, version }): CommercePunchRow[] => {
    const time = Date.parse(String(row.at));
    if (Number.isNaN(time)) return [];
    const instant = new Date(time);
    return [
      {
        tenant_id: at.tenantId,
        location_id: at.locationId,
        id: String(row.id),
        staff_id: String(row.staff_id),
        kind: String(row.kind),
        at: instant.toISOString(),
        note: nullableText(row.note),
        corrected_by: nullableText(row.corrected_by),
        reason: nullableText(row.reason),
        created_at: String(row.created_at),
        business_day: businessDayOf(instant, calendar.timezone, calendar.startsAt),
        version,
      },
    ];
  });
  await upsert(db, 'commerce_punches', punches);
}

/** A punch in the store's own shape (GET /timeclock/punches there), plus its store. */
export const toPunch = (row: CommercePunchRow) => ({
  id: row.id,
  location_id: row.location_id,
  staff_id: row.staff_id,
  kind: row.kind as PunchKind,
  at: row.at,
  note: row.note,
  corrected_by: row.corrected_by,
  reason: row.reason,
  created_at: row.created_at,
  version: Number(row.version),
});

export interface PunchListQuery {
  location_id?: string | undefined;
  business_day?: string | undefined;
  staff_id?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface PunchCorrection {
  at?: string | undefined;
  kind?: PunchKind | undefined;
  note?: string | null | undefined;
  reason: string;
}

const punchNotFound = () => new NotFoundError('Punch', 'PUNCH_NOT_FOUND');

/** A page's last punch as `<at>_<id>`: the next page starts strictly after it. */
const cursorOf = (row: { at: string; id: string }) => `${row.at}_${row.id}`;

function afterCursor(cursor: string | undefined) {
  if (cursor === undefined) return undefined;
  const split = cursor.lastIndexOf('_');
  return { at: cursor.slice(0, split), id: cursor.slice(split + 1) };
}

function checkCorrection(input: PunchCorrection) {
  const problems = [];
  if (input.at !== undefined && Number.isNaN(Date.parse(input.at)))
    problems.push({ field: 'body.at', message: 'must be an ISO 8601 time' });
  if (input.reason.trim() === '') problems.push({ field: 'body.reason', message: 'must say why' });
  if (input.at === undefined && input.kind === undefined && input.note === undefined)
    problems.push({ field: 'body', message: 'must change at, kind or note' });
  if (problems.length > 0) throw new InvalidRequestError('The request is invalid', problems);
}

/**
 * The fields the correction changes, and only those: the punch is a merge row, so a field left
 * unstamped keeps whatever the store writes to it meanwhile.
 */
function changedFields(current: Fields, input: PunchCorrection) {
  const changed: Record<string, string | null> = {};
  if (input.at !== undefined && Date.parse(input.at) !== Date.parse(String(current.at)))
    changed.at = new Date(input.at).toISOString();
  if (input.kind !== undefined && input.kind !== current.kind) changed.kind = input.kind;
  if (input.note !== undefined && input.note !== (current.note ?? null)) changed.note = input.note;
  return changed;
}

/**
 * Head office's time clock: every store's punches by store, business day and staff member, and
 * payroll's corrections, which travel to the store by sync as edits of the punch's fields.
 */
export function createTimeClockService(deps: { db: Db; editStore: EditStore }) {
  const { db } = deps;

  const punch = (tenantId: string, id: string) =>
    db
      .selectFrom('commerce_punches')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();

  async function requirePunch(viewer: Viewer, id: string) {
    const row = await punch(viewer.tenantId, id);
    if (!row || !sees(viewer, row.location_id)) throw punchNotFound();
    return row;
  }

  return {
    /** The tenant's punches in time order (then by id), keyset-paged. */
    async listPunches(viewer: Viewer, query: PunchListQuery) {
      if (query.location_id !== undefined && !sees(viewer, query.location_id))
        return { items: [], next_cursor: null };
      const locationId = query.location_id ?? viewer.locationId;
      const after = afterCursor(query.cursor);
      const rows = await db
        .selectFrom('commerce_punches')
        .selectAll()
        .where('tenant_id', '=', viewer.tenantId)
        .$if(locationId !== undefined, (q) => q.where('location_id', '=', locationId!))
        .$if(query.business_day !== undefined, (q) => q.where('business_day', '=', query.business_day!))
        .$if(query.staff_id !== undefined, (q) => q.where('staff_id', '=', query.staff_id!))
        .$if(after !== undefined, (q) => q.where(sql<boolean>`(at, id) > (${after!.at}, ${after!.id})`))
        .orderBy('at')
        .orderBy('id')
        .limit(query.limit + 1)
        .execute();
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        items: page.map(toPunch),
        next_cursor: rows.length > query.limit && last ? cursorOf(last) : null,
      };
    },

    /**
     * Payroll corrects a punch: its time, kind or note, saying why, as the caller. Only the fields
     * that change are written, so the store's own edit of another field, made before it heard of
     * this one, survives on both sides. A body that changes nothing writes nothing.
     */
    async correctPunch(viewer: Viewer, id: string, input: PunchCorrection, correctedBy: string) {
      checkCorrection(input);
      const row = await requirePunch(viewer, id);
      await deps.editStore(viewer.tenantId, row.location_id, [
        {
          table: 'time_punches',
          rowId: id,
          fields: (current) => {
            if (!current) throw punchNotFound();
            const changed = changedFields(current, input);
            if (Object.keys(changed).length === 0) return undefined;
            return { ...changed, corrected_by: correctedBy, reason: input.reason.trim() };
          },
        },
      ]);
      return toPunch((await punch(viewer.tenantId, id))!);
    },
  };
}

export type TimeClockService = ReturnType<typeof createTimeClockService>;
