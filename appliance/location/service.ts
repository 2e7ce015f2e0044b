import { DEFAULT_BUSINESS_DAY_START } from '../../shared/business-day.ts';
import type { Clock } from '../../shared/clock.ts';
import type { ErrorDetail } from '../../shared/http/errors.ts';
import type { ApplianceDatabase, ChangeLog } from '../db/index.ts';
import {
  businessDayBounds,
  businessDayOf,
  businessTimeOf,
  isClockTime,
  isTimeZone,
  normalizeHours,
  type WeeklyHours,
} from './calendar.ts';
import * as errors from './errors.ts';
import {
  createLocationStore,
  LOCATION_STATUSES,
  type LocationSettings,
  type LocationStatus,
} from './store.ts';

export interface LocationDeps {
  db: ApplianceDatabase;
  changes: ChangeLog;
  clock: Clock;
}

export interface LocationPatch {
  name?: string | undefined;
  timezone?: string | undefined;
  currency?: string | undefined;
  tax_rate_bps?: number | undefined;
  business_day_starts_at?: string | undefined;
}

export interface LocationDefaults extends LocationPatch {
  name: string;
  timezone: string;
  hours?: Partial<WeeklyHours> | undefined;
}

export const LOCATION_LIMITS = { nameLength: 100, maxTaxRateBps: 10_000 } as const;

const TABLE = 'location_settings';

function checkPatch(patch: LocationPatch, problems: ErrorDetail[]) {
  const { name, timezone, currency, tax_rate_bps: bps, business_day_starts_at: startsAt } = patch;
  if (name !== undefined && (name.trim().length === 0 || name.trim().length > LOCATION_LIMITS.nameLength))
    problems.push({ field: 'body.name', message: `must be 1 to ${LOCATION_LIMITS.nameLength} characters` });
  if (timezone !== undefined && !isTimeZone(timezone))
    problems.push({ field: 'body.timezone', message: 'is not an IANA time zone' });
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency))
    problems.push({ field: 'body.currency', message: 'must be an ISO 4217 code such as USD' });
  if (bps !== undefined && (!Number.isSafeInteger(bps) || bps < 0 || bps > LOCATION_LIMITS.maxTaxRateBps))
    problems.push({ field: 'body.tax_rate_bps', message: 'must be a whole number from 0 to 10000' });
  if (startsAt !== undefined && !isClockTime(startsAt))
    problems.push({ field: 'body.business_day_starts_at', message: 'must be a time HH:MM' });
}

const throwIfAny = (problems: ErrorDetail[]) => {
  if (problems.length > 0) throw errors.invalid(problems);
};

/**
 * Tax on a subtotal in minor units at a rate in basis points, rounded half up (half away from zero
 * for refunds, so a refund's tax mirrors the sale's). BigInt keeps it exact for any safe subtotal.
 */
export function taxOf(subtotalMinor: number, rateBps: number): number {
  if (!Number.isSafeInteger(subtotalMinor)) throw new RangeError('subtotal must be whole minor units');
  const magnitude = (BigInt(Math.abs(subtotalMinor)) * BigInt(rateBps) + 5_000n) / 10_000n;
  return Number(subtotalMinor < 0 ? -magnitude : magnitude);
}

export function createLocationService(deps: LocationDeps) {
  const { db, changes, clock } = deps;
  const store = createLocationStore(db);

  const current = () => {
    const settings = store.get();
    if (!settings) throw errors.settingsNotFound();
    return settings;
  };
  const save = (before: LocationSettings, patch: Partial<LocationSettings>) => {
    const next = { ...before, ...patch, version: before.version + 1, updated_at: clock.now().toISOString() };
    store.update(next);
    changes.recordChange({
      table: TABLE,
      rowId: next.location_id,
      operation: 'update',
      version: next.version,
    });
    return next;
  };

  return {
    /** Creates the settings row on first start; later starts keep what staff have changed since. */
    ensure(locationId: string, defaults: LocationDefaults): LocationSettings {
      const problems: ErrorDetail[] = [];
      checkPatch(defaults, problems);
      const hours = normalizeHours(defaults.hours ?? {}, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        const existing = store.get();
        if (existing && existing.location_id !== locationId)
          throw errors.locationMismatch(locationId, existing.location_id);
        if (existing) return existing;
        const settings: LocationSettings = {
          location_id: locationId,
          name: defaults.name.trim(),
          timezone: defaults.timezone,
          currency: defaults.currency ?? 'USD',
          tax_rate_bps: defaults.tax_rate_bps ?? 0,
          business_day_starts_at: defaults.business_day_starts_at ?? DEFAULT_BUSINESS_DAY_START,
          status: 'open',
          hours,
          version: 1,
          updated_at: clock.now().toISOString(),
        };
        store.insert(settings);
        changes.recordChange({ table: TABLE, rowId: locationId, operation: 'insert', version: 1 });
        return settings;
      })();
    },

    get: (): LocationSettings => current(),

    /** The catalog has no event for these fields: the change reaches the cloud through the outbox. */
    update(patch: LocationPatch): LocationSettings {
      const problems: ErrorDetail[] = [];
      checkPatch(patch, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        const before = current();
        const after = {
          name: patch.name?.trim() ?? before.name,
          timezone: patch.timezone ?? before.timezone,
          currency: patch.currency ?? before.currency,
          tax_rate_bps: patch.tax_rate_bps ?? before.tax_rate_bps,
          business_day_starts_at: patch.business_day_starts_at ?? before.business_day_starts_at,
        };
        const changed = (Object.keys(after) as Array<keyof typeof after>).some(
          (key) => after[key] !== before[key],
        );
        return changed ? save(before, after) : before;
      })();
    },

    setHours(hours: Partial<WeeklyHours>): LocationSettings {
      const problems: ErrorDetail[] = [];
      const week = normalizeHours(hours, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        const before = current();
        if (JSON.stringify(before.hours) === JSON.stringify(week)) return before;
        const next = save(before, { hours: week });
        changes.emit('location.hours_changed', {
          location_id: next.location_id,
          hours: next.hours,
          previous_hours: before.hours,
          version: next.version,
          updated_at: next.updated_at,
        });
        return next;
      })();
    },

    setStatus(status: LocationStatus): LocationSettings {
      if (!LOCATION_STATUSES.includes(status))
        throw errors.invalid([
          { field: 'body.status', message: `must be one of ${LOCATION_STATUSES.join(', ')}` },
        ]);
      return db.transaction(() => {
        const before = current();
        if (before.status === status) return before;
        const next = save(before, { status });
        changes.emit('location.status_changed', {
          location_id: next.location_id,
          status: next.status,
          previous_status: before.status,
          version: next.version,
          updated_at: next.updated_at,
        });
        return next;
      })();
    },

    /** 'YYYY-MM-DD' of the business day `at` falls in; orders are numbered per business day. */
    businessDay(at: Date): string {
      const { timezone, business_day_starts_at } = current();
      return businessDayOf(at, timezone, business_day_starts_at);
    },

    /** When a business day ('YYYY-MM-DD') begins and ends, as instants. */
    businessDayBounds(businessDay: string) {
      const { timezone, business_day_starts_at } = current();
      return businessDayBounds(businessDay, timezone, business_day_starts_at);
    },

    /** The business day, local hour and minutes into the day of `at`, for figures by hour. */
    businessTime(at: Date) {
      const { timezone, business_day_starts_at } = current();
      return businessTimeOf(at, timezone, business_day_starts_at);
    },

    /** Tax in minor units on a subtotal in minor units at this location's rate. */
    taxFor: (subtotalMinor: number): number => taxOf(subtotalMinor, current().tax_rate_bps),
  };
}

export type LocationService = ReturnType<typeof createLocationService>;
