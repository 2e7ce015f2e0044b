import { DEFAULT_BUSINESS_DAY_START, isClockTime, isTimeZone } from '../../shared/business-day.ts';
import type { Db } from '../db/index.ts';
import type { Where, Written } from './projection.ts';
import type { CommerceCalendarRow } from './timeclock-tables.ts';

/** How one store counts its days and its money. */
export interface StoreCalendar {
  timezone: string;
  startsAt: string;
  currency: string;
}

/** What a store's settings start as on its appliance, before anyone changed them. */
const STORE_DEFAULTS = { startsAt: DEFAULT_BUSINESS_DAY_START, currency: 'USD' };

/** The stores' own settings as they push them: the calendar the store itself keeps its days by. */
export async function recordCalendars(db: Db, at: Where, rows: Written[]) {
  for (const { fields, version } of rows) {
    const row: CommerceCalendarRow = {
      tenant_id: at.tenantId,
      location_id: at.locationId,
      timezone: String(fields.timezone),
      business_day_starts_at: String(fields.business_day_starts_at),
      currency: String(fields.currency),
      version,
    };
    await db
      .insertInto('commerce_calendars')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'location_id']).doUpdateSet({
          timezone: row.timezone,
          business_day_starts_at: row.business_day_starts_at,
          currency: row.currency,
          version: row.version,
        }),
      )
      .execute();
  }
}

export const calendarRow = (db: Db, tenantId: string, locationId: string) =>
  db
    .selectFrom('commerce_calendars')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .executeTakeFirst();

/** The synced calendars of these stores, by store. */
export async function calendarRows(db: Db, tenantId: string, locationIds: readonly string[]) {
  if (locationIds.length === 0) return new Map<string, CommerceCalendarRow>();
  const rows = await db
    .selectFrom('commerce_calendars')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('location_id', 'in', locationIds)
    .execute();
  return new Map(rows.map((row) => [row.location_id, row]));
}

/**
 * The store's calendar: its own settings once it has synced them; before that (or where a synced
 * value is not one the store could have kept) the location's time zone in tenancy and the
 * appliance's defaults, which is what a new store starts with.
 */
export function calendarOf(row: CommerceCalendarRow | undefined, locationTimezone: string | undefined) {
  const tenancyZone =
    locationTimezone !== undefined && isTimeZone(locationTimezone) ? locationTimezone : 'UTC';
  return {
    timezone: row && isTimeZone(row.timezone) ? row.timezone : tenancyZone,
    startsAt:
      row && isClockTime(row.business_day_starts_at) ? row.business_day_starts_at : STORE_DEFAULTS.startsAt,
    currency: row && /^[A-Z]{3}$/.test(row.currency) ? row.currency : STORE_DEFAULTS.currency,
  } satisfies StoreCalendar;
}
