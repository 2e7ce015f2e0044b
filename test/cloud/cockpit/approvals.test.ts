import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionEvent } from '../../../cloud/cockpit/index.ts';
import { seedTenant } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { type CockpitCloud, cockpitCloud, expectError, expectOk, member } from './cockpit-cloud.ts';

const OPERATOR = '0190c2a4-0000-7000-8000-000000000001';
const SENIOR = '0190c2a4-0000-7000-8000-000000000002';

describe.each(backends)('cockpit approvals (%s)', (backend) => {
  let t: CockpitCloud;
  const events: DecisionEvent[] = [];
  beforeAll(async () => {
    t = await cockpitCloud(backend);
    t.cloud.services.cockpit.approvals.onDecision('refund', (event) => {
      events.push(event);
    });
  });
  afterAll(async () => t.cloud.close());

  const submit = (tenantId = t.a.tenant.id, kind: 'refund' | 'data_deletion' = 'refund', amount = 250) =>
    t.cloud.services.cockpit.approvals.submit(t.cloud.store.db, tenantId, {
      kind,
      summary: `Refund of ${amount} EUR to order 1042`,
      payload: { order_id: '1042', amount },
      requested_by: 'support_agent',
    });
  const path = (id: string, action = '') =>
    `/api/internal/cockpit/approvals/${id}${action ? `/${action}` : ''}`;

  it('approves, records who and when, and tells the kind’s listeners', async () => {
    const item = await submit();
    const before = t.cloud.clock.now().toISOString();
    const approved = expectOk(
      await t.operatorA.call('POST', path(item.id, 'approve'), { operator_id: OPERATOR }),
    );
    expect(approved).toMatchObject({
      status: 'approved',
      decision: 'approve',
      decided_by: OPERATOR,
      note: null,
    });
    expect(approved.decided_at >= before).toBe(true);
    const detail = expectOk(await t.operatorA.call('GET', path(item.id)));
    expect(detail.decisions).toEqual([
      expect.objectContaining({ action: 'approve', operator_id: OPERATOR, user_id: t.operatorA.id }),
    ]);
    expect(events.at(-1)).toMatchObject({
      tenantId: t.a.tenant.id,
      approval: { id: item.id, status: 'approved' },
    });
  });

  it('approves with a note', async () => {
    const item = await submit();
    const approved = expectOk(
      await t.operatorA.call('POST', path(item.id, 'approve'), {
        operator_id: OPERATOR,
        note: 'customer is a regular',
      }),
    );
    expect(approved).toMatchObject({
      status: 'approved',
      decision: 'approve_with_note',
      note: 'customer is a regular',
    });
  });

  it('modifies and approves, keeping what was submitted', async () => {
    const item = await submit();
    const approved = expectOk(
      await t.operatorA.call('POST', path(item.id, 'modify'), {
        operator_id: OPERATOR,
        payload: { order_id: '1042', amount: 100 },
        note: 'partial refund',
      }),
    );
    expect(approved).toMatchObject({
      status: 'approved',
      decision: 'modify',
      modified: true,
      payload: { order_id: '1042', amount: 100 },
      original_payload: { order_id: '1042', amount: 250 },
    });
    expect(events.at(-1)?.approval.payload).toEqual({ order_id: '1042', amount: 100 });
  });

  it('rejects only with a reason', async () => {
    const item = await submit();
    const missing = expectError(
      await t.operatorA.call('POST', path(item.id, 'reject'), { operator_id: OPERATOR }),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(missing.details)).toContain('reason');
    const rejected = expectOk(
      await t.operatorA.call('POST', path(item.id, 'reject'), {
        operator_id: OPERATOR,
        reason: 'over the limit',
      }),
    );
    expect(rejected).toMatchObject({ status: 'rejected', decision: 'reject', reason: 'over the limit' });
  });

  it('escalates once; the escalated item can still be approved', async () => {
    const item = await submit();
    const escalated = expectOk(
      await t.operatorA.call('POST', path(item.id, 'escalate'), {
        operator_id: OPERATOR,
        to: 'finance-lead',
        reason: 'large',
      }),
    );
    expect(escalated).toMatchObject({
      status: 'escalated',
      escalated_by: OPERATOR,
      escalated_to: 'finance-lead',
      decided_at: null,
    });
    expectError(
      await t.operatorA.call('POST', path(item.id, 'escalate'), { operator_id: SENIOR }),
      409,
      'APPROVAL_ALREADY_DECIDED',
    );
    const listed = expectOk(
      await t.operatorA.call('GET', '/api/internal/cockpit/approvals?status=escalated'),
    );
    expect(listed.map((i: { id: string }) => i.id)).toContain(item.id);
    const approved = expectOk(
      await t.operatorA.call('POST', path(item.id, 'approve'), { operator_id: SENIOR }),
    );
    expect(approved).toMatchObject({ status: 'approved', decided_by: SENIOR, escalated_by: OPERATOR });
    expect(
      expectOk(await t.operatorA.call('GET', path(item.id))).decisions.map(
        (d: { action: string }) => d.action,
      ),
    ).toEqual(['escalate', 'approve']);
  });

  it('refuses a second decision (409) but answers a retry of the same one', async () => {
    const item = await submit();
    const body = { operator_id: OPERATOR, note: 'ok' };
    const first = expectOk(await t.operatorA.call('POST', path(item.id, 'approve'), body));
    const retry = expectOk(await t.operatorA.call('POST', path(item.id, 'approve'), body));
    expect(retry).toEqual(first);
    expectError(
      await t.operatorA.call('POST', path(item.id, 'reject'), {
        operator_id: OPERATOR,
        reason: 'changed my mind',
      }),
      409,
      'APPROVAL_ALREADY_DECIDED',
    );
    expectError(
      await t.operatorA.call('POST', path(item.id, 'approve'), { operator_id: SENIOR }),
      409,
      'APPROVAL_ALREADY_DECIDED',
    );
    expect(expectOk(await t.operatorA.call('GET', path(item.id))).decisions).toHaveLength(1);
  });

  it('two operators deciding at once: one wins, the other gets 409', async () => {
    const item = await submit();
    const [one, two] = await Promise.all([
      t.operatorA.call('POST', path(item.id, 'approve'), { operator_id: OPERATOR }),
      t.operatorA.call('POST', path(item.id, 'reject'), { operator_id: SENIOR, reason: 'no' }),
    ]);
    expect([one.statusCode, two.statusCode].sort()).toEqual([200, 409]);
  });

  it('lists the queue by status, oldest first, in pages', async () => {
    // A tenant of its own, so the queue holds only this test's items.
    const charlie = await seedTenant(t.cloud.services, 'charlie');
    const fresh = {
      cloud: t.cloud,
      a: charlie,
      operatorA: await member(t.cloud, charlie.tenant.id, 'ops@charlie.test', ['cockpit_operator']),
    };
    {
      const ids = [];
      for (let i = 0; i < 5; i += 1)
        ids.push(
          (
            await fresh.cloud.services.cockpit.approvals.submit(fresh.cloud.store.db, fresh.a.tenant.id, {
              kind: 'data_deletion',
              summary: `Delete customer ${i}`,
              payload: { customer: i },
              requested_by: 'privacy_agent',
            })
          ).id,
        );
      await fresh.operatorA.call('POST', path(ids[1]!, 'approve'), { operator_id: OPERATOR });
      const first = await fresh.operatorA.call(
        'GET',
        '/api/internal/cockpit/approvals?status=pending&limit=2',
      );
      const page1 = first.json();
      expect(page1.data.map((i: { id: string }) => i.id)).toEqual([ids[0], ids[2]]);
      const page2 = expectOk(
        await fresh.operatorA.call(
          'GET',
          `/api/internal/cockpit/approvals?status=pending&limit=2&cursor=${page1.meta.pagination.next_cursor}`,
        ),
      );
      expect(page2.map((i: { id: string }) => i.id)).toEqual([ids[3], ids[4]]);
      const approved = expectOk(
        await fresh.operatorA.call('GET', '/api/internal/cockpit/approvals?status=approved'),
      );
      expect(approved.map((i: { id: string }) => i.id)).toEqual([ids[1]]);
      expectError(
        await fresh.operatorA.call('GET', '/api/internal/cockpit/approvals?status=maybe'),
        400,
        'INVALID_REQUEST',
      );
    }
  });

  it('is for cockpit operators only', async () => {
    const item = await submit();
    expectError(await t.managerA.call('GET', '/api/internal/cockpit/approvals'), 403, 'FORBIDDEN');
    expectError(
      await t.managerA.call('POST', path(item.id, 'approve'), { operator_id: OPERATOR }),
      403,
      'FORBIDDEN',
    );
    expect((await t.anonymous('GET', '/api/internal/cockpit/approvals')).statusCode).toBe(401);
  });

  it('validates ids and bodies, naming the field', async () => {
    const item = await submit();
    expectError(
      await t.operatorA.call('GET', path('0190c2a4-0000-7000-8000-00000000ffff')),
      404,
      'APPROVAL_NOT_FOUND',
    );
    const bad = expectError(
      await t.operatorA.call('POST', path(item.id, 'approve'), { operator_id: 'not-a-uuid' }),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(bad.details)).toContain('operator_id');
    expectError(
      await t.operatorA.call('POST', path(item.id, 'modify'), { operator_id: OPERATOR }),
      400,
      'INVALID_REQUEST',
    );
  });

  it('never crosses tenants', async () => {
    const theirs = await submit(t.b.tenant.id);
    expectError(await t.operatorA.call('GET', path(theirs.id)), 404, 'APPROVAL_NOT_FOUND');
    expectError(
      await t.operatorA.call('POST', path(theirs.id, 'approve'), { operator_id: OPERATOR }),
      404,
      'APPROVAL_NOT_FOUND',
    );
    expectError(
      await t.operatorA.call('POST', path(theirs.id, 'reject'), { operator_id: OPERATOR, reason: 'x' }),
      404,
      'APPROVAL_NOT_FOUND',
    );
    const mine = expectOk(await t.operatorA.call('GET', '/api/internal/cockpit/approvals?limit=200'));
    expect(mine.map((i: { id: string }) => i.id)).not.toContain(theirs.id);
    expect(expectOk(await t.operatorB.call('GET', path(theirs.id))).status).toBe('pending');
  });
});
