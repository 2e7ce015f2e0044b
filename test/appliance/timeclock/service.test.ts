import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createTimeClockService, type TimeClockService } from '../../../appliance/timeclock/index.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';

describe('time clock', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let clock: ManualClock;
  let timeclock: TimeClockService;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timeclock-'));
    db = openApplianceDb(dir);
    clock = createManualClock('2026-06-10T13:00:00.000Z');
    timeclock = createTimeClockService({
      db,
      changes: createChangeLog(db, { clock, newId, locationId: LOCATION }),
      clock,
      newId,
    });
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows a shift with a break, refusing punches that make no sense', () => {
    expect(() => timeclock.punch('ann', 'clock_out')).toThrow(
      expect.objectContaining({ code: 'PUNCH_NOT_ALLOWED', status: 409 }),
    );
    timeclock.punch('ann', 'clock_in');
    expect(() => timeclock.punch('ann', 'clock_in')).toThrow(
      expect.objectContaining({ code: 'PUNCH_NOT_ALLOWED' }),
    );
    clock.advance(3 * 3_600_000);
    timeclock.punch('ann', 'break_start');
    expect(timeclock.state('ann')).toBe('on_break');
    expect(() => timeclock.punch('ann', 'clock_out')).toThrow(
      expect.objectContaining({ code: 'PUNCH_NOT_ALLOWED' }),
    );
    clock.advance(30 * 60_000);
    timeclock.punch('ann', 'break_end');
    clock.advance(4 * 3_600_000);
    timeclock.punch('ann', 'clock_out');
    expect(timeclock.state('ann')).toBe('off');
    expect(timeclock.punches('ann').map((p) => p.kind)).toEqual([
      'clock_in',
      'break_start',
      'break_end',
      'clock_out',
    ]);
    expect(
      (db.prepare("select count(*) n from outbox where table_name = 'time_punches'").get() as { n: number })
        .n,
    ).toBe(4);
  });

  it('lets a manager move a punch, keeping the original and refusing a time that breaks the order', () => {
    const clockIn = timeclock.punch('bob', 'clock_in');
    clock.advance(8 * 3_600_000);
    timeclock.punch('bob', 'clock_out');
    const corrected = timeclock.correct(clockIn.id, {
      at: '2026-06-10T12:45:00.000Z',
      managerId: 'mgr',
      reason: 'forgot to clock in',
    });
    expect(corrected).toMatchObject({
      kind: 'clock_in',
      at: '2026-06-10T12:45:00.000Z',
      replaces: clockIn.id,
      corrected_by: 'mgr',
    });
    expect(timeclock.punches('bob').map((p) => p.at)).toEqual([
      '2026-06-10T12:45:00.000Z',
      '2026-06-10T21:00:00.000Z',
    ]);
    expect(db.prepare('select count(*) n from time_punches').get()).toEqual({ n: 3 });
    expect(() =>
      timeclock.correct(corrected.id, { at: '2026-06-10T22:00:00.000Z', managerId: 'mgr', reason: 'typo' }),
    ).toThrow(expect.objectContaining({ code: 'PUNCH_ORDER_INVALID' }));
    expect(() =>
      timeclock.correct(clockIn.id, { at: '2026-06-10T12:50:00.000Z', managerId: 'mgr', reason: 'again' }),
    ).toThrow(expect.objectContaining({ code: 'PUNCH_NOT_FOUND' }));
    expect(() => timeclock.correct(corrected.id, { at: 'yesterday', managerId: 'mgr', reason: 'x' })).toThrow(
      expect.objectContaining({ details: [{ field: 'body.at', message: 'must be an ISO 8601 time' }] }),
    );
  });
});
