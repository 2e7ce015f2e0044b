import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type AlertingCloud,
  alertBody,
  alertingCloud,
  createPolicy,
  expectNoDuplicateKeys,
  expectOk,
  ingest,
  minutes,
  personTarget,
  sentOf,
} from './alerting-cloud.ts';
import { runOutEscalations } from './escalations.ts';

/** Spec 3's example policy, with named people in place of the roles. */
const examplePolicy = (service: string) => ({
  name: `Example (${service})`,
  match: { services: [service] },
  mode: 'parallel',
  levels: [
    { targets: [personTarget('Primary')], channels: ['sms', 'voice'], timeout_minutes: 5 },
    {
      targets: [personTarget('Secondary'), { type: 'ai_agent' }],
      channels: ['sms', 'voice', 'team_chat'],
      timeout_minutes: 5,
    },
    { targets: [personTarget('Manager')], channels: ['sms', 'voice', 'email'], timeout_minutes: 10 },
    {
      targets: [personTarget('Exec')],
      channels: ['voice', 'sms', 'email', 'team_chat', 'push', 'console'],
      timeout_minutes: null,
    },
  ],
});

describe.each(backends)('escalation on %s', (backend) => {
  let context: AlertingCloud;
  beforeAll(async () => {
    context = await alertingCloud(backend);
  });
  afterAll(() => context.cloud.close());
  // The tests count the steps runDue takes, and it takes every due one: nothing an earlier test
  // left pending may fall due in this one's time-outs.
  beforeEach(async () => {
    await runOutEscalations(context);
    await context.adminA.refresh();
  });

  /** Moves the clock; the admin signs in again (access tokens live an hour). */
  const advance = async (ms: number) => {
    context.cloud.clock.advance(ms);
    await context.adminA.refresh();
  };
  const runDue = () => context.cloud.services.alerting.runDue();
  const level = async (id: string) =>
    (expectOk(await context.adminA.call('GET', `/api/v1/alerts/${id}`)) as { escalation_level: number })
      .escalation_level;

  it('walks the example policy through every level, each notified once, at each time-out', async () => {
    await createPolicy(context.adminA, examplePolicy('pos'));
    const alert = await ingest(context.adminA, alertBody({ service: 'pos' }));
    expect(alert.escalation_level).toBe(1);
    expect(await sentOf(context, alert.id)).toEqual([
      'L1 primary@example.com sms',
      'L1 primary@example.com voice',
    ]);

    await advance(minutes(5) - 1);
    expect(await runDue()).toBe(0);
    expect(await level(alert.id)).toBe(1);

    await advance(1);
    expect(await runDue()).toBe(1);
    expect(await level(alert.id)).toBe(2);
    expect((await sentOf(context, alert.id)).filter((line) => line.startsWith('L2'))).toEqual([
      'L2 ai_agent console',
      'L2 secondary@example.com sms',
      'L2 secondary@example.com voice',
      'L2 team team_chat',
    ]);

    await advance(minutes(5));
    expect(await runDue()).toBe(1);
    expect(await level(alert.id)).toBe(3);
    expect((await sentOf(context, alert.id)).filter((line) => line.startsWith('L3'))).toEqual([
      'L3 manager@example.com email',
      'L3 manager@example.com sms',
      'L3 manager@example.com voice',
    ]);

    await advance(minutes(10));
    expect(await runDue()).toBe(1);
    expect(await level(alert.id)).toBe(4);
    expect((await sentOf(context, alert.id)).filter((line) => line.startsWith('L4'))).toEqual([
      'L4 exec@example.com email',
      'L4 exec@example.com push',
      'L4 exec@example.com sms',
      'L4 exec@example.com voice',
      'L4 feed console',
      'L4 team team_chat',
    ]);

    // Level 4 has no time-out: nothing further, however long.
    await advance(minutes(600));
    expect(await runDue()).toBe(0);
    expect(await level(alert.id)).toBe(4);
    await expectNoDuplicateKeys(context, alert.id);
    const steps = await context.cloud.services.alerting.steps(context.a.tenant.id, alert.id);
    expect(steps.map((step) => [step.level, step.outcome])).toEqual([
      [2, 'notified'],
      [3, 'notified'],
      [4, 'notified'],
    ]);
  });

  it('stops when acknowledged: no further level, escalation_level stays', async () => {
    await createPolicy(context.adminA, examplePolicy('kds'));
    const alert = await ingest(context.adminA, alertBody({ service: 'kds' }));
    await advance(minutes(5));
    await runDue();
    expectOk(
      await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/acknowledge`, {
        user_id: 'sec',
        note: 'mine',
      }),
    );
    await advance(minutes(60));
    expect(await runDue()).toBe(0);
    expect(await level(alert.id)).toBe(2);
    expect((await sentOf(context, alert.id)).some((line) => line.startsWith('L3'))).toBe(false);
    const steps = await context.cloud.services.alerting.steps(context.a.tenant.id, alert.id);
    expect(steps.map((step) => [step.level, step.outcome])).toEqual([
      [2, 'notified'],
      [3, 'stopped'],
    ]);
  });

  it('stops when resolved', async () => {
    await createPolicy(context.adminA, examplePolicy('menu'));
    const alert = await ingest(context.adminA, alertBody({ service: 'menu' }));
    expectOk(await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/resolve`, { note: 'flap' }));
    await advance(minutes(60));
    expect(await runDue()).toBe(0);
    expect(await level(alert.id)).toBe(1);
  });

  it('keeps escalating an acknowledged alert when the policy does not skip acknowledged ones', async () => {
    await createPolicy(context.adminA, { ...examplePolicy('loyalty'), skip_when_acknowledged: false });
    const alert = await ingest(context.adminA, alertBody({ service: 'loyalty' }));
    expectOk(await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/acknowledge`, { user_id: 'p' }));
    await advance(minutes(5));
    expect(await runDue()).toBe(1);
    expect(await level(alert.id)).toBe(2);
  });

  it('sequential: one person at a time in order, each given the time-out, then the next level', async () => {
    await createPolicy(context.adminA, {
      name: 'Sequential',
      match: { services: ['seq'] },
      mode: 'sequential',
      levels: [
        {
          targets: [personTarget('Uno'), personTarget('Dos'), personTarget('Tres')],
          channels: ['sms'],
          timeout_minutes: 2,
        },
        { targets: [personTarget('Boss')], channels: ['sms'], timeout_minutes: null },
      ],
    });
    const alert = await ingest(context.adminA, alertBody({ service: 'seq' }));
    expect(await sentOf(context, alert.id)).toEqual(['L1 uno@example.com sms']);
    await advance(minutes(2));
    await runDue();
    expect(await sentOf(context, alert.id)).toEqual(['L1 dos@example.com sms', 'L1 uno@example.com sms']);
    expect(await level(alert.id)).toBe(1);
    await advance(minutes(2));
    await runDue();
    expect((await sentOf(context, alert.id)).length).toBe(3);
    expect(await level(alert.id)).toBe(1);
    await advance(minutes(2));
    await runDue();
    expect(await level(alert.id)).toBe(2);
    expect(await sentOf(context, alert.id)).toContain('L2 boss@example.com sms');
  });

  it('round-robin: each new alert starts one person later', async () => {
    await createPolicy(context.adminA, {
      name: 'Round robin',
      match: { services: ['rr'] },
      mode: 'round_robin',
      levels: [
        {
          targets: [personTarget('Ann'), personTarget('Ben'), personTarget('Cy')],
          channels: ['sms'],
          timeout_minutes: 3,
        },
      ],
    });
    const firsts: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const alert = await ingest(context.adminA, alertBody({ service: 'rr' }));
      firsts.push((await sentOf(context, alert.id))[0]!);
    }
    expect(firsts).toEqual([
      'L1 ann@example.com sms',
      'L1 ben@example.com sms',
      'L1 cy@example.com sms',
      'L1 ann@example.com sms',
    ]);
    // The second alert goes on from Ben to Cy, then Ann, then stops (one level).
    const alert = await ingest(context.adminA, alertBody({ service: 'rr' }));
    expect(await sentOf(context, alert.id)).toEqual(['L1 ben@example.com sms']);
    await advance(minutes(3));
    await runDue();
    await advance(minutes(3));
    await runDue();
    await advance(minutes(3));
    await runDue();
    expect(await sentOf(context, alert.id)).toEqual([
      'L1 ann@example.com sms',
      'L1 ben@example.com sms',
      'L1 cy@example.com sms',
    ]);
  });

  it('parallel: everyone of a level at once', async () => {
    await createPolicy(context.adminA, {
      name: 'Parallel',
      match: { services: ['par'] },
      levels: [
        { targets: [personTarget('Xa'), personTarget('Xb')], channels: ['sms'], timeout_minutes: 1 },
        { targets: [personTarget('Ya'), personTarget('Yb')], channels: ['email'], timeout_minutes: null },
      ],
    });
    const alert = await ingest(context.adminA, alertBody({ service: 'par' }));
    expect(await sentOf(context, alert.id)).toEqual(['L1 xa@example.com sms', 'L1 xb@example.com sms']);
    await advance(minutes(1));
    await runDue();
    expect((await sentOf(context, alert.id)).filter((line) => line.startsWith('L2'))).toEqual([
      'L2 ya@example.com email',
      'L2 yb@example.com email',
    ]);
  });

  it('runs each step once when two workers look at the same time', async () => {
    await createPolicy(context.adminA, examplePolicy('race'));
    const alerts = [];
    for (let i = 0; i < 5; i += 1) alerts.push(await ingest(context.adminA, alertBody({ service: 'race' })));
    await advance(minutes(5));
    const counts = await Promise.all([runDue(), runDue(), runDue()]);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(5);
    for (const alert of alerts) {
      expect(await level(alert.id)).toBe(2);
      await expectNoDuplicateKeys(context, alert.id);
    }
  });
});
