import { describe, expect, it } from 'vitest';
import {
  instantOf,
  isTimeZone,
  offsetAt,
  parseClock,
  parseDate,
  wallAt,
} from '../../../cloud/oncall/zoned-time.ts';

const wall = (text: string) => Date.parse(`${text}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const at = (zone: string, text: string) => iso(instantOf(zone, wall(text)));

describe('wall-clock time in a zone → the UTC instant', () => {
  it('uses the offset in force on the day', () => {
    expect(at('America/New_York', '2026-03-07T09:00')).toBe('2026-03-07T14:00:00.000Z');
    expect(at('America/New_York', '2026-03-08T09:00')).toBe('2026-03-08T13:00:00.000Z');
    expect(at('Europe/Berlin', '2026-03-28T09:00')).toBe('2026-03-28T08:00:00.000Z');
    expect(at('Europe/Berlin', '2026-03-29T09:00')).toBe('2026-03-29T07:00:00.000Z');
    expect(at('Asia/Kolkata', '2026-06-01T09:00')).toBe('2026-06-01T03:30:00.000Z');
    expect(at('UTC', '2026-06-01T09:00')).toBe('2026-06-01T09:00:00.000Z');
  });

  it('moves a time in the spring-forward gap forward by the gap (02:30 → 03:30 daylight time)', () => {
    expect(at('America/New_York', '2026-03-08T02:30')).toBe('2026-03-08T07:30:00.000Z');
    expect(at('America/New_York', '2026-03-08T02:00')).toBe('2026-03-08T07:00:00.000Z');
    expect(at('America/New_York', '2026-03-08T03:00')).toBe('2026-03-08T07:00:00.000Z');
    expect(at('Europe/Berlin', '2026-03-29T02:30')).toBe('2026-03-29T01:30:00.000Z');
    // Lord Howe Island springs forward by half an hour.
    expect(at('Australia/Lord_Howe', '2026-10-04T02:15')).toBe('2026-10-03T15:45:00.000Z');
  });

  it('takes the first of the two occurrences of a time in the fall-back overlap', () => {
    expect(at('America/New_York', '2026-11-01T01:30')).toBe('2026-11-01T05:30:00.000Z');
    expect(at('America/New_York', '2026-11-01T02:00')).toBe('2026-11-01T07:00:00.000Z');
    expect(at('Europe/Berlin', '2026-10-25T02:30')).toBe('2026-10-25T00:30:00.000Z');
    expect(at('Europe/Berlin', '2026-10-25T03:00')).toBe('2026-10-25T02:00:00.000Z');
  });

  it('reads the wall clock and the offset back from an instant', () => {
    expect(iso(wallAt('America/New_York', Date.parse('2026-11-01T05:30:00Z')))).toBe(
      '2026-11-01T01:30:00.000Z',
    );
    expect(iso(wallAt('America/New_York', Date.parse('2026-11-01T06:30:00.250Z')))).toBe(
      '2026-11-01T01:30:00.250Z',
    );
    expect(offsetAt('America/New_York', Date.parse('2026-07-01T00:00:00Z'))).toBe(-4 * 3_600_000);
    expect(offsetAt('Asia/Kolkata', Date.parse('2026-07-01T00:00:00Z'))).toBe(5.5 * 3_600_000);
  });

  it('round-trips every existing hour of a year in several zones', () => {
    for (const zone of ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Pacific/Auckland']) {
      for (let instant = Date.parse('2026-01-01T00:00:00Z'); instant < Date.parse('2027-01-01T00:00:00Z'); ) {
        const back = instantOf(zone, wallAt(zone, instant));
        // In an overlap the wall time maps to its first occurrence, at most an hour earlier.
        expect(instant - back === 0 || instant - back === 3_600_000, `${zone} ${iso(instant)}`).toBe(true);
        instant += 3_600_000;
      }
    }
  });
});

describe('zone names, dates and clock times', () => {
  it('accepts IANA zones and links, and refuses offsets and made-up names', () => {
    const good = ['America/New_York', 'america/new_york', 'UTC', 'Asia/Kolkata', 'US/Eastern'];
    for (const zone of [...good, 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) {
      expect(isTimeZone(zone), zone).toBe(true);
    }
    for (const bad of [
      'Mars/Olympus_Mons',
      '+01:00',
      '',
      'Europe/',
      '/Berlin',
      'Europe Berlin',
      'GMT+1:00',
    ]) {
      expect(isTimeZone(bad), bad).toBe(false);
    }
  });

  it('parses calendar dates and HH:MM strictly', () => {
    expect(parseDate('2026-03-08')).toBe(Date.parse('2026-03-08T00:00:00Z'));
    expect(parseDate('2028-02-29')).toBe(Date.parse('2028-02-29T00:00:00Z'));
    for (const bad of ['2026-02-29', '2026-13-01', '2026-3-8', '2026-03-08T00:00', '']) {
      expect(parseDate(bad), bad).toBeUndefined();
    }
    expect(parseClock('00:00')).toBe(0);
    expect(parseClock('09:30')).toBe(570);
    expect(parseClock('23:59')).toBe(1439);
    for (const bad of ['24:00', '9:00', '09:60', '09:00:00', ''])
      expect(parseClock(bad), bad).toBeUndefined();
  });
});

describe('far dates', () => {
  it('reads years before 1000 through the slower path, and a leap day', () => {
    expect(iso(wallAt('UTC', Date.UTC(999, 11, 31, 23, 59, 58)))).toBe(
      iso(Date.UTC(999, 11, 31, 23, 59, 58)),
    );
    expect(at('America/New_York', '2028-02-29T09:00')).toBe('2028-02-29T14:00:00.000Z');
  });
});
