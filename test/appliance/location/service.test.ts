import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import {
  businessDayOf,
  createLocationService,
  type LocationDefaults,
  type LocationService,
  type LocationStatus,
  taxOf,
} from '../../../appliance/location/index.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { AppError } from '../../../shared/http/errors.ts';
import { newId } from '../../../shared/ids.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';
const NEW_YORK = 'America/New_York';

let dir: string;
let db: ApplianceDatabase;
let clock: ManualClock;
let location: LocationService;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'appliance-location-'));
  db = openApplianceDb(dir);
  clock = createManualClock('2026-03-01T12:00:00.000Z');
  const changes = createChangeLog(db, { clock, newId, locationId: LOCATION });
  location = createLocationService({ db, changes, clock });
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const makeDefaults = (overrides: Partial<LocationDefaults> = {}): LocationDefaults => ({
  name: 'Downtown',
  timezone: NEW_YORK,
  ...overrides,
});

const outbox = () =>
  db
    .prepare(
      "select table_name, row_id, operation, row_version from outbox where table_name <> 'events' order by seq",
    )
    .all();
const events = () =>
  (
    db.prepare('select type, data from events order by seq').all() as Array<{ type: string; data: string }>
  ).map((row) => ({ type: row.type, data: JSON.parse(row.data) as Record<string, unknown> }));
const snapshot = () => ({
  settings: db.prepare('select * from location_settings').all(),
  outbox: outbox(),
  events: events(),
});

/** Runs a command that must fail, and checks it changed no row and left no outbox row or event. */
function expectRejected(command: () => unknown, status: number, code: string, field?: string) {
  const before = snapshot();
  let caught: unknown;
  try {
    command();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  const error = caught as AppError;
  expect({ status: error.status, code: error.code }).toEqual({ status, code });
  if (field) expect(error.details.map((detail) => detail.field)).toContain(field);
  expect(snapshot()).toEqual(before);
  return error;
}

const closedWeek = {
  monday: [],
  tuesday: [],
  wednesday: [],
  thursday: [],
  friday: [],
  saturday: [],
  sunday: [],
};

describe('location settings', () => {
  it('creates the settings row on first start with defaults, and keeps it on later starts', () => {
    const created = location.ensure(LOCATION, makeDefaults());
    expect(created).toEqual({
      location_id: LOCATION,
      name: 'Downtown',
      timezone: NEW_YORK,
      currency: 'USD',
      tax_rate_bps: 0,
      business_day_starts_at: '04:00',
      status: 'open',
      hours: closedWeek,
      version: 1,
      updated_at: '2026-03-01T12:00:00.000Z',
    });
    expect(location.get()).toEqual(created);
    expect(outbox()).toEqual([
      { table_name: 'location_settings', row_id: LOCATION, operation: 'insert', row_version: 1 },
    ]);
    expect(events()).toEqual([]);

    location.update({ name: 'Downtown East' });
    const again = location.ensure(LOCATION, makeDefaults({ tax_rate_bps: 500 }));
    expect(again).toMatchObject({ name: 'Downtown East', tax_rate_bps: 0, version: 2 });
    expect(outbox()).toHaveLength(2);
  });

  it('refuses another location id, bad defaults, and reads before the first start', () => {
    expectRejected(() => location.get(), 404, 'LOCATION_SETTINGS_NOT_FOUND');
    expectRejected(
      () => location.ensure(LOCATION, makeDefaults({ timezone: 'Mars/Olympus' })),
      400,
      'INVALID_REQUEST',
      'body.timezone',
    );
    location.ensure(LOCATION, makeDefaults());
    expectRejected(() => location.ensure(newId(), makeDefaults()), 409, 'LOCATION_MISMATCH');
  });

  it('updates name, time zone, currency, tax rate and day start, bumping the version, without events', () => {
    location.ensure(LOCATION, makeDefaults());
    clock.advance(5000);
    const updated = location.update({
      name: ' Uptown ',
      timezone: 'America/Chicago',
      currency: 'CAD',
      tax_rate_bps: 825,
      business_day_starts_at: '05:30',
    });
    expect(updated).toMatchObject({
      name: 'Uptown',
      timezone: 'America/Chicago',
      currency: 'CAD',
      tax_rate_bps: 825,
      business_day_starts_at: '05:30',
      version: 2,
      updated_at: '2026-03-01T12:00:05.000Z',
    });
    expect(location.get()).toEqual(updated);
    expect(outbox().at(-1)).toEqual({
      table_name: 'location_settings',
      row_id: LOCATION,
      operation: 'update',
      row_version: 2,
    });
    expect(events()).toEqual([]);

    const before = snapshot();
    expect(location.update({ name: 'Uptown', currency: 'CAD' })).toEqual(updated);
    expect(snapshot()).toEqual(before);
  });

  it('rejects each invalid field and changes nothing', () => {
    location.ensure(LOCATION, makeDefaults());
    const cases: Array<[Parameters<LocationService['update']>[0], string]> = [
      [{ name: '  ' }, 'body.name'],
      [{ timezone: 'EST5EDT-nope' }, 'body.timezone'],
      [{ currency: 'usd' }, 'body.currency'],
      [{ currency: 'USDX' }, 'body.currency'],
      [{ tax_rate_bps: -1 }, 'body.tax_rate_bps'],
      [{ tax_rate_bps: 10_001 }, 'body.tax_rate_bps'],
      [{ tax_rate_bps: 8.25 }, 'body.tax_rate_bps'],
      [{ business_day_starts_at: '24:00' }, 'body.business_day_starts_at'],
      [{ business_day_starts_at: '4:00' }, 'body.business_day_starts_at'],
    ];
    for (const [patch, field] of cases) {
      expectRejected(() => location.update(patch), 400, 'INVALID_REQUEST', field);
    }
    expect(location.update({ tax_rate_bps: 10_000 }).tax_rate_bps).toBe(10_000);
  });
});

describe('opening hours and status', () => {
  beforeEach(() => {
    location.ensure(LOCATION, makeDefaults());
  });

  it('sets the week’s hours in order, missing days closed, with location.hours_changed', () => {
    clock.advance(1000);
    const updated = location.setHours({
      monday: [
        { opens: '17:00', closes: '22:00' },
        { opens: '11:00', closes: '14:30' },
      ],
      friday: [{ opens: '18:00', closes: '02:00' }],
    });
    const hours = {
      ...closedWeek,
      monday: [
        { opens: '11:00', closes: '14:30' },
        { opens: '17:00', closes: '22:00' },
      ],
      friday: [{ opens: '18:00', closes: '02:00' }],
    };
    expect(updated).toMatchObject({ hours, version: 2 });
    expect(location.get().hours).toEqual(hours);
    expect(outbox().at(-1)).toMatchObject({ operation: 'update', row_version: 2 });
    expect(events()).toEqual([
      {
        type: 'location.hours_changed',
        data: {
          location_id: LOCATION,
          hours,
          previous_hours: closedWeek,
          version: 2,
          updated_at: '2026-03-01T12:00:01.000Z',
        },
      },
    ]);

    const before = snapshot();
    location.setHours({ friday: [{ opens: '18:00', closes: '02:00' }], monday: hours.monday });
    expect(snapshot()).toEqual(before);
  });

  it('rejects malformed and overlapping hours and unknown days', () => {
    const reject = (hours: Record<string, Array<{ opens: string; closes: string }>>, field: string) =>
      expectRejected(() => location.setHours(hours), 400, 'INVALID_REQUEST', field);
    reject({ monday: [{ opens: '9:00', closes: '17:00' }] }, 'body.hours.monday[0].opens');
    reject({ monday: [{ opens: '09:00', closes: '25:00' }] }, 'body.hours.monday[0].closes');
    reject({ monday: [{ opens: '09:00', closes: '09:00' }] }, 'body.hours.monday[0].closes');
    reject(
      {
        tuesday: [
          { opens: '09:00', closes: '15:00' },
          { opens: '14:00', closes: '20:00' },
        ],
      },
      'body.hours.tuesday',
    );
    reject(
      {
        tuesday: [
          { opens: '20:00', closes: '01:00' },
          { opens: '21:00', closes: '23:00' },
        ],
      },
      'body.hours.tuesday',
    );
    reject({ funday: [{ opens: '09:00', closes: '17:00' }] }, 'body.hours.funday');
  });

  it('sets the status with location.status_changed, and ignores a repeat or an unknown status', () => {
    const closed = location.setStatus('temporarily_closed');
    expect(closed).toMatchObject({ status: 'temporarily_closed', version: 2 });
    location.setStatus('temporarily_closed');
    location.setStatus('open');
    expect(events()).toEqual([
      {
        type: 'location.status_changed',
        data: expect.objectContaining({ status: 'temporarily_closed', previous_status: 'open', version: 2 }),
      },
      {
        type: 'location.status_changed',
        data: expect.objectContaining({ status: 'open', previous_status: 'temporarily_closed', version: 3 }),
      },
    ]);
    expect(outbox().map((row) => (row as { row_version: number }).row_version)).toEqual([1, 2, 3]);
    expectRejected(() => location.setStatus('busy' as LocationStatus), 400, 'INVALID_REQUEST', 'body.status');
  });
});

describe('business day', () => {
  it.each([
    ['2026-03-07T04:59:59Z', '2026-03-06', 'just before local midnight'],
    ['2026-03-07T05:00:00Z', '2026-03-06', 'local midnight'],
    ['2026-03-07T07:30:00Z', '2026-03-06', '02:30, before the 04:00 start'],
    ['2026-03-07T08:59:59Z', '2026-03-06', '03:59:59'],
    ['2026-03-07T09:00:00Z', '2026-03-07', '04:00, the new day starts'],
    ['2026-03-08T07:30:00Z', '2026-03-07', '03:30 EDT on the night clocks spring forward'],
    ['2026-03-08T08:00:00Z', '2026-03-08', '04:00 EDT, an hour earlier in UTC than the day before'],
    ['2026-11-01T05:30:00Z', '2026-10-31', 'the first 01:30 (EDT) on the night clocks fall back'],
    ['2026-11-01T06:30:00Z', '2026-10-31', 'the second 01:30 (EST)'],
    ['2026-11-01T08:59:00Z', '2026-10-31', '03:59 EST'],
    ['2026-11-01T09:00:00Z', '2026-11-01', '04:00 EST'],
    ['2027-01-01T05:30:00Z', '2026-12-31', '00:30 on New Year’s Day'],
  ])('in New York, %s belongs to %s (%s)', (at, day) => {
    expect(businessDayOf(new Date(at), NEW_YORK, '04:00')).toBe(day);
  });

  it('is the calendar date when the day starts at midnight, in any zone', () => {
    expect(businessDayOf(new Date('2026-03-07T04:59:59Z'), NEW_YORK, '00:00')).toBe('2026-03-06');
    expect(businessDayOf(new Date('2026-03-07T05:00:00Z'), NEW_YORK, '00:00')).toBe('2026-03-07');
    expect(businessDayOf(new Date('2026-03-06T15:30:00Z'), 'Asia/Kolkata', '00:00')).toBe('2026-03-06');
    expect(businessDayOf(new Date('2026-03-06T18:30:00Z'), 'Asia/Kolkata', '00:00')).toBe('2026-03-07');
  });

  it('uses the location’s zone and day start, as they are now', () => {
    location.ensure(LOCATION, makeDefaults());
    const at = new Date('2026-03-07T08:30:00Z');
    expect(location.businessDay(at)).toBe('2026-03-06');
    location.update({ business_day_starts_at: '03:00' });
    expect(location.businessDay(at)).toBe('2026-03-07');
    location.update({ timezone: 'Europe/Berlin' });
    expect(location.businessDay(new Date('2026-03-07T01:30:00Z'))).toBe('2026-03-06');
  });
});

describe('tax', () => {
  it('rounds half up at 8.25% for every subtotal from 0 to 20.00', () => {
    for (let subtotal = 0; subtotal <= 2000; subtotal++) {
      // Exact: subtotal * 825 / 10000 = subtotal * 33 / 400, and half up is floor(x + 1/2).
      expect(taxOf(subtotal, 825)).toBe(Math.floor((subtotal * 33 + 200) / 400));
    }
  });

  it.each([
    [1, 825, 0],
    [6, 825, 0],
    [7, 825, 1],
    [100, 825, 8],
    [200, 825, 17],
    [1000, 825, 83],
    [1999, 825, 165],
    [1, 5000, 1],
    [3, 5000, 2],
    [5, 1000, 1],
    [4, 1000, 0],
    [12345, 0, 0],
    [12345, 10_000, 12345],
    [Number.MAX_SAFE_INTEGER, 10_000, Number.MAX_SAFE_INTEGER],
    [Number.MAX_SAFE_INTEGER, 825, 743_093_938_516_132],
    [-200, 825, -17],
  ])('on %i minor units at %i bps is %i', (subtotal, bps, tax) => {
    expect(taxOf(subtotal, bps)).toBe(tax);
  });

  it('refuses a subtotal that is not whole minor units', () => {
    expect(() => taxOf(10.5, 825)).toThrow(RangeError);
  });

  it('uses the location’s rate', () => {
    location.ensure(LOCATION, makeDefaults({ tax_rate_bps: 825 }));
    expect(location.taxFor(1000)).toBe(83);
    location.update({ tax_rate_bps: 700 });
    expect(location.taxFor(1000)).toBe(70);
  });
});
