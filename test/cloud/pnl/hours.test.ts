import { describe, expect, it } from 'vitest';
import { hoursOf } from '../../../cloud/pnl/rollup-hours.ts';

describe('hours worked from punches', () => {
  it('counts a shift on the store-local day it began, less its breaks', () => {
    const punches = [
      { staff_id: 's1', kind: 'clock_in', at: '2026-03-02T23:00:00.000Z' },
      { staff_id: 's1', kind: 'break_start', at: '2026-03-03T01:00:00.000Z' },
      { staff_id: 's1', kind: 'break_end', at: '2026-03-03T01:15:00.000Z' },
      { staff_id: 's1', kind: 'clock_out', at: '2026-03-03T05:00:00.000Z' },
    ];
    expect(hoursOf(punches, 'America/New_York')).toEqual([
      { staff_id: 's1', business_day: '2026-03-02', seconds: 5.75 * 3600 },
    ]);
    expect(hoursOf(punches, 'UTC')).toEqual([
      { staff_id: 's1', business_day: '2026-03-02', seconds: 5.75 * 3600 },
    ]);
    expect(hoursOf(punches, 'Asia/Tokyo')[0]!.business_day).toBe('2026-03-03');
  });

  it('ignores an open shift and a clock-out without a clock-in, and adds two shifts of a day', () => {
    const punches = [
      { staff_id: 's1', kind: 'clock_out', at: '2026-03-02T08:00:00.000Z' },
      { staff_id: 's1', kind: 'clock_in', at: '2026-03-02T09:00:00.000Z' },
      { staff_id: 's1', kind: 'clock_out', at: '2026-03-02T10:00:00.000Z' },
      { staff_id: 's1', kind: 'clock_in', at: '2026-03-02T15:00:00.000Z' },
      { staff_id: 's1', kind: 'clock_out', at: '2026-03-02T16:30:00.000Z' },
      { staff_id: 's2', kind: 'clock_in', at: '2026-03-02T09:00:00.000Z' },
    ];
    expect(hoursOf(punches, 'UTC')).toEqual([
      { staff_id: 's1', business_day: '2026-03-02', seconds: 2.5 * 3600 },
    ]);
  });
});
