import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  expectError,
  expectOk,
  type OncallCloud,
  oncallCloud,
  person,
  type ScheduleView,
  weeklyBody,
} from './oncall-cloud.ts';

describe.each(backends)('on-call across tenants on %s', (backend) => {
  let c: OncallCloud;
  let scheduleA: ScheduleView;
  let overrideA: { id: string };
  const cover = {
    kind: 'emergency',
    person: person('Dee'),
    starts_at: '2026-03-05T00:00:00Z',
    ends_at: '2026-03-06T00:00:00Z',
  };

  beforeAll(async () => {
    c = await oncallCloud(backend);
    scheduleA = expectOk(await c.adminA.call('POST', '/schedules', weeklyBody({ team: 'platform' })), 201);
    overrideA = expectOk(await c.adminA.call('POST', `/schedules/${scheduleA.id}/overrides`, cover), 201);
  });
  afterAll(() => c.cloud.close());

  it('does not show one tenant’s team, schedule or overrides to another', async () => {
    expectError(await c.adminB.call('GET', '/schedule/platform'), 404, 'TEAM_NOT_FOUND');
    expectError(await c.adminB.call('GET', `/schedules/${scheduleA.id}`), 404, 'SCHEDULE_NOT_FOUND');
    expect(expectOk(await c.adminB.call('GET', '/schedules'))).toEqual([]);
    expectError(
      await c.adminB.call('GET', `/schedules/${scheduleA.id}/overrides`),
      404,
      'SCHEDULE_NOT_FOUND',
    );
    expectError(
      await c.adminB.call('GET', `/schedules/${scheduleA.id}/overrides/${overrideA.id}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    expect(await c.cloud.services.oncall.current(c.b.tenant.id, 'platform')).toBeUndefined();
    expect(await c.cloud.services.oncall.teams(c.b.tenant.id)).toEqual([]);
    expect(await c.cloud.services.oncall.teams(c.a.tenant.id)).toEqual(['platform']);
  });

  it('does not let another tenant change, override or delete it', async () => {
    expectError(
      await c.adminB.call('PATCH', `/schedules/${scheduleA.id}`, { handoff_time: '03:00' }),
      404,
      'SCHEDULE_NOT_FOUND',
    );
    expectError(
      await c.adminB.call('POST', `/schedules/${scheduleA.id}/overrides`, {
        ...cover,
        person: person('Mallory'),
      }),
      404,
      'SCHEDULE_NOT_FOUND',
    );
    expectError(
      await c.adminB.call('DELETE', `/schedules/${scheduleA.id}/overrides/${overrideA.id}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    expectError(await c.adminB.call('DELETE', `/schedules/${scheduleA.id}`), 404, 'SCHEDULE_NOT_FOUND');
    const after = expectOk(await c.managerA.call('GET', '/schedule/platform'));
    expect(after).toMatchObject({
      schedule_id: scheduleA.id,
      current: { primary: { name: 'Dee' }, secondary: { name: 'Ben' } },
      overrides: { primary: { id: overrideA.id } },
    });
    expect(expectOk(await c.adminA.call('GET', `/schedules/${scheduleA.id}`)).handoff_time).toBe('09:00');
  });

  it('lets each tenant have its own team of the same name', async () => {
    const scheduleB = expectOk(
      await c.adminB.call(
        'POST',
        '/schedules',
        weeklyBody({ team: 'platform', type: 'daily', participants: [person('Zed')] }),
      ),
      201,
    );
    expect(expectOk(await c.adminB.call('GET', '/schedule/platform'))).toMatchObject({
      schedule_id: scheduleB.id,
      current: { primary: { name: 'Zed' }, secondary: null },
      next_rotation: null,
      overrides: { primary: null },
    });
    expect(expectOk(await c.managerA.call('GET', '/schedule/platform'))).toMatchObject({
      schedule_id: scheduleA.id,
      current: { primary: { name: 'Dee' } },
    });
    // A's override does not move under B's schedule id either.
    expectError(
      await c.adminB.call('DELETE', `/schedules/${scheduleB.id}/overrides/${overrideA.id}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    expectError(
      await c.adminA.call('GET', `/schedules/${scheduleA.id}/overrides/${crypto.randomUUID()}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
  });
});
