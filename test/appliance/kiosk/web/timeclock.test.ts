import { describe, expect, it } from 'vitest';
import { loginErrorMessage } from '../../../../appliance/kiosk/web/src/lib/messages.ts';
import { drainProgress } from '../../../../appliance/kiosk/web/src/lib/progress.ts';
import { isManager } from '../../../../appliance/kiosk/web/src/lib/roles.ts';
import {
  correctedAt,
  formatWorked,
  localTime,
  punchesFor,
} from '../../../../appliance/kiosk/web/src/lib/timeclock.ts';

const refusal = (status: number, retryAfterSeconds: number | null = null, code = 'X') => ({
  status,
  code,
  message: 'm',
  retryAfterSeconds,
});

describe('sign-in refusals in words', () => {
  it('tells a wrong PIN, a lock, a throttle and a missing appliance apart', () => {
    expect(loginErrorMessage(refusal(401))).toBe('Wrong PIN. Try again.');
    expect(loginErrorMessage(refusal(423, 900))).toMatch(/locked for 15 min/);
    expect(loginErrorMessage(refusal(423))).toMatch(/locked for a while/);
    expect(loginErrorMessage(refusal(429, 8))).toBe('Too many attempts. Wait 8 seconds, then try again.');
    expect(loginErrorMessage(refusal(0))).toMatch(/did not answer/);
  });
});

describe('roles', () => {
  it('counts managers and above as managers', () => {
    expect(isManager(['staff'])).toBe(false);
    expect(isManager(['staff', 'restaurant_manager'])).toBe(true);
    expect(isManager(['tenant_admin'])).toBe(true);
    expect(isManager([])).toBe(false);
  });
});

describe('the time clock', () => {
  it('offers the punches that follow from the shift state', () => {
    expect(punchesFor('off')).toEqual(['clock_in']);
    expect(punchesFor('working')).toEqual(['clock_out', 'break_start']);
    expect(punchesFor('on_break')).toEqual(['break_end']);
  });

  it('moves a punch to another time of its own local day', () => {
    const original = new Date(2025, 4, 1, 9, 7, 30).toISOString();
    expect(localTime(original)).toBe('09:07');
    expect(correctedAt(original, '08:45')).toBe(new Date(2025, 4, 1, 8, 45).toISOString());
    expect(correctedAt(original, '24:00')).toBeUndefined();
    expect(correctedAt(original, '9:5')).toBeUndefined();
    expect(correctedAt('nope', '08:00')).toBeUndefined();
  });

  it('writes worked time', () => {
    expect(formatWorked(425)).toBe('7 h 05 min');
    expect(formatWorked(0)).toBe('0 h 00 min');
  });
});

describe('sync progress', () => {
  it('is the share of the starting queue that has gone', () => {
    expect(drainProgress(200, 200)).toBe(0);
    expect(drainProgress(200, 50)).toBe(75);
    expect(drainProgress(200, 0)).toBe(100);
    expect(drainProgress(200, 260)).toBe(0);
    expect(drainProgress(0, 0)).toBe(100);
  });
});
