/**
 * Punches reaching the day rollups: the hours of the days and staff they touch are worked out
 * again from those staff's punches around those days, then the days' labour is priced.
 */
import type { Fields } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import { addDays, localDay } from './dates.ts';
import { chunks, createDayDeltas, type Where } from './day-deltas.ts';

const text = (value: unknown) => String(value ?? '');

interface PunchFact {
  staff_id: string;
  at: string;
}

export async function recordPunches(db: Db, at: Where, timezone: string, rows: Fields[]) {
  // A punch whose time does not parse adds no hours (and must not fail the store's push).
  const facts = rows
    .filter((row) => Number.isFinite(Date.parse(text(row.at))))
    .map((row) => ({
      tenant_id: at.tenantId,
      location_id: at.locationId,
      id: text(row.id),
      staff_id: text(row.staff_id),
      kind: text(row.kind),
      at: new Date(text(row.at)).toISOString(),
    }));
  if (facts.length === 0) return;
  const before = await punchesOf(
    db,
    at,
    facts.map((f) => f.id),
  );
  for (const part of chunks(facts))
    await db
      .insertInto('pnl_punches')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'location_id', 'id']).doUpdateSet((eb) => ({
          staff_id: eb.ref('excluded.staff_id'),
          kind: eb.ref('excluded.kind'),
          at: eb.ref('excluded.at'),
        })),
      )
      .execute();
  await recomputeHours(db, at, timezone, [...before, ...facts]);
}

/** A deleted punch takes its hours back. */
export async function forgetPunches(db: Db, at: Where, timezone: string, ids: string[]) {
  const before = await punchesOf(db, at, ids);
  if (before.length === 0) return;
  for (const part of chunks(ids))
    await db
      .deleteFrom('pnl_punches')
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('id', 'in', part)
      .execute();
  await recomputeHours(db, at, timezone, before);
}

async function punchesOf(db: Db, at: Where, ids: string[]): Promise<PunchFact[]> {
  const found: PunchFact[] = [];
  for (const part of chunks(ids))
    found.push(
      ...(await db
        .selectFrom('pnl_punches')
        .select(['staff_id', 'at'])
        .where('tenant_id', '=', at.tenantId)
        .where('location_id', '=', at.locationId)
        .where('id', 'in', part)
        .execute()),
    );
  return found;
}

/** Seconds worked per staff member and the local day their shift began; breaks are not paid. */
export function hoursOf(punches: Array<{ staff_id: string; kind: string; at: string }>, timezone: string) {
  const worked = new Map<string, number>();
  const open = new Map<string, { day: string; since: number | null; seconds: number }>();
  for (const punch of punches) {
    const t = Date.parse(punch.at);
    const shift = open.get(punch.staff_id);
    if (punch.kind === 'clock_in') {
      open.set(punch.staff_id, { day: localDay(punch.at, timezone), since: t, seconds: 0 });
      continue;
    }
    if (!shift) continue;
    if (shift.since !== null && (punch.kind === 'break_start' || punch.kind === 'clock_out')) {
      shift.seconds += Math.max(0, Math.round((t - shift.since) / 1000));
      shift.since = null;
    }
    if (punch.kind === 'break_end' && shift.since === null) shift.since = t;
    if (punch.kind !== 'clock_out') continue;
    const key = `${punch.staff_id}|${shift.day}`;
    worked.set(key, (worked.get(key) ?? 0) + shift.seconds);
    open.delete(punch.staff_id);
  }
  return [...worked].map(([key, seconds]) => {
    const [staff_id, business_day] = key.split('|') as [string, string];
    return { staff_id, business_day, seconds };
  });
}

/**
 * The hours of the touched staff members on the touched days (each punch's day and the day
 * before: a clock-out after midnight closes the shift of the day before), from those members'
 * punches from the first of those days to two days after the last (a shift is counted on the day
 * it began). Other members' hours cannot change, so their punches are not read.
 */
async function recomputeHours(db: Db, at: Where, timezone: string, touched: PunchFact[]) {
  const staff = [...new Set(touched.map((p) => p.staff_id))];
  const days = new Set<string>();
  for (const punch of touched) {
    const day = localDay(punch.at, timezone);
    days.add(day).add(addDays(day, -1));
  }
  const sorted = [...days].sort();
  const punches = [];
  for (const part of chunks(staff))
    punches.push(
      ...(await db
        .selectFrom('pnl_punches')
        .select(['staff_id', 'kind', 'at'])
        .where('tenant_id', '=', at.tenantId)
        .where('location_id', '=', at.locationId)
        .where('staff_id', 'in', part)
        // Local days are at most 14 hours either side of UTC's.
        .where('at', '>=', `${addDays(sorted[0]!, -1)}T00:00:00.000Z`)
        .where('at', '<', `${addDays(sorted.at(-1)!, 3)}T00:00:00.000Z`)
        .orderBy('staff_id')
        .orderBy('at')
        .execute()),
    );
  const hours = hoursOf(punches, timezone).filter((h) => days.has(h.business_day) && h.seconds > 0);
  for (const staffPart of chunks(staff))
    for (const dayPart of chunks(sorted))
      await db
        .deleteFrom('pnl_day_hours')
        .where('tenant_id', '=', at.tenantId)
        .where('location_id', '=', at.locationId)
        .where('staff_id', 'in', staffPart)
        .where('business_day', 'in', dayPart)
        .execute();
  for (const part of chunks(hours))
    await db
      .insertInto('pnl_day_hours')
      .values(part.map((h) => ({ tenant_id: at.tenantId, location_id: at.locationId, ...h })))
      .execute();
  const deltas = createDayDeltas();
  for (const day of sorted) deltas.touch(day);
  await deltas.write(db, at);
}
