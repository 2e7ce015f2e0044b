import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../shared/clock.ts';
import { CASHIER, createTestAppliance, MANAGER, type TestAppliance } from '../../support/appliance.ts';

describe('timeclock routes', () => {
  let t: TestAppliance;
  let manager: string;
  let cashier: string;
  const clock = createManualClock('2026-06-10T13:00:00.000Z');
  const call = (...args: Parameters<TestAppliance['call']>) => t.call(...args);

  beforeEach(async () => {
    t = await createTestAppliance({ clock });
    ({ manager, cashier } = t);
    clock.set('2026-06-10T13:00:00.000Z');
  });
  afterEach(() => t.close());

  const punch = (token: string, kind: string) => call(token, 'POST', '/timeclock/punches', { kind });
  const hour = 60 * 60 * 1000;

  it('runs a shift over HTTP for the signed-in staff member', async () => {
    for (const kind of ['clock_in', 'break_start', 'break_end', 'clock_out']) {
      const response = await punch(cashier, kind);
      expect(response.statusCode).toBe(201);
      expect(response.json().data).toMatchObject({ staff_id: CASHIER, kind });
      clock.advance(2 * hour);
    }
    const me = await call(cashier, 'GET', '/timeclock/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().data.state).toBe('off');
    expect(me.json().data.punches.map((p: { kind: string }) => p.kind)).toEqual([
      'clock_in',
      'break_start',
      'break_end',
      'clock_out',
    ]);
    expect((await call(manager, 'GET', '/timeclock/me')).json().data).toEqual({ state: 'off', punches: [] });
  });

  it('keeps a note given with a punch or a correction', async () => {
    const created = await call(cashier, 'POST', '/timeclock/punches', { kind: 'clock_in', note: 'bus late' });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ note: 'bus late', version: 1 });
    const url = `/timeclock/punches/${created.json().data.id}/correct`;
    const body = { at: '2026-06-10T12:30:00.000Z', reason: 'started early', note: 'opened the store' };
    expect((await call(manager, 'POST', url, body)).json().data).toMatchObject({
      note: 'opened the store',
      version: 2,
    });
    expect(
      (await call(cashier, 'POST', '/timeclock/punches', { kind: 'clock_out', note: '' })).statusCode,
    ).toBe(400);
  });

  it('refuses an impossible punch', async () => {
    const response = await punch(cashier, 'clock_out');
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('PUNCH_NOT_ALLOWED');
    expect((await punch(cashier, 'lunch')).statusCode).toBe(400);
    expect((await call(undefined, 'GET', '/timeclock/me')).statusCode).toBe(401);
  });

  it('lets a manager, not staff, correct a punch', async () => {
    const punchId = (await punch(cashier, 'clock_in')).json().data.id as string;
    const correction = { at: '2026-06-10T12:45:00.000Z', reason: 'forgot to clock in' };
    const url = `/timeclock/punches/${punchId}/correct`;
    expect((await call(cashier, 'POST', url, correction)).statusCode).toBe(403);
    const corrected = await call(manager, 'POST', url, correction);
    expect(corrected.statusCode).toBe(200);
    expect(corrected.json().data).toEqual({
      id: punchId,
      staff_id: CASHIER,
      kind: 'clock_in',
      at: correction.at,
      note: null,
      corrected_by: MANAGER,
      reason: 'forgot to clock in',
      created_at: '2026-06-10T13:00:00.000Z',
      version: 2,
    });
    const me = (await call(cashier, 'GET', '/timeclock/me')).json().data;
    expect(me).toMatchObject({ state: 'working', punches: [{ id: punchId, at: correction.at, version: 2 }] });
    expect(me.punches).toHaveLength(1);
    const unknown = '01900000-0000-7000-8000-0000000000ff';
    expect(
      (await call(manager, 'POST', `/timeclock/punches/${unknown}/correct`, correction)).statusCode,
    ).toBe(404);
  });
});
