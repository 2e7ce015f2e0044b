import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog, docClientIdOf } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createReplica } from '../../../appliance/sync/replica.ts';
import { createTimeClockService, type TimeClockService } from '../../../appliance/timeclock/index.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import { encodeRowDoc, loadRowDoc, readFields, writeFields } from '../../../shared/sync/merge-doc.ts';
import { SYNC_TABLES } from '../../../shared/sync/registry.ts';

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

  it('says when staff clock in and out, in the punch’s transaction, and syncs those events up', () => {
    const clockIn = timeclock.punch('eve', 'clock_in');
    clock.advance(60_000);
    timeclock.punch('eve', 'break_start');
    clock.advance(60_000);
    timeclock.punch('eve', 'break_end');
    clock.advance(60_000);
    const clockOut = timeclock.punch('eve', 'clock_out');
    timeclock.correct(clockIn.id, { at: '2026-06-10T12:58:00.000Z', managerId: 'mgr', reason: 'early' });
    expect(() => timeclock.punch('eve', 'clock_out')).toThrow(expect.objectContaining({ status: 409 }));

    const events = db
      .prepare('select id, type, location_id, occurred_at, data from events order by rowid')
      .all();
    expect(events).toEqual([
      {
        id: expect.any(String),
        type: 'employee.clocked_in',
        location_id: LOCATION,
        occurred_at: clockIn.at,
        data: JSON.stringify({ punch_id: clockIn.id, employee_id: 'eve', at: clockIn.at }),
      },
      {
        id: expect.any(String),
        type: 'employee.clocked_out',
        location_id: LOCATION,
        occurred_at: clockOut.at,
        data: JSON.stringify({ punch_id: clockOut.id, employee_id: 'eve', at: clockOut.at }),
      },
    ]);
    const synced = db.prepare("select row_id from outbox where table_name = 'events' order by hlc").all();
    expect(synced).toEqual(events.map((e) => ({ row_id: (e as { id: string }).id })));
  });

  it('lets a manager move a punch in place, refusing a time that breaks the order', () => {
    const clockIn = timeclock.punch('bob', 'clock_in');
    clock.advance(8 * 3_600_000);
    timeclock.punch('bob', 'clock_out');
    const corrected = timeclock.correct(clockIn.id, {
      at: '2026-06-10T12:45:00.000Z',
      managerId: 'mgr',
      reason: ' forgot to clock in ',
    });
    expect(corrected).toEqual({
      ...clockIn,
      at: '2026-06-10T12:45:00.000Z',
      corrected_by: 'mgr',
      reason: 'forgot to clock in',
      version: 2,
    });
    expect(timeclock.punches('bob')).toEqual([corrected, expect.objectContaining({ kind: 'clock_out' })]);
    expect(db.prepare('select count(*) n from time_punches').get()).toEqual({ n: 2 });
    expect(() =>
      timeclock.correct(clockIn.id, { at: '2026-06-10T22:00:00.000Z', managerId: 'mgr', reason: 'typo' }),
    ).toThrow(expect.objectContaining({ code: 'PUNCH_ORDER_INVALID', status: 409 }));
    expect(() =>
      timeclock.correct(newId(), { at: '2026-06-10T12:50:00.000Z', managerId: 'mgr', reason: 'again' }),
    ).toThrow(expect.objectContaining({ code: 'PUNCH_NOT_FOUND', status: 404 }));
    expect(() => timeclock.correct(clockIn.id, { at: 'yesterday', managerId: 'mgr', reason: 'x' })).toThrow(
      expect.objectContaining({ details: [{ field: 'body.at', message: 'must be an ISO 8601 time' }] }),
    );
    expect(() =>
      timeclock.correct(clockIn.id, { at: '2026-06-10T12:50:00.000Z', managerId: 'mgr', reason: ' ' }),
    ).toThrow(expect.objectContaining({ details: [{ field: 'body.reason', message: 'must say why' }] }));
    expect(storedPunch(clockIn.id)).toMatchObject({ at: '2026-06-10T12:45:00.000Z', version: 2 });
  });

  it('records each write once in the outbox, with the version it was based on and the document', () => {
    const clockIn = timeclock.punch('cat', 'clock_in', 'bus late');
    clock.advance(60_000);
    timeclock.correct(clockIn.id, { at: '2026-06-10T12:55:00.000Z', managerId: 'mgr', reason: 'early' });
    clock.advance(60_000);
    timeclock.correct(clockIn.id, {
      at: '2026-06-10T12:50:00.000Z',
      managerId: 'boss',
      reason: 'earlier',
      note: 'opened up',
    });
    const outbox = db
      .prepare(
        "select operation, row_version, base_version, fields, doc from outbox where table_name = 'time_punches' and row_id = ? order by hlc",
      )
      .all(clockIn.id) as Array<{
      operation: string;
      row_version: number;
      base_version: number;
      fields: string;
      doc: string;
    }>;
    expect(
      outbox.map(({ operation, row_version, base_version }) => [operation, row_version, base_version]),
    ).toEqual([
      ['insert', 1, 0],
      ['update', 2, 1],
      ['update', 3, 2],
    ]);
    for (const change of outbox) expect(JSON.parse(change.fields)).toEqual(decode(change.doc));
    const row = storedPunch(clockIn.id);
    expect(row).toMatchObject({
      at: '2026-06-10T12:50:00.000Z',
      note: 'opened up',
      corrected_by: 'boss',
      reason: 'earlier',
      version: 3,
      updated_at: '2026-06-10T13:02:00.000Z',
      doc: outbox[2]?.doc,
    });
    expect(decode(row.doc as string)).toEqual(columnsOf(row));
  });

  it('corrects a punch written before punches had documents, leaving replaced ones out of force', () => {
    const original = legacyPunch({ at: '2026-06-10T09:00:00.000Z' });
    const replacement = legacyPunch({
      at: '2026-06-10T08:30:00.000Z',
      replaces: original.id,
      corrected_by: 'mgr',
      reason: 'old fix',
    });
    expect(timeclock.punches('dan').map((p) => p.id)).toEqual([replacement.id]);
    expect(timeclock.state('dan')).toBe('working');
    expect(() =>
      timeclock.correct(original.id, { at: '2026-06-10T08:00:00.000Z', managerId: 'mgr', reason: 'x' }),
    ).toThrow(expect.objectContaining({ code: 'PUNCH_NOT_FOUND' }));

    const corrected = timeclock.correct(replacement.id, {
      at: '2026-06-10T08:15:00.000Z',
      managerId: 'boss',
      reason: 'new fix',
    });
    expect(corrected).toMatchObject({ id: replacement.id, at: '2026-06-10T08:15:00.000Z', version: 2 });
    const row = storedPunch(replacement.id);
    expect(row.replaces).toBe(original.id);
    expect(decode(row.doc as string)).toEqual(columnsOf(row));
    expect(decode(row.doc as string)).toMatchObject({
      staff_id: 'dan',
      kind: 'clock_in',
      created_at: original.at,
    });
    expect(
      db
        .prepare('select operation, row_version, base_version from outbox where row_id = ?')
        .all(replacement.id),
    ).toEqual([{ operation: 'update', row_version: 2, base_version: 1 }]);
  });

  const COLUMNS = Object.keys(SYNC_TABLES.time_punches.columns);
  const columnsOf = (row: Record<string, unknown>) =>
    Object.fromEntries(COLUMNS.map((column) => [column, row[column]]));
  const decode = (doc: string) => readFields(loadRowDoc(Buffer.from(doc, 'base64'), 7));
  const storedPunch = (id: string) =>
    db.prepare('select * from time_punches where id = ?').get(id) as Record<string, unknown>;

  function legacyPunch(overrides: Record<string, unknown>) {
    const row = {
      id: newId(),
      staff_id: 'dan',
      kind: 'clock_in',
      at: '2026-06-10T09:00:00.000Z',
      replaces: null,
      corrected_by: null,
      reason: null,
      created_at: '2026-06-10T09:00:00.000Z',
      ...overrides,
    };
    db.prepare(
      `insert into time_punches (id, staff_id, kind, at, replaces, corrected_by, reason, created_at)
       values (@id, @staff_id, @kind, @at, @replaces, @corrected_by, @reason, @created_at)`,
    ).run(row);
    return row;
  }

  it('orders a correction after the cloud’s edit of the same field, even right after a restart', () => {
    const punch = timeclock.punch('ann', 'clock_in');
    clock.advance(3_600_000);
    timeclock.punch('ann', 'clock_out');
    // Payroll's edit, stamped by a cloud whose clock runs ten minutes ahead of the store's.
    const stored = db.prepare('select doc from time_punches where id = ?').get(punch.id) as { doc: string };
    const cloudDoc = loadRowDoc(Buffer.from(stored.doc, 'base64'), 1);
    const cloudClock = createHlc('cloud.test', () => clock.now().getTime() + 600_000);
    writeFields(cloudDoc, { reason: 'payroll' }, cloudClock.tick());
    const row = {
      table: 'time_punches',
      row_id: punch.id,
      version: 3,
      deleted: false,
      hlc: cloudClock.last(),
    };
    db.transaction(() =>
      createReplica(db, docClientIdOf(LOCATION)).apply({
        ...row,
        fields: readFields(cloudDoc),
        doc: Buffer.from(encodeRowDoc(cloudDoc)).toString('base64'),
      }),
    )();

    // A restart: the change log's clock knows only the outbox, never the cloud's stamp.
    const restarted = createTimeClockService({
      db,
      changes: createChangeLog(db, { clock, newId, locationId: LOCATION }),
      clock,
      newId,
    });
    const corrected = restarted.correct(punch.id, {
      at: new Date(Date.parse(punch.at) - 60_000).toISOString(),
      managerId: 'mia',
      reason: 'came in early',
    });
    expect(corrected).toMatchObject({ reason: 'came in early' });
  });

  it('keeps correcting punches after the store’s clock was set back days', () => {
    const punch = timeclock.punch('ann', 'clock_in');
    clock.advance(3_600_000);
    timeclock.punch('ann', 'clock_out');
    timeclock.correct(punch.id, { at: punch.at, managerId: 'mia', reason: 'first look' });
    clock.advance(-3 * 86_400_000);
    const restarted = createTimeClockService({
      db,
      changes: createChangeLog(db, { clock, newId, locationId: LOCATION }),
      clock,
      newId,
    });
    const corrected = restarted.correct(punch.id, { at: punch.at, managerId: 'mia', reason: 'second look' });
    expect(corrected).toMatchObject({ reason: 'second look' });
  });
});
