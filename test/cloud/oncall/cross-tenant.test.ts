import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, seedTenant, signedInUser } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import {
  type Call,
  expectError,
  expectOk,
  type OncallCloud,
  oncallCloud,
  person,
  type ScheduleView,
  weeklyBody,
} from './oncall-cloud.ts';

let tenantSeq = 0;

describe.each(backends)('on-call across tenants on %s', (backend) => {
  let c: OncallCloud;
  let a: Awaited<ReturnType<typeof alphaWithSchedule>>;
  const cover = {
    kind: 'emergency',
    person: person('Dee'),
    starts_at: '2026-03-05T00:00:00Z',
    ends_at: '2026-03-06T00:00:00Z',
  };

  /** Calls the on-call API as a new member of the tenant. */
  async function memberOf(tenantId: string, email: string, roles: string[]): Promise<Call> {
    const { token } = await signedInUser(c.cloud, tenantId, email, roles);
    return (method, path, payload) =>
      c.cloud.app.inject({
        method,
        url: `/api/v1/oncall${path}`,
        ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
        headers: bearer(token),
      });
  }

  /** A tenant of the test's own, with its admin. */
  async function newTenant(name: string) {
    const slug = `${name}-${++tenantSeq}`;
    const { tenant } = await seedTenant(c.cloud.services, slug);
    return { tenant, slug, admin: await memberOf(tenant.id, `admin@${slug}.test`, ['tenant_admin']) };
  }

  /** Tenant A, the test's own: its platform team's schedule, with an override, is its only one. */
  async function alphaWithSchedule() {
    const { tenant, slug, admin } = await newTenant('alpha');
    const manager = await memberOf(tenant.id, `manager@${slug}.test`, ['manager']);
    const schedule: ScheduleView = expectOk(
      await admin('POST', '/schedules', weeklyBody({ team: 'platform' })),
      201,
    );
    const override: { id: string } = expectOk(
      await admin('POST', `/schedules/${schedule.id}/overrides`, cover),
      201,
    );
    return { tenant, admin, manager, schedule, override };
  }

  // One cloud for the file, at the on-call tests' fixed instant, and its tenant B, to which no test
  // gives a schedule; A is each test's own.
  beforeAll(async () => {
    c = await oncallCloud(backend);
  });
  beforeEach(async () => {
    a = await alphaWithSchedule();
  });
  afterAll(() => c.cloud.close());

  it('does not show one tenant’s team, schedule or overrides to another', async () => {
    expectError(await c.adminB.call('GET', '/schedule/platform'), 404, 'TEAM_NOT_FOUND');
    expectError(await c.adminB.call('GET', `/schedules/${a.schedule.id}`), 404, 'SCHEDULE_NOT_FOUND');
    expect(expectOk(await c.adminB.call('GET', '/schedules'))).toEqual([]);
    expectError(
      await c.adminB.call('GET', `/schedules/${a.schedule.id}/overrides`),
      404,
      'SCHEDULE_NOT_FOUND',
    );
    expectError(
      await c.adminB.call('GET', `/schedules/${a.schedule.id}/overrides/${a.override.id}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    expect(await c.cloud.services.oncall.current(c.b.tenant.id, 'platform')).toBeUndefined();
    expect(await c.cloud.services.oncall.teams(c.b.tenant.id)).toEqual([]);
    expect(await c.cloud.services.oncall.teams(a.tenant.id)).toEqual(['platform']);
  });

  it('does not let another tenant change, override or delete it', async () => {
    expectError(
      await c.adminB.call('PATCH', `/schedules/${a.schedule.id}`, { handoff_time: '03:00' }),
      404,
      'SCHEDULE_NOT_FOUND',
    );
    expectError(
      await c.adminB.call('POST', `/schedules/${a.schedule.id}/overrides`, {
        ...cover,
        person: person('Mallory'),
      }),
      404,
      'SCHEDULE_NOT_FOUND',
    );
    expectError(
      await c.adminB.call('DELETE', `/schedules/${a.schedule.id}/overrides/${a.override.id}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    expectError(await c.adminB.call('DELETE', `/schedules/${a.schedule.id}`), 404, 'SCHEDULE_NOT_FOUND');
    const after = expectOk(await a.manager('GET', '/schedule/platform'));
    expect(after).toMatchObject({
      schedule_id: a.schedule.id,
      current: { primary: { name: 'Dee' }, secondary: { name: 'Ben' } },
      overrides: { primary: { id: a.override.id } },
    });
    expect(expectOk(await a.admin('GET', `/schedules/${a.schedule.id}`)).handoff_time).toBe('09:00');
  });

  it('lets each tenant have its own team of the same name', async () => {
    // A B of the test's own: the file's B must keep no team for the checks that it sees none of A's.
    const b = await newTenant('bravo');
    const scheduleB = expectOk(
      await b.admin(
        'POST',
        '/schedules',
        weeklyBody({ team: 'platform', type: 'daily', participants: [person('Zed')] }),
      ),
      201,
    );
    expect(expectOk(await b.admin('GET', '/schedule/platform'))).toMatchObject({
      schedule_id: scheduleB.id,
      current: { primary: { name: 'Zed' }, secondary: null },
      next_rotation: null,
      overrides: { primary: null },
    });
    expect(expectOk(await a.manager('GET', '/schedule/platform'))).toMatchObject({
      schedule_id: a.schedule.id,
      current: { primary: { name: 'Dee' } },
    });
    // A's override does not move under B's schedule id either.
    expectError(
      await b.admin('DELETE', `/schedules/${scheduleB.id}/overrides/${a.override.id}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    expectError(
      await a.admin('GET', `/schedules/${a.schedule.id}/overrides/${crypto.randomUUID()}`),
      404,
      'OVERRIDE_NOT_FOUND',
    );
  });
});
