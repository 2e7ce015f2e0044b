import { describe, expect, it } from 'vitest';
import {
  businessDayBounds,
  businessDayOf,
  businessTimeOf,
  shiftBusinessDay,
} from '../../../appliance/location/index.ts';

const minute = 60_000;

describe('business time', () => {
  it.each([
    ['2026-06-10', 'America/New_York', '04:00', '2026-06-10T08:00:00.000Z', '2026-06-11T08:00:00.000Z'],
    // 02:30 does not exist on the 8th of March in New York: the day begins when the clocks jump.
    ['2026-03-08', 'America/New_York', '02:30', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z'],
    ['2026-03-29', 'Europe/Paris', '00:00', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'],
    ['2026-06-10', 'Asia/Kolkata', '04:00', '2026-06-09T22:30:00.000Z', '2026-06-10T22:30:00.000Z'],
    ['2026-06-10', 'Pacific/Kiritimati', '23:59', '2026-06-10T09:59:00.000Z', '2026-06-11T09:59:00.000Z'],
    ['2026-06-10', 'Pacific/Pago_Pago', '00:00', '2026-06-10T11:00:00.000Z', '2026-06-11T11:00:00.000Z'],
  ])('bounds %s in %s from %s', (day, zone, startsAt, start, end) => {
    const bounds = businessDayBounds(day, zone, startsAt);
    expect(bounds).toEqual({ start: new Date(start), end: new Date(end) });
    expect(businessDayOf(bounds.start, zone, startsAt)).toBe(day);
    expect(businessDayOf(new Date(bounds.start.getTime() - minute), zone, startsAt)).not.toBe(day);
    expect(businessDayOf(new Date(bounds.end.getTime() - minute), zone, startsAt)).toBe(day);
    expect(businessDayOf(bounds.end, zone, startsAt)).not.toBe(day);
  });

  it('places an instant in its day by local hour and minutes since the day began', () => {
    expect(businessTimeOf(new Date('2026-06-10T13:30:00.000Z'), 'America/New_York', '04:00')).toEqual({
      businessDay: '2026-06-10',
      hour: 9,
      minutesIntoDay: 5 * 60 + 30,
    });
    // 01:30 the next night is still the 10th, late in its day.
    expect(businessTimeOf(new Date('2026-06-11T05:30:00.000Z'), 'America/New_York', '04:00')).toEqual({
      businessDay: '2026-06-10',
      hour: 1,
      minutesIntoDay: 21 * 60 + 30,
    });
  });

  it('moves a business day by calendar days across months and years', () => {
    expect(shiftBusinessDay('2026-03-03', -7)).toBe('2026-02-24');
    expect(shiftBusinessDay('2026-12-28', 7)).toBe('2027-01-04');
  });
});
