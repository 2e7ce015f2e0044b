import { describe, expect, it } from 'vitest';
import { formatClock } from '../../../../appliance/kiosk/web/src/lib/format.ts';
import { correctedAt, localTime } from '../../../../appliance/kiosk/web/src/lib/timeclock.ts';
import { formatTimeOfDay, instantOf, wallTime } from '../../../../appliance/kiosk/web/src/lib/zone.ts';

const NEW_YORK = 'America/New_York';

describe("the store's clock", () => {
  it('reads an instant on the zone’s wall clock, not the machine’s', () => {
    const at = Date.parse('2026-07-01T16:05:30Z');
    expect(wallTime(at, NEW_YORK)).toEqual({ year: 2026, month: 7, day: 1, hour: 12, minute: 5, second: 30 });
    expect(wallTime(at, 'UTC')).toMatchObject({ hour: 16, minute: 5 });
    expect(formatTimeOfDay(at, { timeZone: NEW_YORK, locale: 'en-GB' })).toBe('12:05');
    expect(formatClock('2026-01-15T23:30:00Z', { timeZone: NEW_YORK, locale: 'en-GB' })).toBe('18:30');
  });

  it('finds the instant a wall time names, in winter, in summer and around the changes', () => {
    const wall = (month: number, day: number, hour: number, minute = 0) => ({
      year: 2026,
      month,
      day,
      hour,
      minute,
      second: 0,
    });
    expect(new Date(instantOf(wall(1, 15, 9), NEW_YORK)).toISOString()).toBe('2026-01-15T14:00:00.000Z');
    expect(new Date(instantOf(wall(7, 1, 9), NEW_YORK)).toISOString()).toBe('2026-07-01T13:00:00.000Z');
    // 8 March 2026, 02:30 does not exist in New York: it reads as 03:30 EDT.
    expect(new Date(instantOf(wall(3, 8, 2, 30), NEW_YORK)).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    // 1 November 2026, 01:30 happens twice: the first (EDT).
    expect(new Date(instantOf(wall(11, 1, 1, 30), NEW_YORK)).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    // East of Greenwich too: 25 October 2026, 02:30 happens twice in Berlin, first in CEST.
    expect(new Date(instantOf(wall(10, 25, 2, 30), 'Europe/Berlin')).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
  });

  it('corrects a punch within its day in the store, wherever the kiosk machine’s clock is set', () => {
    // 23:10 in New York on 3 March is already 4 March in UTC.
    const punch = '2026-03-04T04:10:00.000Z';
    expect(localTime(punch, NEW_YORK)).toBe('23:10');
    expect(correctedAt(punch, '22:45', NEW_YORK)).toBe('2026-03-04T03:45:00.000Z');
    expect(correctedAt(punch, '08:00', NEW_YORK)).toBe('2026-03-03T13:00:00.000Z');
    expect(localTime(punch, 'UTC')).toBe('04:10');
  });
});
