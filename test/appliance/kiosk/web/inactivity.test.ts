import { describe, expect, it } from 'vitest';
import {
  createInactivity,
  DEFAULT_INACTIVITY,
  inactivityFromQuery,
} from '../../../../appliance/kiosk/web/src/lib/inactivity.ts';

describe('automatic sign-out', () => {
  it('defaults to two minutes with a 15-second warning', () => {
    expect(DEFAULT_INACTIVITY).toEqual({ timeoutMs: 120_000, warnMs: 15_000 });
  });

  it('is active, then counts down the last 15 seconds, then expires', () => {
    const idle = createInactivity(DEFAULT_INACTIVITY, 0);
    expect(idle.phaseAt(0)).toEqual({ phase: 'active' });
    expect(idle.phaseAt(104_999)).toEqual({ phase: 'active' });
    expect(idle.phaseAt(105_000)).toEqual({ phase: 'warning', secondsLeft: 15 });
    expect(idle.phaseAt(119_001)).toEqual({ phase: 'warning', secondsLeft: 1 });
    expect(idle.phaseAt(120_000)).toEqual({ phase: 'expired' });
  });

  it('starts over on any touch, even during the warning', () => {
    const idle = createInactivity(DEFAULT_INACTIVITY, 0);
    idle.touch(110_000);
    expect(idle.phaseAt(120_000)).toEqual({ phase: 'active' });
    expect(idle.phaseAt(230_000)).toEqual({ phase: 'expired' });
  });

  it('does not go back in time on a late-arriving touch', () => {
    const idle = createInactivity(DEFAULT_INACTIVITY, 50_000);
    idle.touch(10_000);
    expect(idle.phaseAt(169_000).phase).toBe('warning');
  });

  it('takes a shorter timeout from ?idle= for tests, keeping the countdown visible', () => {
    expect(inactivityFromQuery('')).toEqual(DEFAULT_INACTIVITY);
    expect(inactivityFromQuery('?idle=abc')).toEqual(DEFAULT_INACTIVITY);
    expect(inactivityFromQuery('?idle=30')).toEqual({ timeoutMs: 30_000, warnMs: 15_000 });
    expect(inactivityFromQuery('?idle=1')).toEqual({ timeoutMs: 5000, warnMs: 4000 });
    expect(inactivityFromQuery('?idle=99999').timeoutMs).toBe(3_600_000);
  });
});
