import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  expectError,
  expectOk,
  fieldsOf,
  NOW,
  type OncallCloud,
  oncallCloud,
  person,
  type ScheduleView,
  weeklyBody,
} from './oncall-cloud.ts';

describe.each(backends)('on-call over HTTP on %s', (backend) => {
  let c: OncallCloud;
  beforeAll(async () => {
    c = await oncallCloud(backend);
  });
  afterAll(() => c.cloud.close());
  beforeEach(() => c.cloud.clock.set(NOW));

  const create = async (body: Record<string, unknown>) =>
    expectOk(await c.adminA.call('POST', '/schedules', body), 201) as ScheduleView;
  const onCall = async (team: string, at?: string) =>
    expectOk(
      await c.managerA.call(
        'GET',
        `/schedule/${encodeURIComponent(team)}${at ? `?at=${encodeURIComponent(at)}` : ''}`,
      ),
    );

  it('creates a weekly schedule and answers spec 3’s on-call schedule for its team', async () => {
    const body = weeklyBody();
    const schedule = await create(body);
    expect(schedule).toEqual({
      id: expect.any(String),
      team: body.team,
      type: 'weekly',
      time_zone: 'America/New_York',
      handoff_time: '09:00',
      start_date: '2026-03-02',
      shift_hours: 168,
      participants: [
        {
          name: 'Ana',
          email: 'ana@example.com',
          phone: '+1 555 0100',
          push_token: 'device-token-ana',
          user_id: null,
        },
        { name: 'Ben', email: 'ben@example.com', phone: null, push_token: null, user_id: null },
        { name: 'Cai', email: 'cai@example.com', phone: null, push_token: null, user_id: null },
      ],
      regions: null,
      created_at: NOW,
      updated_at: NOW,
    });
    expect(await onCall(body.team)).toEqual({
      team: body.team,
      current: {
        primary: { name: 'Ana', email: 'ana@example.com', phone: '+1 555 0100', user_id: null },
        secondary: { name: 'Ben', email: 'ben@example.com', phone: null, user_id: null },
      },
      // Monday 09:00 in New York, after the 2026-03-08 change: 13:00 UTC.
      next_rotation: '2026-03-09T13:00:00.000Z',
      at: NOW,
      schedule_id: schedule.id,
      type: 'weekly',
      time_zone: 'America/New_York',
      overrides: { primary: null, secondary: null },
    });
  });

  it('answers for another instant with ?at=, and follows the clock', async () => {
    const body = weeklyBody();
    await create(body);
    expect(await onCall(body.team, '2026-03-09T13:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ben' }, secondary: { name: 'Cai' } },
      next_rotation: '2026-03-16T13:00:00.000Z',
      at: '2026-03-09T13:00:00.000Z',
    });
    expect(await onCall(body.team, '2026-03-09T09:00:00-04:00')).toMatchObject({
      current: { primary: { name: 'Ben' } },
    });
    expect(await onCall(body.team, '2026-03-02T08:59:00-05:00')).toMatchObject({
      current: { primary: null, secondary: null },
      next_rotation: '2026-03-02T14:00:00.000Z',
    });
    expect(fieldsOf(await c.managerA.call('GET', `/schedule/${body.team}?at=tomorrow`))).toEqual([
      'querystring.at',
    ]);
  });

  it('keeps a Berlin daily handoff at 10:00 local across the October change', async () => {
    const body = weeklyBody({
      type: 'daily',
      time_zone: 'Europe/Berlin',
      handoff_time: '10:00',
      start_date: '2026-10-20',
      participants: [person('Ana'), person('Ben')],
    });
    await create(body);
    expect(await onCall(body.team, '2026-10-24T12:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ana' } },
      next_rotation: '2026-10-25T09:00:00.000Z',
    });
    expect(await onCall(body.team, '2026-10-25T09:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ben' } },
      next_rotation: '2026-10-26T09:00:00.000Z',
    });
  });

  it('serves a follow-the-sun schedule', async () => {
    const body = weeklyBody({
      type: 'follow_the_sun',
      time_zone: 'UTC',
      handoff_time: '00:00',
      start_date: '2026-03-01',
      participants: [],
      regions: [
        {
          name: 'EMEA',
          time_zone: 'Europe/Berlin',
          start_time: '09:00',
          end_time: '17:00',
          participants: [person('Emil')],
        },
        {
          name: 'AMER',
          time_zone: 'America/New_York',
          start_time: '09:00',
          end_time: '17:00',
          rotation_days: 1,
          participants: [person('Nia'), person('Ned')],
        },
      ],
    });
    const schedule = await create(body);
    expect(schedule).toMatchObject({
      shift_hours: null,
      participants: [],
      regions: [{ rotation_days: 7 }, { rotation_days: 1 }],
    });
    // 12:00 UTC is 13:00 in Berlin and 07:00 in New York (still standard time on the 5th).
    expect(await onCall(body.team)).toMatchObject({
      current: { primary: { name: 'Emil' }, secondary: { name: 'Nia' } },
      next_rotation: '2026-03-05T14:00:00.000Z',
    });
    expect(await onCall(body.team, '2026-03-10T14:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ned' }, secondary: { name: 'Nia' } },
      next_rotation: '2026-03-11T08:00:00.000Z',
    });
  });

  it('runs a custom schedule of 12-hour shifts', async () => {
    const body = weeklyBody({
      type: 'custom',
      shift_hours: 12,
      handoff_time: '08:00',
      start_date: '2026-03-05',
    });
    await create(body);
    // 08:00 EST = 13:00 UTC on the 5th: Ana until 20:00 EST (01:00 UTC).
    expect(await onCall(body.team, '2026-03-05T13:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ana' }, secondary: { name: 'Ben' } },
      next_rotation: '2026-03-06T01:00:00.000Z',
    });
  });

  it('answers 404 TEAM_NOT_FOUND for a team without a schedule, and reads team names with spaces', async () => {
    expectError(await c.managerA.call('GET', '/schedule/nobody'), 404, 'TEAM_NOT_FOUND');
    const body = weeklyBody({ team: 'Store Ops (EU)' });
    await create(body);
    expect(await onCall('Store Ops (EU)')).toMatchObject({ team: 'Store Ops (EU)' });
  });

  it('gives the contract to other modules: current(), teams()', async () => {
    const body = weeklyBody();
    await create(body);
    const tenantId = c.a.tenant.id;
    expect(await c.cloud.services.oncall.current(tenantId, body.team)).toEqual({
      team: body.team,
      current: {
        primary: {
          name: 'Ana',
          email: 'ana@example.com',
          phone: '+1 555 0100',
          push_token: 'device-token-ana',
          user_id: null,
        },
        secondary: { name: 'Ben', email: 'ben@example.com', phone: null, push_token: null, user_id: null },
      },
      next_rotation: '2026-03-09T13:00:00.000Z',
    });
    expect(
      await c.cloud.services.oncall.current(tenantId, body.team, new Date('2026-03-16T13:00:00Z')),
    ).toMatchObject({
      current: { primary: { name: 'Cai' } },
    });
    expect(await c.cloud.services.oncall.current(tenantId, 'no-such-team')).toBeUndefined();
    const teams = await c.cloud.services.oncall.teams(tenantId);
    expect(teams).toContain(body.team);
    expect(teams).toEqual([...teams].sort());
  });

  it('lists schedules by team name, a page at a time', async () => {
    const names = ['zz-list-c', 'zz-list-a', 'zz-list-b'];
    for (const team of names) await create(weeklyBody({ team }));
    const seen: string[] = [];
    let cursor: string | null = 'zz-list';
    while (cursor) {
      const response = await c.adminA.call('GET', `/schedules?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(response.statusCode).toBe(200);
      const json = response.json();
      seen.push(...json.data.map((s: ScheduleView) => s.team));
      expect(json.meta.pagination.limit).toBe(2);
      cursor = json.meta.pagination.next_cursor;
    }
    expect(seen).toEqual(['zz-list-a', 'zz-list-b', 'zz-list-c']);
    expect(fieldsOf(await c.adminA.call('GET', '/schedules?limit=0'))).toEqual(['querystring.limit']);
  });

  it('changes a schedule in part, validating the result as a whole', async () => {
    const schedule = await create(weeklyBody());
    c.cloud.clock.advance(60_000);
    const changed = expectOk(
      await c.adminA.call('PATCH', `/schedules/${schedule.id}`, { handoff_time: '10:30', type: 'daily' }),
    );
    expect(changed).toMatchObject({ handoff_time: '10:30', type: 'daily', shift_hours: 24, created_at: NOW });
    expect(changed.updated_at).not.toBe(NOW);
    expect(await onCall(schedule.team)).toMatchObject({ next_rotation: '2026-03-05T15:30:00.000Z' });
    expect(fieldsOf(await c.adminA.call('PATCH', `/schedules/${schedule.id}`, { type: 'custom' }))).toEqual([
      'body.shift_hours',
    ]);
    const custom = expectOk(
      await c.adminA.call('PATCH', `/schedules/${schedule.id}`, { type: 'custom', shift_hours: 6 }),
    );
    expect(custom.shift_hours).toBe(6);
    // Back to weekly: the custom shift length goes with the type.
    expect(
      expectOk(await c.adminA.call('PATCH', `/schedules/${schedule.id}`, { type: 'weekly' })).shift_hours,
    ).toBe(168);
    expect(fieldsOf(await c.adminA.call('PATCH', `/schedules/${schedule.id}`, {}))).toEqual(['body']);
    const region = {
      name: 'EU',
      time_zone: 'Europe/Berlin',
      start_time: '09:00',
      end_time: '17:00',
      participants: [person('Eve')],
    };
    const sun = expectOk(
      await c.adminA.call('PATCH', `/schedules/${schedule.id}`, {
        type: 'follow_the_sun',
        regions: [region],
      }),
    );
    expect(sun).toMatchObject({ type: 'follow_the_sun', participants: [], regions: [{ name: 'EU' }] });
    expect(expectOk(await c.adminA.call('GET', `/schedules/${schedule.id}`))).toEqual(sun);
    expectError(
      await c.adminA.call('PATCH', `/schedules/${crypto.randomUUID()}`, { handoff_time: '10:00' }),
      404,
      'SCHEDULE_NOT_FOUND',
    );
  });

  it('keeps a team to one schedule: 409 TEAM_EXISTS on create and on rename', async () => {
    const first = await create(weeklyBody());
    const second = await create(weeklyBody());
    const again = expectError(
      await c.adminA.call('POST', '/schedules', weeklyBody({ team: first.team })),
      409,
      'TEAM_EXISTS',
    );
    expect(again.details).toEqual([{ field: 'body.team', message: expect.any(String) }]);
    expectError(
      await c.adminA.call('PATCH', `/schedules/${second.id}`, { team: first.team }),
      409,
      'TEAM_EXISTS',
    );
    const renamed = expectOk(
      await c.adminA.call('PATCH', `/schedules/${second.id}`, { team: `${second.team}-renamed` }),
    );
    expect(renamed.team).toBe(`${second.team}-renamed`);
    expect(await onCall(renamed.team)).toMatchObject({ schedule_id: second.id });
    expectError(await c.managerA.call('GET', `/schedule/${second.team}`), 404, 'TEAM_NOT_FOUND');
  });

  it('deletes a schedule with its overrides', async () => {
    const schedule = await create(weeklyBody());
    const cover = {
      kind: 'pto',
      person: person('Dee'),
      starts_at: '2026-03-06T00:00:00Z',
      ends_at: '2026-03-07T00:00:00Z',
    };
    const override = expectOk(await c.adminA.call('POST', `/schedules/${schedule.id}/overrides`, cover), 201);
    expect((await c.adminA.call('DELETE', `/schedules/${schedule.id}`)).statusCode).toBe(204);
    expectError(await c.adminA.call('GET', `/schedules/${schedule.id}`), 404, 'SCHEDULE_NOT_FOUND');
    expectError(await c.managerA.call('GET', `/schedule/${schedule.team}`), 404, 'TEAM_NOT_FOUND');
    expectError(await c.adminA.call('DELETE', `/schedules/${schedule.id}`), 404, 'SCHEDULE_NOT_FOUND');
    const left = await c.cloud.store.db
      .selectFrom('oncall_overrides')
      .select('id')
      .where('id', '=', override.id)
      .execute();
    expect(left).toEqual([]);
    // The team name is free again.
    await create(weeklyBody({ team: schedule.team }));
  });

  it('refuses a bad schedule with 400 naming every field', async () => {
    const post = (body: Record<string, unknown>) => c.adminA.call('POST', '/schedules', body);
    expect(fieldsOf(await post(weeklyBody({ time_zone: 'Mars/Olympus_Mons' })))).toEqual(['body.time_zone']);
    expect(fieldsOf(await post(weeklyBody({ time_zone: '+01:00' })))).toEqual(['body.time_zone']);
    expect(fieldsOf(await post(weeklyBody({ handoff_time: '9:00' })))).toEqual(['body.handoff_time']);
    expect(fieldsOf(await post(weeklyBody({ handoff_time: '24:00' })))).toEqual(['body.handoff_time']);
    expect(fieldsOf(await post(weeklyBody({ start_date: '2026-02-30' })))).toEqual(['body.start_date']);
    expect(fieldsOf(await post(weeklyBody({ participants: [] })))).toEqual(['body.participants']);
    expect(fieldsOf(await post(weeklyBody({ participants: undefined })))).toEqual(['body.participants']);
    expect(
      fieldsOf(await post(weeklyBody({ participants: [{ name: 'X', email: 'not-an-email' }] }))),
    ).toEqual(['body.participants.0.email']);
    expect(fieldsOf(await post(weeklyBody({ shift_hours: 12 })))).toEqual(['body.shift_hours']);
    expect(fieldsOf(await post(weeklyBody({ type: 'custom' })))).toEqual(['body.shift_hours']);
    expect(fieldsOf(await post(weeklyBody({ type: 'custom', shift_hours: 0 })))).toEqual([
      'body.shift_hours',
    ]);
    expect(fieldsOf(await post(weeklyBody({ type: 'hourly' })))).toEqual(['body.type']);
    expect(fieldsOf(await post(weeklyBody({ team: 'a/b' })))).toEqual(['body.team']);
    expect(fieldsOf(await post(weeklyBody({ colour: 'red' })))).toEqual(['body.colour']);
    expect(fieldsOf(await post(weeklyBody({ type: 'follow_the_sun' })))).toEqual([
      'body.regions',
      'body.participants',
    ]);
    const region = (fields: Record<string, unknown>) => ({
      name: 'EU',
      time_zone: 'Europe/Berlin',
      start_time: '09:00',
      end_time: '17:00',
      participants: [person('Eve')],
      ...fields,
    });
    const sun = (regions: unknown[]) => weeklyBody({ type: 'follow_the_sun', participants: [], regions });
    expect(
      fieldsOf(
        await post(sun([region({}), region({ time_zone: 'Nowhere/Land', end_time: '09:00', name: 'US' })])),
      ),
    ).toEqual(['body.regions.1.time_zone', 'body.regions.1.end_time']);
    expect(fieldsOf(await post(sun([region({}), region({})])))).toEqual(['body.regions.1.name']);
    expect(fieldsOf(await post(sun([region({ participants: [] })])))).toEqual([
      'body.regions.0.participants',
    ]);
    expect(fieldsOf(await post(weeklyBody({ regions: [region({})] })))).toEqual(['body.regions']);
  });

  it('overrides the rotation for a date range, and takes a retry as the same override', async () => {
    const schedule = await create(weeklyBody());
    const path = `/schedules/${schedule.id}/overrides`;
    const pto = {
      kind: 'pto',
      person: person('Dee', { user_id: 'u-dee' }),
      starts_at: '2026-03-05T00:00:00Z',
      ends_at: '2026-03-06T12:00:00+01:00',
      reason: 'Ana on leave',
    };
    const created = expectOk(await c.adminA.call('POST', path, pto), 201);
    expect(created).toEqual({
      id: expect.any(String),
      schedule_id: schedule.id,
      slot: 'primary',
      kind: 'pto',
      person: { name: 'Dee', email: 'dee@example.com', phone: null, push_token: null, user_id: 'u-dee' },
      reason: 'Ana on leave',
      starts_at: '2026-03-05T00:00:00.000Z',
      ends_at: '2026-03-06T11:00:00.000Z',
      created_at: NOW,
      created_by: c.adminA.userId,
    });
    expect(expectOk(await c.adminA.call('POST', path, pto), 200)).toEqual(created);
    expect(await onCall(schedule.team)).toMatchObject({
      current: { primary: { name: 'Dee', user_id: 'u-dee' }, secondary: { name: 'Ben' } },
      next_rotation: '2026-03-06T11:00:00.000Z',
      overrides: {
        primary: { id: created.id, kind: 'pto', ends_at: '2026-03-06T11:00:00.000Z' },
        secondary: null,
      },
    });
    expect(expectOk(await c.managerA.call('GET', `${path}/${created.id}`))).toEqual(created);

    // An emergency stand-in, created later, wins where the two overlap.
    c.cloud.clock.advance(1000);
    const emergency = expectOk(
      await c.managerA.call('POST', path, {
        kind: 'emergency',
        person: person('Eve'),
        starts_at: '2026-03-05T10:00:00Z',
        ends_at: '2026-03-05T14:00:00Z',
      }),
      201,
    );
    expect(await onCall(schedule.team)).toMatchObject({
      current: { primary: { name: 'Eve' } },
      next_rotation: '2026-03-05T14:00:00.000Z',
    });
    const secondary = expectOk(
      await c.managerA.call('POST', path, {
        slot: 'secondary',
        kind: 'holiday',
        person: person('Fay'),
        starts_at: '2026-03-05T00:00:00Z',
        ends_at: '2026-03-06T00:00:00Z',
      }),
      201,
    );
    expect((await onCall(schedule.team)).current.secondary.name).toBe('Fay');

    const list = (query = '') => c.managerA.call('GET', `${path}${query}`);
    expect(expectOk(await list()).map((o: { id: string }) => o.id)).toEqual([
      secondary.id,
      emergency.id,
      created.id,
    ]);
    const page = (await list('?limit=2')).json();
    expect(page.meta.pagination.next_cursor).toBe(emergency.id);
    expect(expectOk(await list(`?limit=2&cursor=${emergency.id}`)).map((o: { id: string }) => o.id)).toEqual([
      created.id,
    ]);

    // Deleting the emergency uncovers the PTO beneath it.
    expect((await c.managerA.call('DELETE', `${path}/${emergency.id}`)).statusCode).toBe(204);
    expectError(await c.managerA.call('DELETE', `${path}/${emergency.id}`), 404, 'OVERRIDE_NOT_FOUND');
    expectError(await c.managerA.call('GET', `${path}/${emergency.id}`), 404, 'OVERRIDE_NOT_FOUND');
    expect((await onCall(schedule.team)).current.primary.name).toBe('Dee');

    // Once over, an override leaves the default list but not the full one.
    expect(await onCall(schedule.team, '2026-03-06T12:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ana' } },
    });
    c.cloud.clock.set('2026-03-06T12:00:00Z');
    const listed = (includeEnded: boolean) =>
      c.cloud.services.oncall.listOverrides(c.a.tenant.id, schedule.id, { includeEnded, limit: 50 });
    expect((await listed(false)).items).toEqual([]);
    expect((await listed(true)).items.map((o) => o.id)).toEqual([secondary.id, created.id]);
  });

  it('offers a swap override covering a handoff: next_rotation is the override’s end', async () => {
    const schedule = await create(weeklyBody({ participants: [person('Ana'), person('Ben')] }));
    const path = `/schedules/${schedule.id}/overrides`;
    const swap = (slot: string, name: string) => ({
      slot,
      kind: 'swap',
      person: person(name),
      starts_at: '2026-03-08T00:00:00Z',
      ends_at: '2026-03-10T00:00:00Z',
    });
    expectOk(await c.adminA.call('POST', path, swap('primary', 'Ana')), 201);
    expectOk(await c.adminA.call('POST', path, swap('secondary', 'Ben')), 201);
    // Ana keeps the week that was Ben's until the 10th: the handoff on the 9th changes nothing.
    expect(await onCall(schedule.team, '2026-03-08T00:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ana' }, secondary: { name: 'Ben' } },
      next_rotation: '2026-03-10T00:00:00.000Z',
    });
    expect(await onCall(schedule.team, '2026-03-10T00:00:00Z')).toMatchObject({
      current: { primary: { name: 'Ben' }, secondary: { name: 'Ana' } },
      next_rotation: '2026-03-16T13:00:00.000Z',
    });
  });

  it('refuses a bad override with 400 naming the field, and 404 for an unknown schedule', async () => {
    const schedule = await create(weeklyBody());
    const post = (fields: Record<string, unknown>) =>
      c.adminA.call('POST', `/schedules/${schedule.id}/overrides`, {
        kind: 'pto',
        person: person('Dee'),
        starts_at: '2026-03-06T00:00:00Z',
        ends_at: '2026-03-07T00:00:00Z',
        ...fields,
      });
    expect(fieldsOf(await post({ ends_at: '2026-03-06T00:00:00Z' }))).toEqual(['body.ends_at']);
    expect(fieldsOf(await post({ ends_at: '2026-03-05T00:00:00Z' }))).toEqual(['body.ends_at']);
    expect(
      fieldsOf(await post({ starts_at: '2026-03-01T00:00:00Z', ends_at: '2026-03-04T00:00:00Z' })),
    ).toEqual(['body.ends_at']);
    expect(fieldsOf(await post({ kind: 'vacation' }))).toEqual(['body.kind']);
    expect(fieldsOf(await post({ slot: 'tertiary' }))).toEqual(['body.slot']);
    expect(fieldsOf(await post({ person: undefined }))).toEqual(['body.person']);
    expect(fieldsOf(await post({ person: { name: 'Dee' } }))).toEqual(['body.person.email']);
    expect(fieldsOf(await post({ starts_at: '2026-03-06' }))).toEqual(['body.starts_at']);
    expect(fieldsOf(await post({ ends_at: '+275760-09-13T00:00:00Z' }))).toEqual(['body.ends_at']);
    const unknown = crypto.randomUUID();
    expectError(
      await c.adminA.call('POST', `/schedules/${unknown}/overrides`, {
        kind: 'pto',
        person: person('Dee'),
        starts_at: '2026-03-06T00:00:00Z',
        ends_at: '2026-03-07T00:00:00Z',
      }),
      404,
      'SCHEDULE_NOT_FOUND',
    );
    expectError(await c.adminA.call('GET', `/schedules/${unknown}/overrides`), 404, 'SCHEDULE_NOT_FOUND');
    expect(fieldsOf(await c.adminA.call('GET', '/schedules/not-a-uuid'))).toEqual(['params.schedule_id']);
  });

  it('lets managers and admins in, and nobody else', async () => {
    const body = weeklyBody();
    expectError(await c.staffA.call('POST', '/schedules', body), 403, 'FORBIDDEN');
    expectError(await c.anonymous('POST', '/schedules', body), 401, 'MISSING_TOKEN');
    await create(body);
    expectError(await c.staffA.call('GET', `/schedule/${body.team}`), 403, 'FORBIDDEN');
    expectError(await c.anonymous('GET', `/schedule/${body.team}`), 401, 'MISSING_TOKEN');
    expectError(await c.staffA.call('GET', '/schedules'), 403, 'FORBIDDEN');
    expect(expectOk(await c.managerA.call('POST', '/schedules', weeklyBody()), 201).type).toBe('weekly');
  });
});
