import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type Admin,
  type AlertingCloud,
  alertBody,
  alertingCloud,
  createPolicy,
  expectError,
  expectOk,
  freshAdmin,
  ingest,
  personTarget,
} from './alerting-cloud.ts';

describe.each(backends)('escalation policies on %s', (backend) => {
  let context: AlertingCloud;
  beforeAll(async () => {
    context = await alertingCloud(backend);
  });
  afterAll(() => context.cloud.close());
  // Each test on a tenant of its own: defaults and lists are per tenant.
  let admin: Admin;
  beforeEach(async () => {
    admin = await freshAdmin(context);
  });

  const level = (name: string, timeout: number | null = 5) => ({
    targets: [personTarget(name)],
    timeout_minutes: timeout,
  });

  it('expresses the spec’s example policy, on-call targets and the AI agent included', async () => {
    const policy = await createPolicy(admin, {
      name: 'Spec example',
      match: { services: ['platform'], severities: ['P1', 'P2'] },
      levels: [
        {
          targets: [{ type: 'oncall', team: 'platform', role: 'primary' }],
          channels: ['sms', 'voice'],
          timeout_minutes: 5,
        },
        {
          targets: [{ type: 'oncall', team: 'platform', role: 'secondary' }, { type: 'ai_agent' }],
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
    const read = expectOk(await admin.call('GET', `/api/v1/alerting/policies/${policy.id}`));
    expect(read).toMatchObject({ mode: 'parallel', skip_when_acknowledged: true, is_default: false });
    expect((read as { levels: unknown[] }).levels).toHaveLength(4);
  });

  it('matches by service, severity and labels in creation order, else the default', async () => {
    const fallback = await createPolicy(admin, {
      name: 'Default',
      is_default: true,
      levels: [level('Dee', null)],
    });
    const bySeverity = await createPolicy(admin, {
      name: 'Drive-thru P2',
      match: { services: ['drive-thru'], severities: ['P2'] },
      levels: [level('Pat', null)],
    });
    const byLabel = await createPolicy(admin, {
      name: 'EU drive-thru',
      match: { services: ['drive-thru'], labels: { region: 'eu' } },
      levels: [level('Eve', null)],
    });
    const policyOf = async (overrides: Record<string, unknown>) =>
      (await ingest(admin, alertBody(overrides))).policy_id;
    expect(await policyOf({ service: 'drive-thru', severity: 'P2', labels: { region: 'eu' } })).toBe(
      bySeverity.id,
    );
    expect(await policyOf({ service: 'drive-thru', severity: 'P3', labels: { region: 'eu' } })).toBe(
      byLabel.id,
    );
    expect(await policyOf({ service: 'drive-thru', severity: 'P3', labels: { region: 'us' } })).toBe(
      fallback.id,
    );
    expect(await policyOf({ service: 'other', severity: 'P1' })).toBe(fallback.id);
  });

  it('keeps one default per tenant (409), and open alerts keep the policy as it was', async () => {
    await createPolicy(admin, { name: 'Default', is_default: true, levels: [level('Dee', null)] });
    const second = expectError(
      await admin.call('POST', '/api/v1/alerting/policies', {
        name: 'Another',
        is_default: true,
        levels: [level('X')],
      }),
      409,
      'DEFAULT_POLICY_EXISTS',
    );
    expect(second.details).toEqual([{ field: 'body.is_default', message: 'another policy is the default' }]);
    const policy = await createPolicy(admin, {
      name: 'Editable',
      match: { services: ['edit'] },
      levels: [level('Old'), level('Older', null)],
    });
    const alert = await ingest(admin, alertBody({ service: 'edit' }));
    const replaced = expectOk(
      await admin.call('PUT', `/api/v1/alerting/policies/${policy.id}`, {
        name: 'Edited',
        match: { services: ['edit'] },
        mode: 'sequential',
        levels: [level('New', null)],
      }),
    );
    expect(replaced).toMatchObject({ name: 'Edited', mode: 'sequential' });
    context.cloud.clock.advance(5 * 60_000);
    await admin.refresh();
    await context.cloud.services.alerting.runDue();
    const rows = await context.cloud.store.db
      .selectFrom('notifications')
      .select('dedupe_key')
      .where('alert_id', '=', alert.id)
      .execute();
    expect(rows.map((row) => row.dedupe_key)).toContain(`alert:${alert.id}:L2:person:older@example.com:sms`);
  });

  it('validates: 400 naming the field for levels, targets, channels and time-outs', async () => {
    const post = (body: Record<string, unknown>) => admin.call('POST', '/api/v1/alerting/policies', body);
    const noLevels = expectError(await post({ name: 'x', levels: [] }), 400, 'INVALID_REQUEST');
    expect(JSON.stringify(noLevels.details)).toContain('levels');
    const badChannel = expectError(
      await post({
        name: 'x',
        levels: [{ targets: [personTarget('A')], channels: ['pager'], timeout_minutes: 5 }],
      }),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(badChannel.details)).toContain('channels');
    const badTarget = expectError(
      await post({ name: 'x', levels: [{ targets: [{ type: 'oncall', team: 't' }], timeout_minutes: 5 }] }),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(badTarget.details)).toContain('targets');
    const early = expectError(
      await post({ name: 'x', levels: [level('A', null), level('B')] }),
      400,
      'INVALID_REQUEST',
    );
    expect(early.details).toEqual([
      { field: 'body.levels/0/timeout_minutes', message: 'only the last level may have no time-out' },
    ]);
    const badMode = expectError(
      await post({ name: 'x', mode: 'random', levels: [level('A')] }),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(badMode.details)).toContain('mode');
  });

  it('lists in pages, deletes, and answers 404 after', async () => {
    for (let i = 0; i < 5; i += 1) await createPolicy(admin, { name: `Policy ${i}`, levels: [level('Lee')] });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await admin.call(
        'GET',
        `/api/v1/alerting/policies?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      const body = response.json() as {
        data: Array<{ id: string }>;
        meta: { pagination: { next_cursor: string | null } };
      };
      seen.push(...body.data.map((policy) => policy.id));
      cursor = body.meta.pagination.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(seen.length);
    const path = `/api/v1/alerting/policies/${seen[0]}`;
    expect((await admin.call('DELETE', path)).statusCode).toBe(204);
    expectError(await admin.call('GET', path), 404, 'POLICY_NOT_FOUND');
    expectError(await admin.call('PUT', path, { name: 'x', levels: [level('A')] }), 404, 'POLICY_NOT_FOUND');
  });
});
