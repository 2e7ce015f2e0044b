import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../shared/clock.ts';
import { CASHIER, createTestAppliance, MANAGER, type TestAppliance } from '../../support/appliance.ts';

const CHLOE = '01900000-0000-7000-8000-000000000003';
const DAN = '01900000-0000-7000-8000-000000000004';
const EVE = '01900000-0000-7000-8000-000000000005';
/** Punches synced from the cloud for someone not replicated here yet. */
const STRANGER = '01900000-0000-7000-8000-0000000000ee';

/** New York wall-clock time in June (UTC-4) as the instant it is. */
const ny = (day: string, time: string) => {
  const [h, m] = time.split(':').map(Number) as [number, number];
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + ((h + 4) * 60 + m) * 60_000).toISOString();
};

type Kind = 'clock_in' | 'clock_out' | 'break_start' | 'break_end';

describe('GET /v1/commerce/timeclock/punches', () => {
  let t: TestAppliance;
  const clock = createManualClock('2026-06-09T12:00:00.000Z');

  beforeEach(async () => {
    clock.set('2026-06-09T12:00:00.000Z');
    t = await createTestAppliance({ clock });
    for (const [id, name] of [
      [CHLOE, 'Chloe'],
      [DAN, 'dan'],
      [EVE, 'Eve'],
    ] as const)
      await t.services.auth.upsertStaff({
        id,
        email: `${name.toLowerCase()}@acme.test`,
        displayName: name,
        roles: ['staff'],
        version: 1,
      });
  });
  afterEach(() => t.close());

  /** Punches in time order across everyone: [staff, kind, day, local time]. */
  const punches = (rows: Array<[string, Kind, string, string]>) =>
    rows
      .map(([staffId, kind, day, time]) => ({ staffId, kind, at: ny(day, time) }))
      .sort((a, b) => a.at.localeCompare(b.at))
      .map(({ staffId, kind, at }) => {
        clock.set(at);
        return t.services.timeclock.punch(staffId, kind);
      });
  const board = async (query = '', at = ny('2026-06-10', '18:00')) => {
    clock.set(at);
    const response = await t.call(await t.login('ann'), 'GET', `/timeclock/punches${query}`);
    expect(response.statusCode).toBe(200);
    return response.json().data as {
      business_day: string;
      staff: Array<{
        staff_id: string;
        display_name: string | null;
        state: string;
        worked_minutes: number;
        punches: Array<{ id: string; kind: string; at: string; staff_id: string }>;
      }>;
    };
  };
  const summary = (data: Awaited<ReturnType<typeof board>>) =>
    data.staff.map((s) => [
      s.display_name,
      s.state,
      s.worked_minutes,
      s.punches.map((p) => p.kind).join(','),
    ]);

  const seed = () =>
    punches([
      // The 9th, and its small hours on the 10th (the business day starts at 04:00).
      [DAN, 'clock_in', '2026-06-09', '22:00'],
      [EVE, 'clock_in', '2026-06-10', '02:00'],
      [EVE, 'clock_out', '2026-06-10', '03:30'],
      // Dan works through the start of the 10th.
      [DAN, 'clock_out', '2026-06-10', '06:00'],
      [CASHIER, 'clock_in', '2026-06-10', '09:00'],
      [CASHIER, 'break_start', '2026-06-10', '12:00'],
      [CASHIER, 'break_end', '2026-06-10', '12:30'],
      [CASHIER, 'clock_out', '2026-06-10', '17:00'],
      [MANAGER, 'clock_in', '2026-06-10', '10:00'],
      [CHLOE, 'clock_in', '2026-06-10', '08:00'],
      [CHLOE, 'break_start', '2026-06-10', '13:30'],
      [STRANGER, 'clock_in', '2026-06-10', '11:00'],
      [STRANGER, 'clock_out', '2026-06-10', '11:30'],
    ]);

  it('shows today’s punches per staff member by name, with state and time worked up to now', async () => {
    seed();
    const today = await board();
    expect(today.business_day).toBe('2026-06-10');
    expect(summary(today)).toEqual([
      ['Ann', 'working', 480, 'clock_in'],
      ['Bob', 'off', 450, 'clock_in,break_start,break_end,clock_out'],
      ['Chloe', 'on_break', 330, 'clock_in,break_start'],
      ['dan', 'off', 120, 'clock_out'],
      [null, 'off', 30, 'clock_in,clock_out'],
    ]);
    const bob = today.staff[1]!;
    expect(bob.staff_id).toBe(CASHIER);
    expect(bob.punches[0]).toEqual({
      id: expect.any(String),
      staff_id: CASHIER,
      kind: 'clock_in',
      at: '2026-06-10T13:00:00.000Z',
      note: null,
      corrected_by: null,
      reason: null,
      created_at: '2026-06-10T13:00:00.000Z',
      version: 1,
    });
    // An hour on, Ann has worked an hour more.
    expect((await board('', ny('2026-06-10', '19:00'))).staff[0]?.worked_minutes).toBe(540);
  });

  it('shows an earlier day by its business day, a shift still open at its end counted to the end', async () => {
    seed();
    expect(summary(await board('?business_day=2026-06-09'))).toEqual([
      ['dan', 'working', 360, 'clock_in'],
      ['Eve', 'off', 90, 'clock_in,clock_out'],
    ]);
    expect(await board('?business_day=2026-06-08')).toEqual({ business_day: '2026-06-08', staff: [] });
    expect(await board('?business_day=2026-06-10')).toEqual(await board());
  });

  it('follows a manager’s correction', async () => {
    const [clockIn] = punches([
      [CASHIER, 'clock_in', '2026-06-10', '09:00'],
      [CASHIER, 'clock_out', '2026-06-10', '10:00'],
    ]);
    t.services.timeclock.correct(clockIn!.id, {
      at: ny('2026-06-10', '08:30'),
      managerId: MANAGER,
      reason: 'early',
    });
    expect((await board()).staff).toMatchObject([
      { display_name: 'Bob', worked_minutes: 90, punches: [{ version: 2, corrected_by: MANAGER }, {}] },
    ]);
  });

  it.each([
    ['?business_day=2026-13-01', 'querystring.business_day'],
    ['?business_day=yesterday', 'querystring.business_day'],
    ['?staff_id=x', 'querystring.staff_id'],
  ])('refuses %s naming %s', async (query, field) => {
    const response = await t.call(t.manager, 'GET', `/timeclock/punches${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: [{ field }] });
  });

  it('is for managers only', async () => {
    expect((await t.call(undefined, 'GET', '/timeclock/punches')).statusCode).toBe(401);
    const cashier = await t.call(t.cashier, 'GET', '/timeclock/punches');
    expect(cashier.statusCode).toBe(403);
    expect(cashier.json().error.code).toBe('FORBIDDEN');
  });
});
